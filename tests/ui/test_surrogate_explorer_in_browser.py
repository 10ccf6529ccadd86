"""The surrogate and training explorers in JupyterLab over a slow link, as the others are tested.

The scratch-notebook set-up of the gradient explorer's browser test (`make lab`, Debian's
Chromium, a 100 ms round trip). A point move is drawn by the browser; the shape picker is
an input of the curves, so picking a shape says "updating…" until its bump arrives, and
then no longer (a picker syncs its choice's index, not its value); a broken spike shows its
message in the widget. The training explorer's bar ends full and "Train again" trains.
"""

import torch

from lessons_lib.surrogate_gradients import surrogate_slope
from tests.ui.scratch_lab import RUN_CELL, alt, fixtures, wait_for_words
from tools.page_timing import key_to_picture

CELLS = [
    "from lessons_lib import explore_surrogate\nex = explore_surrogate()\nex",
    "import torch\n\nfrom lessons_lib import explore_surrogate\n\n\n"
    "class Broken(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return (x >= 0).to(x.dtype)\n\n"
    "    @staticmethod\n"
    "    def backward(ctx, grad_out):\n"
    '        raise ValueError("no slope yet")\n\n\n'
    "explore_surrogate(Broken)",
    "from lessons_lib import train_surrogates\n"
    'train_surrogates(shapes=("triangle",), widths=(0.5,), steps=20)',
]

lab_and_link, opened_notebook, page, fresh_page = fixtures(CELLS, "ui-surrogate")


def slope(x, shape):
    return f"{surrogate_slope(torch.tensor(x, dtype=torch.float64), shape, 0.0, 0.5).item():.4g}"


def fresh_explorer(page):
    page.evaluate(RUN_CELL, [0, True])
    explorer = page.locator(".surrogate-explorer").first
    explorer.locator(".explorer-picture[data-revision]").wait_for()
    return explorer


def test_a_point_move_is_drawn_by_the_browser(page):
    explorer = fresh_explorer(page)
    picture = explorer.locator(".explorer-picture")
    handle = explorer.locator(".explorer-point .noUi-handle").first
    assert key_to_picture(handle, picture, "ArrowRight", "data-x") is not None
    wait_for_words(page, "x = 0.26:", f"backward = {slope(0.26, 'fast-sigmoid')},")
    assert "true gradient is 0" in alt(page)


def test_picking_a_shape_says_updating_until_its_bump_arrives_then_stops(page):
    explorer = fresh_explorer(page)
    picture = explorer.locator(".explorer-picture")
    explorer.locator(".explorer-shape select").select_option("triangle")
    wait_for_words(page, "the triangle bump", f"backward = {slope(0.25, 'triangle')},")
    page.wait_for_function(
        "(picture) => picture.getAttribute('aria-busy') === 'false'", arg=picture.element_handle()
    )
    assert explorer.locator(".explorer-badge").is_hidden()


def test_a_broken_spike_shows_its_message_in_the_widget(page):
    page.evaluate(RUN_CELL, [1, True])
    explorer = page.locator(".surrogate-explorer").first
    explorer.locator(".explorer-picture[data-revision]").wait_for()
    assert "no slope yet" in explorer.locator(".explorer-error").inner_text()
    assert "Broken's backward = —" in alt(page)


def test_the_training_explorer_fills_its_bar_and_trains_again(page):
    page.evaluate(RUN_CELL, [2, True])
    explorer = page.locator(".training-explorer").first
    explorer.locator(".training-facts").wait_for()
    bar = explorer.locator(".widget-hprogress .progress-bar")
    assert bar.evaluate("(bar) => bar.style.width") == "100%"
    assert "true gradient (TrueStep): did not learn" in explorer.inner_text()
    explorer.get_by_role("button", name="sigmoid", exact=True).click()
    explorer.get_by_role("button", name="Train again").click()
    page.wait_for_function(
        "(el) => el.innerText.includes('sigmoid, width 0.5:')", arg=explorer.element_handle()
    )
    assert bar.evaluate("(bar) => bar.style.width") == "100%"
