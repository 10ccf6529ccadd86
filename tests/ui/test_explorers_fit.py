"""The explorers on a projector: a 1280x720 window, JupyterLab in Presentation Mode.

Every explorer's picture, readout, message and controls must fit the output area (no
horizontal scrolling, nothing past its right edge), and its text must stay legible from
the back of a room (no font under 12 CSS px: the page's own text, and the text drawn in
the picture at the size it is shown).

The explorers that draw on a canvas must also be sharp: drawn by the kernel at the width
they are shown, times the screen's devicePixelRatio, so each canvas holds one pixel per
device pixel and the kernel's image fills it 1:1. The notebook opens on a screen of ratio 2
and its window then moves to one of ratio 1, as a window dragged between two screens.

The training explorer shows an <img> of a fixed size that the browser scales to the room
it has, so "one pixel per device pixel" does not apply to it. What applies: the image is
never enlarged past its own pixels (at most one device pixel per image pixel, at ratio 1
and 2: nothing blurred by enlarging; shrinking resamples, which keeps lines and text
whole), it keeps its proportions, and its smallest drawn text (TEXT_PX at the full
WIDTH, tests/explorers/training/test_drawing.py) is at least 12 CSS px as shown.
"""

import pytest

from lessons_lib.explorers.drawing import WIDTH
from lessons_lib.explorers.training.drawing import TEXT_PX
from tests.ui.scratch_lab import FINISHED, KERNEL_IS, RUN_CELL, SHUT_DOWN, scratch_notebook

CELLS = [
    "from lessons_lib import Cube, RoundSTE, SigmoidSpike, explore, explore_steps\n"
    "from lessons_lib import explore_surrogate, train_surrogates",
    "explore(RoundSTE)",  # notes and two legends beside the panels
    "explore(SigmoidSpike)",  # a parameter slider too
    "explore_steps(Cube, 3.0)",  # the step-size explorer's log-log panel
    "explore_surrogate()",  # two panels, a picker among the sliders
    'train_surrogates(shapes=("triangle", "sigmoid"), widths=(0.5, 2.0), steps=20)',  # an <img>
]
CANVAS_EXPLORERS = 4  # cells 1 to 4; the training explorer's picture is an <img>
PROJECTOR = {"width": 1280, "height": 720}
SMALLEST_FONT_PX = 12
PRESENTATION_MODE = """async () => {
  const app = window.jupyterapp;
  if (!app.shell.presentationMode) await app.commands.execute('application:toggle-presentation-mode');
  return app.shell.presentationMode;
}"""
# Once the kernel has drawn every canvas picture at the width the page shows it, and the
# training explorer's image has loaded.
DRAWN_AT_ITS_WIDTH = """(count) => {
  const pictures = [...document.querySelectorAll('.lessons-explorer .explorer-picture')];
  const image = document.querySelector('.training-explorer img');
  return pictures.length === count && pictures.every((picture) =>
    Number(picture.dataset.drawnWidth) === picture.getBoundingClientRect().width
    && Number(picture.dataset.drawnRatio) === window.devicePixelRatio)
    && image?.complete && image.naturalWidth > 0;
}"""
# Whether one explorer fits its output area, and its page text's smallest font.
FITS = """(explorer) => {
  const output = explorer.closest('.jp-OutputArea-output');
  const limit = output.getBoundingClientRect().right;
  const name = (e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`;
  const past = [];
  const fonts = [];  // of every element holding text of its own
  for (const e of explorer.querySelectorAll('*')) {
    const box = e.getBoundingClientRect();
    if (box.width > 0 && box.right > limit + 0.5) past.push(`${name(e)} ends at ${box.right}`);
    const own = [...e.childNodes]
      .some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (own && box.width > 0) fonts.push([parseFloat(getComputedStyle(e).fontSize), name(e)]);
  }
  const scrolling = [];  // a horizontal scrollbar anywhere from the explorer up to the page
  for (let e = explorer; e; e = e.parentElement) {
    const overflow = getComputedStyle(e).overflowX;
    const scrolls = ['auto', 'scroll'].includes(overflow) || e === document.documentElement;
    if (scrolls && e.scrollWidth > e.clientWidth) {
      scrolling.push(`${name(e)}: ${e.scrollWidth} > ${e.clientWidth}`);
    }
  }
  const parts = ['.explorer-picture', '.explorer-readout', '.widget-hbox', '.training-toggles',
    '.training-picture', '.training-facts'];
  const rights = {};
  for (const part of parts) {
    const found = [...explorer.querySelectorAll(part)];
    if (found.length) rights[part] = Math.max(...found.map((e) => e.getBoundingClientRect().right));
  }
  fonts.sort((a, b) => a[0] - b[0]);
  return { limit, past, scrolling, rights, smallestPageFont: fonts[0] };
}"""
# A canvas explorer's picture: its size, its canvases' and its image's pixels, its fonts.
CANVAS_PICTURE = """(explorer) => {
  const picture = explorer.querySelector('.explorer-picture');
  const box = picture.getBoundingClientRect();
  return {
    ratio: window.devicePixelRatio,
    picture: [box.width, box.height],
    canvases: [...picture.querySelectorAll('canvas')].map((c) => [c.width, c.height]),
    image: [Number(picture.dataset.imageWidth), Number(picture.dataset.imageHeight)],
    smallestFont: Number(picture.dataset.smallestFont),
  };
}"""
# The training explorer's <img>: as shown (CSS px) and its own pixels.
IMAGE_PICTURE = """(explorer) => {
  const image = explorer.querySelector('img');
  const box = image.getBoundingClientRect();
  return {
    ratio: window.devicePixelRatio,
    shown: [box.width, box.height],
    natural: [image.naturalWidth, image.naturalHeight],
  };
}"""


NOTEBOOK = scratch_notebook("ui-fit", CELLS)  # served by the shared scratch lab
# Once one explorer's canvas picture is drawn at the width and devicePixelRatio it is shown at.
ONE_DRAWN = """(picture) =>
  Number(picture.dataset.drawnWidth) === picture.getBoundingClientRect().width
  && Number(picture.dataset.drawnRatio) === window.devicePixelRatio"""


@pytest.fixture(scope="module")
def opened_at_2x(browser, scratch_lab_and_link):
    """The scratch notebook opened on a 1280x720 page at devicePixelRatio 2, a high-density
    screen, in Presentation Mode, every cell run, every explorer drawn at the width shown."""
    lab, _ = scratch_lab_and_link
    page = browser.new_page(viewport=PROJECTOR, device_scale_factor=2)
    page.goto(f"{lab.base}/lab/tree/{NOTEBOOK}?reset&token={lab.token}")
    page.wait_for_function(KERNEL_IS, arg="idle", timeout=60_000)
    assert page.evaluate(PRESENTATION_MODE)
    for index in range(len(CELLS)):
        page.evaluate(RUN_CELL, [index, True])
        page.wait_for_function(FINISHED, arg=index)
    page.wait_for_function(DRAWN_AT_ITS_WIDTH, arg=CANVAS_EXPLORERS, timeout=30_000)
    # Chromium's device emulation (Playwright's viewport is the same), held for the page's
    # life: a window moved to another screen, or narrowed, without reloading the notebook.
    page.device_emulation = page.context.new_cdp_session(page)
    yield page
    page.evaluate(SHUT_DOWN)
    page.close()


def show_on(page, width: int, ratio: float) -> None:
    """The page's window made `width` CSS px wide (720 high) on a screen of devicePixelRatio
    `ratio`; then each explorer scrolled into view, as a learner would (JupyterLab skips the
    layout of cells out of view), until every canvas picture is drawn again for it."""
    page.device_emulation.send(
        "Emulation.setDeviceMetricsOverride",
        {
            "width": width,
            "height": PROJECTOR["height"],
            "deviceScaleFactor": ratio,
            "mobile": False,
        },
    )
    page.wait_for_function("(ratio) => window.devicePixelRatio === ratio", arg=ratio)
    explorers = page.locator(".lessons-explorer")
    for i in range(explorers.count()):
        explorer = explorers.nth(i)
        explorer.scroll_into_view_if_needed()
        if "training-explorer" not in explorer.get_attribute("class").split():
            page.wait_for_function(
                ONE_DRAWN, arg=explorer.locator(".explorer-picture").element_handle()
            )
    page.wait_for_function(DRAWN_AT_ITS_WIDTH, arg=CANVAS_EXPLORERS, timeout=30_000)


@pytest.fixture(scope="module", params=[2, 1], ids=["2x", "1x"])
def projector(request, opened_at_2x):
    """The page at devicePixelRatio 2 as it opened, then moved to a screen of ratio 1 (the
    kernel draws every picture again for it): both tests at each ratio, the one that narrows
    the window last. Opening at 2x is the harder start: the kernel's first pictures are drawn
    at ratio 1 (drawing.FIRST_SIZE), which a page at ratio 1 would keep even if it never asked
    for its own."""
    show_on(opened_at_2x, PROJECTOR["width"], request.param)
    return opened_at_2x


def measured(page):
    """Each explorer's fit, then its picture: the canvas explorers', then the training one's."""
    explorers = page.locator(".lessons-explorer")
    found = []
    for i in range(explorers.count()):
        explorer = explorers.nth(i)
        training = "training-explorer" in explorer.get_attribute("class").split()
        picture = explorer.evaluate(IMAGE_PICTURE if training else CANVAS_PICTURE)
        found.append({**explorer.evaluate(FITS), **picture, "training": training})
    return found


def assert_fits(explorer):
    for part, right in explorer["rights"].items():
        assert right <= explorer["limit"] + 0.5, f"{part} ends past the output area"
    assert explorer["past"] == [], "cut off at the output area's right edge"
    assert explorer["scrolling"] == [], "a horizontal scrollbar"
    size, where = explorer["smallestPageFont"]
    assert size >= SMALLEST_FONT_PX, f"{where}'s text is {size} px"


def test_every_explorer_fits_the_output_area_with_legible_sharp_text(projector):
    found = measured(projector)
    assert [explorer["training"] for explorer in found] == [False] * CANVAS_EXPLORERS + [True]
    for explorer in found:
        assert_fits(explorer)
        ratio = explorer["ratio"]
        if explorer["training"]:
            (width, height), (natural_w, natural_h) = explorer["shown"], explorer["natural"]
            assert width * ratio <= natural_w, "the image is enlarged past its pixels: blurred"
            assert height / width == pytest.approx(natural_h / natural_w, abs=0.005)
            assert TEXT_PX * width / WIDTH >= SMALLEST_FONT_PX, "its drawn text, as shown"
            continue
        assert explorer["smallestFont"] >= SMALLEST_FONT_PX
        width, height = explorer["picture"]
        backing = [round(width * ratio), round(height * ratio)]
        assert explorer["canvases"] == [backing, backing], "canvases not one pixel per pixel"
        assert explorer["image"] == backing, "the kernel's image is stretched to fit"


def test_a_narrower_window_gets_narrower_pictures_drawn_again_at_their_width(projector):
    """JupyterLab skips the layout of cells out of view (content-visibility) until they are
    scrolled to: each explorer is scrolled into view, as a learner would, then judged."""
    before = measured(projector)
    show_on(projector, 1100, projector.evaluate("window.devicePixelRatio"))
    explorers = projector.locator(".lessons-explorer")
    for i, was in enumerate(before):
        explorer = explorers.nth(i)
        explorer.scroll_into_view_if_needed()
        part = ".training-picture" if was["training"] else ".explorer-picture"
        projector.wait_for_function(
            "([picture, before]) => picture.getBoundingClientRect().width < before",
            arg=[
                explorer.locator(part).element_handle(),
                (was["shown"] if was["training"] else was["picture"])[0],
            ],
        )
    projector.wait_for_function(DRAWN_AT_ITS_WIDTH, arg=CANVAS_EXPLORERS, timeout=30_000)
    for explorer in measured(projector):
        assert_fits(explorer)
        if not explorer["training"]:
            assert explorer["image"] == [round(v * explorer["ratio"]) for v in explorer["picture"]]
