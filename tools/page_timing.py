"""Slider to picture, timed inside the page: a key event on a handle, then the picture's change.

The clock is the page's own (performance.now), so neither playwright nor the network
between the test and the browser adds to it. A MutationObserver sees the picture's
attribute change (the explorer's `data-x` or `data-revision`, an <img>'s `src`); an
<img> is then given the time to decode its new picture, as the explorer's front end
decodes its background before it draws; the next animation frame after that is when the
change reaches the screen.
"""

from playwright.sync_api import Locator

# Resolves to milliseconds from the key event to the frame showing the change, or null.
KEY_TO_PICTURE = """async ([handle, picture, key, attribute, timeout]) => {
  const started = performance.now();
  const shown = new Promise((resolve) => {
    const observer = new MutationObserver(async () => {
      observer.disconnect();
      if (picture instanceof HTMLImageElement) await picture.decode().catch(() => {});
      requestAnimationFrame(() => resolve(performance.now() - started));
    });
    observer.observe(picture, { attributes: true, attributeFilter: [attribute] });
  });
  handle.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
  const late = new Promise((resolve) => setTimeout(() => resolve(null), timeout));
  return Promise.race([shown, late]);
}"""


def key_to_picture(
    handle: Locator, picture: Locator, key: str, attribute: str, timeout_ms: float = 10_000
) -> float | None:
    """Milliseconds from a key event on `handle` to the frame showing `picture`'s change."""
    return handle.page.evaluate(
        KEY_TO_PICTURE,
        [handle.element_handle(), picture.element_handle(), key, attribute, timeout_ms],
    )
