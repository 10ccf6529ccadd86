"""The explorer in JupyterLab over a slow link: point moves never wait, keyboard alone suffices.

A scratch notebook is served by the real `make lab` and opened in Debian's Chromium
through tools/slow_link.py, a local proxy adding 50 ms each way (a 100 ms round trip, as
on Binder). A point move must be drawn by the browser within a frame, even while the
kernel sleeps in another cell; a range change shows "updating…" until its curves arrive;
every control is reached and used with the keyboard alone; a broken Function still
shows its message inside the widget.
"""

import pytest

from tests.ui.scratch_lab import (
    FINISHED,
    FOCUSED,
    INTERRUPT,
    OUTPUT_TEXT,
    RUN_CELL,
    alt,
    fixtures,
    tab_to,
    wait_for_words,
)
from tools.page_timing import key_to_picture

CELLS = [
    "from lessons_lib import RoundSTE, explore\nex = explore(RoundSTE)\nex",
    'import time\n\nprint("sleeping", flush=True)\ntime.sleep(60)',  # until interrupted
    "print(ex.point_slider.value, ex.range_slider.value, ex.scale_slider.value)",
    "import torch\n\nfrom lessons_lib import explore\n\n\n"
    "class Broken(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    '        raise ValueError("forgot to return")\n\n'
    "    @staticmethod\n"
    "    def backward(ctx, grad_out):\n"
    "        return grad_out\n\n\n"
    "explore(Broken)",
]


lab_and_link, opened_notebook, page, fresh_page = fixtures(CELLS, "ui-explorer")


def fresh_explorer(page):
    page.evaluate(RUN_CELL, [0, True])
    page.locator(".explorer-picture[data-revision]").wait_for()
    return page.locator(".lessons-explorer").first


def test_the_explorer_works_from_the_keyboard_alone(fresh_page):
    """From opening the notebook: run the cell, reach each control with Tab, use it."""
    page = fresh_page
    keys = page.keyboard
    keys.press("Shift+Enter")  # the first cell is selected on opening: run it
    page.locator(".explorer-picture[data-revision]").wait_for()
    keys.press("ArrowUp")  # back to the explorer's cell
    tab_to(page, "x", most=3)  # past the cell's own toolbar, to the explorer

    keys.press("ArrowRight")
    keys.press("ArrowRight")
    wait_for_words(page, "x = 0.425,", "forward = 0,", "RoundSTE's backward = 1,")

    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "x"  # the number box beside the slider
    assert page.evaluate("() => document.activeElement.type") == "number"
    keys.press("Control+A")
    keys.type("1.5")
    keys.press("Enter")
    wait_for_words(page, "x = 1.5,", "forward = 2,", "true gradient = 0;")

    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "x range, lower end"
    keys.press("ArrowLeft")
    wait_for_words(page, "over x from -2.55 to 2.5:")
    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "x range, upper end"
    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "x from"
    keys.press("Control+A")
    keys.type("-4")
    keys.press("Enter")
    wait_for_words(page, "over x from -4 to 2.5:")
    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "to"
    keys.press("Control+A")
    keys.type("4")
    keys.press("Enter")
    wait_for_words(page, "over x from -4 to 4:")

    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "grad_out scale"
    keys.press("ArrowRight")
    wait_for_words(page, "grad_out = 1.1:", "RoundSTE's backward = 1.1,")
    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "grad_out"
    keys.press("Control+A")
    keys.type("-2")
    keys.press("Enter")
    wait_for_words(page, "grad_out = -2:", "RoundSTE's backward = -2,", "true gradient = 0;")
    assert page.locator(".explorer-picture").get_attribute("aria-busy") == "false"

    keys.press("Shift+Tab")
    keys.press("Shift+Tab")
    assert page.evaluate(FOCUSED) == "to"  # and back again
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCellIndex") == 0


def test_a_point_move_is_drawn_at_once_even_while_the_kernel_is_busy(page):
    explorer = fresh_explorer(page)
    picture, handle = explorer.locator(".explorer-picture"), explorer.locator(".noUi-handle").first
    page.evaluate(RUN_CELL, [1, False])  # time.sleep(60): the kernel answers nothing
    page.wait_for_function(f"({OUTPUT_TEXT})(1).includes('sleeping')")  # the sleep has begun
    times = [key_to_picture(handle, picture, "ArrowRight", "data-x", 3000) for _ in range(3)]
    assert not page.evaluate(FINISHED, 1), "the sleep ended too soon to prove anything"
    # The kernel sleeps throughout, so each change was drawn by the page alone (how fast:
    # benchmarks/explorer_latency.py, not a timed test).
    assert None not in times, f"the picture waited for the kernel: {times}"
    # Three steps of 5/400 from 0.4: forward round(0.4375) = 0, backward 1, truth 0.
    said = alt(page)
    for words in ["x = 0.4375", "forward = 0,", "RoundSTE's backward = 1,", "true gradient = 0;"]:
        assert words in said
    assert "disagree here" in said
    assert "0.4375" in explorer.locator(".explorer-readout").inner_text()
    page.evaluate(INTERRUPT)  # proven: no need to sit out the rest of the sleep
    # The kernel learns the point once it is free: it reads the value the picture shows.
    page.wait_for_function(FINISHED, arg=1, timeout=15_000)
    page.evaluate(RUN_CELL, [2, True])
    kernel_x = float(page.evaluate(OUTPUT_TEXT, 2).split()[0])
    assert kernel_x == pytest.approx(float(picture.get_attribute("data-x")), abs=1e-12)


def test_a_range_change_says_updating_until_its_curves_arrive(page):
    explorer = fresh_explorer(page)
    picture = explorer.locator(".explorer-picture")
    revision = int(picture.get_attribute("data-revision"))
    busy_at_once = page.evaluate(
        """(explorer) => {
          const upper = explorer.querySelectorAll('.explorer-range .noUi-handle')[1];
          upper.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
          const picture = explorer.querySelector('.explorer-picture');
          const badge = picture.querySelector('.explorer-badge');
          return [picture.getAttribute('aria-busy'), badge.hidden, badge.textContent];
        }""",
        explorer.element_handle(),
    )
    assert busy_at_once == ["true", False, "updating…"]  # in the same task as the key event
    page.wait_for_function(
        "([picture, old]) => Number(picture.dataset.revision) > old",
        arg=[picture.element_handle(), revision],
    )
    assert picture.get_attribute("aria-busy") == "false"
    assert "over x from -2.5 to 2.55:" in alt(page)
    assert explorer.locator(".explorer-badge").is_hidden()
    assert explorer.get_by_role("spinbutton", name="to", exact=True).input_value() == "2.55"


def test_every_control_has_a_name_a_screen_reader_can_say(page):
    explorer = fresh_explorer(page)
    for name in ["x", "x range, lower end", "x range, upper end", "grad_out scale"]:
        assert explorer.get_by_role("slider", name=name, exact=True).count() == 1
    for name in ["x", "x from", "to", "grad_out"]:
        assert explorer.get_by_role("spinbutton", name=name, exact=True).count() == 1
    assert (
        explorer.get_by_role("img")
        .get_attribute("aria-label")
        .startswith("Gradient explorer for RoundSTE")
    )


def test_a_broken_function_shows_its_message_in_the_widget_and_the_sliders_still_work(page):
    page.evaluate(RUN_CELL, [3, True])
    explorer = page.locator(".lessons-explorer").first
    explorer.locator(".explorer-picture[data-revision]").wait_for()
    assert (
        "forward raised ValueError: forgot to return"
        in explorer.locator(".explorer-error").inner_text()
    )
    picture = explorer.locator(".explorer-picture")
    handle = explorer.locator(".explorer-point .noUi-handle")
    assert key_to_picture(handle, picture, "ArrowLeft", "data-x") is not None
    assert "forward = —" in picture.get_attribute("aria-label")
    assert page.get_by_text("Error displaying widget").count() == 0
