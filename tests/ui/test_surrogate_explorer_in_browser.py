"""The surrogate and training explorers in JupyterLab over a slow link, as the others are tested.

The scratch-notebook set-up of the gradient explorer's browser test (`make lab`, Debian's
Chromium, a 100 ms round trip). A point move is drawn by the browser; the shape picker is
an input of the curves, so picking a shape says "updating…" until its bump arrives, and
then no longer (a picker syncs its choice's index, not its value); a broken spike shows its
message in the widget. The training explorer's bar ends full and "Train again" trains.
Both work from the keyboard alone, with real key presses, and every control has a name
a screen reader says (the training explorer's toggle buttons their pressed state too).
"""

import torch

from lessons_lib.surrogate_gradients import surrogate_slope
from tests.ui.scratch_lab import FOCUSED, RUN_CELL, alt, fixtures, tab_to, wait_for_words
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


def test_the_surrogate_explorer_works_from_the_keyboard_alone(fresh_page):
    """From opening the notebook: run the cell, reach each control with Tab, use it."""
    page = fresh_page
    keys = page.keyboard
    keys.press("Shift+Enter")  # the first cell is selected on opening: run it
    page.locator(".explorer-picture[data-revision]").wait_for()
    keys.press("ArrowUp")  # back to the explorer's cell
    tab_to(page, "x", most=3)
    assert tab_to(page, "threshold", most=2) == ["x", "threshold"]  # past x's number box
    keys.press("ArrowRight")
    wait_for_words(page, "bump (width 0.5, threshold 0.01)")
    assert tab_to(page, "width", most=2) == ["threshold", "width"]
    keys.press("ArrowLeft")
    keys.press("ArrowLeft")
    wait_for_words(page, "bump (width 0.48, threshold 0.01)")
    assert tab_to(page, "shape", most=2) == ["width", "shape"]
    assert page.evaluate("() => document.activeElement.tagName") == "SELECT"
    # The picker's own keys, not JupyterLab's shortcuts: ArrowDown would select the next
    # cell, and of the letters typed, R R would restart the kernel and I I interrupt it.
    keys.press("ArrowDown")  # fast-sigmoid, then arctan in the picker's order
    wait_for_words(page, "the arctan bump (width 0.48, threshold 0.01)")
    keys.type("tri")  # a closed picker jumps to the option its typed letters begin
    wait_for_words(page, "the triangle bump (width 0.48, threshold 0.01)")
    picker = page.get_by_role("combobox", name="shape", exact=True)
    assert picker.input_value() == "triangle"
    assert page.evaluate(FOCUSED) == "shape"
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCellIndex") == 0
    page.wait_for_function(
        "() => document.querySelector('.explorer-picture').getAttribute('aria-busy') === 'false'"
    )


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


SHAPES_ROW = """- group "shapes":
  - button "straight-through"
  - button "clipped"
  - button "sigmoid"
  - button "fast-sigmoid"
  - button "arctan"
  - button "triangle" [pressed]
- group "widths":
  - button "0.01"
  - button "0.1"
  - button "0.5" [pressed]
  - button "2"
  - button "10"
- button "Train again"
"""
FOCUS_CELL = """(index) => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = index;
  notebook.mode = 'command';
  notebook.activeCell.node.focus();
}"""


def said(page):
    """What a screen reader says of the focused control: its role, name and state."""
    return page.locator(":focus").aria_snapshot()


def test_the_training_explorer_works_from_the_keyboard_alone(page):
    """From its cell, as after Shift+Enter and ArrowUp: Tab to a button, Space or Enter
    toggles it (its pressed state follows), Enter on "Train again" trains."""
    page.evaluate(RUN_CELL, [2, True])
    explorer = page.locator(".training-explorer").first
    explorer.locator(".training-facts").wait_for()
    page.evaluate(FOCUS_CELL, 2)
    tab_to(page, "straight-through", most=3)  # past the cell's own toolbar, to the explorer
    assert said(page) == '- button "straight-through"'
    tab_to(page, "sigmoid", most=2)
    keys = page.keyboard
    keys.press("Space")
    assert said(page) == '- button "sigmoid" [pressed]'
    tab_to(page, "2", most=9)  # past the other shapes and the narrower widths
    keys.press("Enter")
    assert said(page) == '- button "2" [pressed]'
    keys.press("Enter")
    assert said(page) == '- button "2"'
    keys.press("Enter")
    assert tab_to(page, "Train again", most=2) == ["10", "Train again"]
    keys.press("Enter")
    assert said(page) == '- button "Train again" [disabled]'  # at once, while it trains
    page.wait_for_function(
        "(el) => el.innerText.includes('sigmoid, width 2:')", arg=explorer.element_handle()
    )
    facts = explorer.locator(".training-facts li").all_inner_texts()
    assert [fact.split(":")[0] for fact in facts] == [
        "true gradient (TrueStep)",
        "sigmoid, width 0.5",
        "sigmoid, width 2",
        "triangle, width 0.5",
        "triangle, width 2",
    ]
    page.wait_for_function("() => document.activeElement.getAttribute('aria-disabled') === 'false'")
    assert said(page) == '- button "Train again"'  # it kept the focus, and is free again


def test_every_control_has_a_name_a_screen_reader_can_say(page):
    explorer = fresh_explorer(page)
    for name in ["x", "threshold", "width"]:
        assert explorer.get_by_role("slider", name=name, exact=True).count() == 1
        assert explorer.get_by_role("spinbutton", name=name, exact=True).count() == 1
    assert explorer.get_by_role("combobox", name="shape", exact=True).count() == 1
    assert explorer.get_by_role("img").get_attribute("aria-label").startswith("Surrogate explorer")
    page.evaluate(RUN_CELL, [2, True])
    training = page.locator(".training-explorer").first
    training.locator(".training-facts").wait_for()
    snapshot = training.aria_snapshot()
    assert SHAPES_ROW in snapshot + "\n"
    picture = training.get_by_role("img")
    assert picture.get_attribute("alt").startswith(
        "Loss against training step, 20 steps: one panel per shape (triangle), "
        "a line per width (0.5)"
    )
