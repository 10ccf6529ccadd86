"""The step-size explorer in JupyterLab over a slow link: a step move never waits for the kernel.

The same scratch-notebook set-up as the gradient explorer's browser test: `make lab`,
Debian's Chromium, a 100 ms round trip. Moving h is drawn by the browser from the errors
it holds, even while the kernel sleeps; a typed h lands on the slider's nearest stop
(a quarter of a decade apart, every power of ten among them); moving x says "updating…" until the new V arrives; the
learner's own Function is explored, and a broken one shows its message in the widget.
"""

import pytest

from lessons_lib import Cube
from lessons_lib.explorers.steps.curves import measure
from lessons_lib.explorers.steps.explore import explore_steps
from tests.ui.scratch_lab import (
    FINISHED,
    FOCUSED,
    INTERRUPT,
    OUTPUT_TEXT,
    RUN_CELL,
    alt,
    fixtures,
    wait_for_words,
)
from tools.page_timing import key_to_picture

LEARNERS_OWN = (
    "import torch\n\nfrom lessons_lib.explorers.steps.explore import explore_steps\n\n\n"
    "class {name}(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        {forward}\n\n"
    "    @staticmethod\n"
    "    def backward(ctx, grad_out):\n"
    "        (x,) = ctx.saved_tensors\n"
    "        return grad_out * 3 * x * 2  # a typo: 3 * x ** 2 was meant\n\n\n"
    "explore_steps({name}, 3.0)"
)
CELLS = [
    "from lessons_lib import Cube\nfrom lessons_lib.explorers.steps.explore import explore_steps\n\n"
    "steps = explore_steps(Cube, 2.0)\nsteps",
    'import time\n\nprint("sleeping", flush=True)\ntime.sleep(60)',  # until interrupted
    "print(steps.step_slider.value, steps.x_slider.value)",
    LEARNERS_OWN.format(name="TypoCube", forward="ctx.save_for_backward(x)\n        return x**3"),
    LEARNERS_OWN.format(name="Broken", forward='raise ValueError("forgot to return")'),
]


lab_and_link, opened_notebook, page, fresh_page = fixtures(CELLS, "ui-steps")


def run(page, index):
    page.evaluate(RUN_CELL, [index, True])
    explorer = page.locator(".step-explorer").last
    explorer.locator(".explorer-picture[data-revision]").wait_for()
    return explorer


def off_by(errors):
    """The readout's words for each dtype's error, as the kernel would format them."""
    return [f"{key} off by {errors[key]:.4g}" for key in ("float32", "float64")]


def against(curves, key, where):
    """The readout's words for where h sits against a dtype's best step."""
    return f"{key}: h is {where} its best step, {curves.best[key]:.4g}"


CUBE_AT_2 = measure(explore_steps(Cube, 2.0).setup, 2.0)


def test_a_step_move_is_drawn_at_once_even_while_the_kernel_is_busy(page):
    explorer = run(page, 0)
    picture = explorer.locator(".explorer-picture")
    handle = explorer.locator(".explorer-point .noUi-handle").first
    page.evaluate(RUN_CELL, [1, False])  # time.sleep(60): the kernel answers nothing
    page.wait_for_function(f"({OUTPUT_TEXT})(1).includes('sleeping')")
    times = [key_to_picture(handle, picture, "ArrowLeft", "data-x", 3000) for _ in range(3)]
    assert not page.evaluate(FINISHED, 1), "the sleep ended too soon to prove anything"
    # The kernel sleeps throughout, so each change was drawn by the page alone (how fast:
    # benchmarks/explorer_latency.py, not a timed test).
    assert None not in times, f"the picture waited for the kernel: {times}"
    # Three stops down from 1e-4: h = 10 ** -4.75, errors read from the samples.
    said = alt(page)
    assert "At h = 1.778e-05:" in said
    for words in off_by(CUBE_AT_2.at(19)):
        assert words in said
    assert against(CUBE_AT_2, "float32", "smaller than") in said
    assert against(CUBE_AT_2, "float64", "at") in said
    page.evaluate(INTERRUPT)  # proven: no need to sit out the rest of the sleep
    page.wait_for_function(FINISHED, arg=1, timeout=15_000)
    page.evaluate(RUN_CELL, [2, True])
    kernel_h = float(page.evaluate(OUTPUT_TEXT, 2).split()[0])
    assert kernel_h == pytest.approx(float(picture.get_attribute("data-x")), rel=1e-12)


def test_a_typed_step_and_a_new_x_work_from_the_keyboard_alone(page):
    explorer = run(page, 0)
    keys = page.keyboard
    explorer.get_by_role("slider", name="step h", exact=True).focus()
    keys.press("ArrowRight")
    wait_for_words(page, "At h = 0.0001778:", *off_by(CUBE_AT_2.at(15)))
    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "h"
    keys.press("Control+A")
    keys.type("0.01")
    keys.press("Enter")
    wait_for_words(page, "At h = 0.01:", *off_by(CUBE_AT_2.at(8)))
    keys.press("Control+A")
    keys.type("0.003")
    keys.press("Enter")  # between two stops: the slider takes the nearest, 10 ** -2.5
    wait_for_words(page, "At h = 0.003162:", *off_by(CUBE_AT_2.at(10)))

    picture = explorer.locator(".explorer-picture")
    revision = int(picture.get_attribute("data-revision"))
    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "point x"
    keys.press("ArrowRight")  # a new point: new errors, which only the kernel can measure
    page.wait_for_function(
        "([picture, old]) => Number(picture.dataset.revision) > old",
        arg=[picture.element_handle(), revision],
    )
    assert picture.get_attribute("aria-busy") == "false"
    assert "Step-size explorer for Cube at x = 2.05:" in alt(page)
    keys.press("Tab")
    assert page.evaluate(FOCUSED) == "x"
    keys.press("Control+A")
    keys.type("1")
    keys.press("Enter")
    at_1 = measure(explore_steps(Cube, 1.0).setup, 1.0)
    wait_for_words(page, "Cube at x = 1:", against(at_1, "float32", "smaller than"))


def test_the_learners_own_function_a_wrong_backward_is_a_floor(page):
    explorer = run(page, 3)
    # The widget says why the floor is there, above the sliders.
    assert "such as a wrong backward" in explorer.locator(".explorer-error").inner_text()
    # At h = 1e-4 the difference is 27 to 8 digits; TypoCube's backward says 18.
    said = explorer.locator(".explorer-picture").get_attribute("aria-label")
    assert said.startswith("Step-size explorer for TypoCube at x = 3:")
    assert "float64 off by 9;" in said


def test_a_broken_function_shows_its_message_and_the_slider_still_moves(page):
    explorer = run(page, 4)
    assert (
        "Broken's forward raised ValueError: forgot to return"
        in explorer.locator(".explorer-error").inner_text()
    )
    picture = explorer.locator(".explorer-picture")
    handle = explorer.locator(".explorer-point .noUi-handle")
    assert key_to_picture(handle, picture, "ArrowLeft", "data-x") is not None
    assert "float32 off by —" in picture.get_attribute("aria-label")
    assert page.get_by_text("Error displaying widget").count() == 0


def test_every_control_has_a_name_a_screen_reader_can_say(page):
    explorer = run(page, 0)
    for name in ["step h", "point x"]:
        assert explorer.get_by_role("slider", name=name, exact=True).count() == 1
    for name in ["h", "x"]:
        assert explorer.get_by_role("spinbutton", name=name, exact=True).count() == 1
    label = explorer.get_by_role("img").get_attribute("aria-label")
    assert label.startswith("Step-size explorer for Cube at x = 2:")
