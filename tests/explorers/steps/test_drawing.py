"""steps/drawing: the V drawn on log-log axes, the best steps in the legend, the step blitted."""

import numpy as np
import pytest

from lessons_lib import Cube, Square
from lessons_lib.explorers.drawing import HEIGHT, WIDTH, style
from lessons_lib.explorers.steps.drawing import MARKERS, StepPlot
from lessons_lib.explorers.steps.explore import explore_steps
from tests.explorers.gradient.test_drawing import texts_and_legends
from tests.pictures import DRAWING_SIZES, green_pixels, pixels


def legend_texts(ex):
    (ax,) = ex.plot.figure.axes
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_the_background_leaves_out_the_step_and_the_static_picture_has_it():
    ex = explore_steps(Cube, 2.0)
    background, full = ex.plot.background_png(), ex.png()
    assert green_pixels(background) == 0 and green_pixels(full) > 200  # the step's line
    assert pixels(background).shape == pixels(full).shape == (HEIGHT, WIDTH, 3)


def test_the_panel_says_where_a_step_and_an_error_land_on_its_log_axes():
    ex = explore_steps(Cube, 2.0)
    (ax,) = ex.plot.figure.axes
    (panel,) = ex.plot.panels()
    assert panel["scale"] == ["log", "log"]
    left, top, width, height = panel["box"]
    for h, error in [(1e-3, 1e-6), (1e-12, 2.0)]:
        px, py = ax.transData.transform((h, error))
        (x0, x1), (y0, y1) = np.log10(panel["x"]), np.log10(panel["y"])
        expected = (
            left + (np.log10(h) - x0) / (x1 - x0) * width,
            top + (y1 - np.log10(error)) / (y1 - y0) * height,
        )
        assert expected == pytest.approx((px, HEIGHT - py))


def test_the_legend_names_each_dtypes_best_step_the_rule_of_thumb_and_what_is_off_the_grid():
    texts = legend_texts(explore_steps(Cube, 2.0))
    assert "float32 best h ≈ 0.01" in texts and "float64 best h ≈ 2e-05" in texts
    square = legend_texts(explore_steps(Square, 2.0))  # f''' = 0: no truncation to balance
    assert (
        "float64 ε^(1/3) ≈ 6e-06\n(rule of thumb: f''' = 0: the\nmodel favours larger h)" in square
    )
    far = legend_texts(explore_steps(Cube, 1000.0, x_range=(-1000, 1000)))
    assert "float32 best h ≈ 6\n(off the grid)" in far


def test_the_y_axis_reaches_down_to_the_smallest_error():
    ex = explore_steps(Cube, 0.0)  # pure truncation: the error is h², down to 1e-30
    (ax,) = ex.plot.figure.axes
    smallest = min(e[e > 0].min() for e in ex.curves.errors.values())
    assert ax.get_ylim()[0] <= smallest


def test_moving_x_redraws_the_title_and_the_best_steps():
    ex = explore_steps(Cube, 2.0)
    (ax,) = ex.plot.figure.axes
    assert ax.get_title(loc="left") == "Cube at x = 2: Cube's backward says 12"
    ex.x_slider.value = 1.0
    assert ax.get_title(loc="left") == "Cube at x = 1: Cube's backward says 3"
    assert "float32 best h ≈ 0.006" in legend_texts(ex)


def test_the_browser_draws_circles_for_float32_and_squares_for_float64():
    markers = style(MARKERS)["markers"]
    assert markers["float32"]["shape"] == "circle" and markers["float64"]["shape"] == "square"
    assert markers["float32"]["panel"] == markers["float64"]["panel"] == 0


@pytest.mark.parametrize("size", DRAWING_SIZES, ids=str)
@pytest.mark.parametrize(
    "make",
    [
        lambda: explore_steps(Cube, 3.0),
        lambda: explore_steps(Square, 2.0),  # the rule of thumb, its reason wrapped
        lambda: explore_steps(Cube, 1000.0, x_range=(-1000, 1000)),  # a best step off the grid
    ],
)
def test_at_any_width_every_text_is_inside_the_picture_and_the_legend_beside_the_panel(make, size):
    ex = make()
    plot = StepPlot(ex.setup, size)
    plot.draw_curves(ex.curves)
    plot.png()
    renderer = plot.canvas.get_renderer()
    across, down = size.pixels
    (panel,) = [ax.get_window_extent() for ax in plot.figure.axes]
    for item in texts_and_legends(plot.figure):
        box = item.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= across and box.y0 >= 0 and box.y1 <= down, item
    (ax,) = plot.figure.axes
    for item in [ax.get_legend(), *plot.figure.texts]:  # the legend, the model's formula
        assert item.get_window_extent(renderer).x0 > panel.x1
    assert plot.smallest_font() >= 12
