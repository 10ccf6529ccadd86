"""The explorers on a projector: a 1280x720 window, JupyterLab in Presentation Mode.

Every explorer's picture, readout, message and controls must fit the output area (no
horizontal scrolling, nothing past its right edge), its text must stay legible from the
back of a room (no font in the picture under 12 CSS px), and the picture must be sharp:
drawn by the kernel at the width it is shown, times the screen's devicePixelRatio, so
each canvas holds one pixel per device pixel and the kernel's image fills it 1:1.
"""

import pytest

from tests.ui.scratch_lab import FINISHED, RUN_CELL, SHUT_DOWN, fixtures, notebook_of

CELLS = [
    "from lessons_lib import Cube, RoundSTE, SigmoidSpike, explore, explore_steps\n"
    "from lessons_lib import explore_surrogate",
    "explore(RoundSTE)",  # notes and two legends beside the panels
    "explore(SigmoidSpike)",  # a parameter slider too
    "explore_steps(Cube, 3.0)",  # the step-size explorer's log-log panel
    "explore_surrogate()",  # two panels, a picker among the sliders
]
PROJECTOR = {"width": 1280, "height": 720}
SMALLEST_FONT_PX = 12
PRESENTATION_MODE = """async () => {
  const app = window.jupyterapp;
  if (!app.shell.presentationMode) await app.commands.execute('application:toggle-presentation-mode');
  return app.shell.presentationMode;
}"""
# Once the kernel has drawn a picture at the width the page shows it.
DRAWN_AT_ITS_WIDTH = """(count) => {
  const pictures = [...document.querySelectorAll('.lessons-explorer .explorer-picture')];
  return pictures.length === count && pictures.every((picture) =>
    Number(picture.dataset.drawnWidth) === picture.getBoundingClientRect().width
    && Number(picture.dataset.drawnRatio) === window.devicePixelRatio);
}"""
# Everything the test judges about one explorer, measured in the page.
MEASURE = """(explorer) => {
  const output = explorer.closest('.jp-OutputArea-output');
  const limit = output.getBoundingClientRect().right;
  const name = (e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`;
  const past = [];
  for (const e of explorer.querySelectorAll('*')) {
    const box = e.getBoundingClientRect();
    if (box.width > 0 && box.right > limit + 0.5) past.push(`${name(e)} ends at ${box.right}`);
  }
  const scrolling = [];  // a horizontal scrollbar anywhere from the explorer up to the page
  for (let e = explorer; e; e = e.parentElement) {
    const overflow = getComputedStyle(e).overflowX;
    const scrolls = ['auto', 'scroll'].includes(overflow) || e === document.documentElement;
    if (scrolls && e.scrollWidth > e.clientWidth) {
      scrolling.push(`${name(e)}: ${e.scrollWidth} > ${e.clientWidth}`);
    }
  }
  const picture = explorer.querySelector('.explorer-picture');
  const box = picture.getBoundingClientRect();
  const ratio = window.devicePixelRatio;
  return {
    output: output.getBoundingClientRect().width,
    rights: Object.fromEntries(['.explorer-picture', '.explorer-readout', '.widget-hbox']
      .map((part) => [part, Math.max(...[...explorer.querySelectorAll(part)]
        .map((e) => e.getBoundingClientRect().right))])),
    limit, past, scrolling, ratio,
    picture: [box.width, box.height],
    canvases: [...picture.querySelectorAll('canvas')].map((c) => [c.width, c.height]),
    image: [Number(picture.dataset.imageWidth), Number(picture.dataset.imageHeight)],
    smallestFont: Number(picture.dataset.smallestFont),
  };
}"""


NAME = "ui-fit"
fixtures(CELLS, NAME)  # this module's notebook, served by the shared scratch lab


@pytest.fixture(scope="module", params=[1, 2], ids=["1x", "2x"])
def projector(request, browser, scratch_lab_and_link):
    """The scratch notebook on a 1280x720 page at devicePixelRatio 1 or 2, in Presentation
    Mode, every explorer drawn at the width it is shown. One page per ratio serves both
    tests (a page's load and run are most of their time); the one that narrows it runs last."""
    lab, _ = scratch_lab_and_link
    page = browser.new_page(viewport=PROJECTOR, device_scale_factor=request.param)
    page.goto(f"{lab.base}/lab/tree/{notebook_of(NAME)}?reset&token={lab.token}")
    page.wait_for_function(
        "window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status "
        "=== 'idle'",
        timeout=60_000,
    )
    assert page.evaluate(PRESENTATION_MODE)
    for index in range(len(CELLS)):
        page.evaluate(RUN_CELL, [index, True])
        page.wait_for_function(FINISHED, arg=index)
    page.wait_for_function(DRAWN_AT_ITS_WIDTH, arg=len(CELLS) - 1, timeout=30_000)
    yield page
    page.evaluate(SHUT_DOWN)
    page.close()


def measured(page):
    explorers = page.locator(".lessons-explorer")
    return [explorers.nth(i).evaluate(MEASURE) for i in range(explorers.count())]


def test_every_explorer_fits_the_output_area_with_legible_sharp_text(projector):
    found = measured(projector)
    assert len(found) == len(CELLS) - 1
    for explorer in found:
        for part, right in explorer["rights"].items():
            assert right <= explorer["limit"] + 0.5, f"{part} ends past the output area"
        assert explorer["past"] == [], "cut off at the output area's right edge"
        assert explorer["scrolling"] == [], "a horizontal scrollbar"
        assert explorer["smallestFont"] >= SMALLEST_FONT_PX
        width, height = explorer["picture"]
        ratio = explorer["ratio"]
        backing = [round(width * ratio), round(height * ratio)]
        assert explorer["canvases"] == [backing, backing], "canvases not one pixel per pixel"
        assert explorer["image"] == backing, "the kernel's image is stretched to fit"


def test_a_narrower_window_gets_a_narrower_picture_drawn_again_at_its_width(projector):
    before = measured(projector)[0]["picture"][0]
    projector.set_viewport_size({"width": 1100, "height": 720})
    projector.wait_for_function(
        "(before) => document.querySelector('.explorer-picture').getBoundingClientRect().width"
        " < before",
        arg=before,
    )
    projector.wait_for_function(DRAWN_AT_ITS_WIDTH, arg=len(CELLS) - 1, timeout=30_000)
    after = measured(projector)[0]
    assert after["picture"][0] < before
    assert after["past"] == [] and after["scrolling"] == []
    assert after["image"] == [round(v * after["ratio"]) for v in after["picture"]]
