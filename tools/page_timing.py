"""An action to a picture, timed inside the page: a key event on a slider handle or a click on
a button, then the picture's change.

The clock is the page's own (performance.now), so neither playwright nor the network
between the test and the browser adds to it. A MutationObserver sees the picture's
attribute change (the explorer's `data-x` or `data-revision`, an <img>'s `src`), or, with
no attribute, a new <img> put inside the picture's container; an <img> is then given the
time to decode its new picture, as the explorer's front end
decodes its background before it draws; the next animation frame after that is when the
change reaches the screen.
"""

from playwright.sync_api import Locator

# Resolves to milliseconds from the action to the frame showing the change, or null.
# The action: a keydown of `key` on the target, or (key null) the target's click().
ACTION_TO_PICTURE = """async ([target, picture, key, attribute, timeout]) => {
  const started = performance.now();
  const shown = new Promise((resolve) => {
    const observer = new MutationObserver(async () => {
      observer.disconnect();
      // The changed <img>: the picture itself, or (no attribute) the one put in its place.
      const image = attribute === null ? picture.querySelector("img") : picture;
      if (image instanceof HTMLImageElement) await image.decode().catch(() => {});
      requestAnimationFrame(() => resolve(performance.now() - started));
    });
    if (attribute === null) observer.observe(picture, { childList: true, subtree: true });
    else observer.observe(picture, { attributes: true, attributeFilter: [attribute] });
  });
  if (key === null) target.click();
  else target.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
  const late = new Promise((resolve) => setTimeout(() => resolve(null), timeout));
  return Promise.race([shown, late]);
}"""


def _action_to_picture(
    target: Locator, picture: Locator, key: str | None, attribute: str | None, timeout_ms: float
) -> float | None:
    return target.page.evaluate(
        ACTION_TO_PICTURE,
        [target.element_handle(), picture.element_handle(), key, attribute, timeout_ms],
    )


def key_to_picture(
    handle: Locator, picture: Locator, key: str, attribute: str, timeout_ms: float = 10_000
) -> float | None:
    """Milliseconds from a key event on `handle` to the frame showing `picture`'s change."""
    return _action_to_picture(handle, picture, key, attribute, timeout_ms)


def click_to_picture(
    button: Locator, picture: Locator, attribute: str | None, timeout_ms: float = 10_000
) -> float | None:
    """Milliseconds from a click on `button` (dispatched in the page) to the frame showing
    `picture`'s change (attribute None: a new <img> inside the container `picture`)."""
    return _action_to_picture(button, picture, None, attribute, timeout_ms)
