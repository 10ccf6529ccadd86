"""gradient/drawing: the Agg figure draws the curves, blits the point, and says where it put them."""

import io
import itertools

import numpy as np
import pytest
import torch
from matplotlib.colors import to_hex
from matplotlib.text import Text
from PIL import Image

from lessons_lib import Cube, RoundSTE, SigmoidSpike, explore
from lessons_lib.display import PALETTE
from lessons_lib.explorers.drawing import HEIGHT, WIDTH, Size
from lessons_lib.explorers.gradient.drawing import MARKERS, Plot, limits
from tests.learner_functions import cube, function, save_and, saved
from tests.pictures import DRAWING_SIZES, green_pixels, pixels

CubeWrongPower = function("CubeWrongPower", save_and(cube), lambda ctx, g: g * 2 * saved(ctx) ** 2)


def artist(plot, gid):
    """The plot's artist named gid (forward, custom, true, disagree, *_marker, ...)."""
    return next(a for ax in plot.figure.axes for a in ax.get_children() if a.get_gid() == gid)


def curve(plot, gid):
    line = artist(plot, gid)
    return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)


def shaded(plot, x):
    """Which of the x values lie inside the shaded disagreement regions."""
    paths = artist(plot, "disagree").get_paths()
    spans = [(p.vertices[:, 0].min(), p.vertices[:, 0].max()) for p in paths]
    return np.array([any(lo <= v <= hi for lo, hi in spans) for v in x])


def test_the_lines_hold_the_curves_and_the_shading_marks_where_they_differ():
    ex = explore(RoundSTE)
    curves = ex.curves
    for key in ["forward", "reference", "custom", "true"]:
        x, y = curve(ex.plot, key)
        np.testing.assert_array_equal(x, curves.x)
        np.testing.assert_array_equal(y, getattr(curves, key))
    assert shaded(ex.plot, curves.x).all()
    assert not shaded(explore(Cube).plot, explore(Cube).curves.x).any()


def test_draw_point_blits_the_markers_and_line_at_exactly_the_given_values():
    plot = explore(Cube).plot
    plot.draw_point({"x": 1.25, "forward": 1.953125, "custom": 4.6875, "true": 4.6875})
    for key, value in [("forward", 1.953125), ("custom", 4.6875), ("true", 4.6875)]:
        line = artist(plot, f"{key}_marker")
        assert (line.get_xdata()[0], line.get_ydata()[0]) == (1.25, value)
    assert artist(plot, "vline_top").get_xdata()[0] == 1.25


def test_a_point_move_draws_no_panel_and_a_curve_change_redraws_each_panel_once(monkeypatch):
    ex = explore(Cube)
    draws = []
    for ax in ex.plot.figure.axes:
        original = ax.draw
        monkeypatch.setattr(ax, "draw", lambda r, ax=ax, f=original: draws.append(ax) or f(r))
    ex.point_slider.value = 0.7
    ex.png()  # even the static picture only blits the point
    assert draws == []
    ex.range_slider.value = (-1.0, 1.0)
    assert draws == ex.plot.figure.axes


def test_the_background_leaves_out_the_moving_parts_and_the_static_picture_has_them():
    ex = explore(Cube, x_range=(-2, 2), point=1.0)
    background, full = ex.plot.background_png(), ex.png()
    assert green_pixels(background) == 0 and green_pixels(full) > 200  # the point's line
    assert pixels(background).shape == pixels(full).shape == (HEIGHT, WIDTH, 3)


def test_panels_say_where_data_lands_in_pixels_so_the_browser_draws_over_the_right_spot():
    ex = explore(Cube, x_range=(-2, 2))
    for ax, panel in zip(ex.plot.figure.axes, ex.plot.panels(), strict=True):
        left, top, width, height = panel["box"]
        for x, y in [(-1.5, panel["y"][0] + 0.3), (0.7, panel["y"][1] - 0.1)]:
            px, py = ax.transData.transform((x, y))  # Agg: origin at the bottom left
            expected = (
                left + (x - panel["x"][0]) / (panel["x"][1] - panel["x"][0]) * width,
                top + (panel["y"][1] - y) / (panel["y"][1] - panel["y"][0]) * height,
            )
            assert expected == pytest.approx((px, HEIGHT - py))


def test_every_frame_has_the_same_size_so_the_page_does_not_jump():
    ex = explore(RoundSTE)
    sizes = {Image.open(io.BytesIO(ex.plot.background_png())).size}
    ex.point_slider.value = -1.1
    sizes.add(Image.open(io.BytesIO(ex.png())).size)
    ex.range_slider.value = (-10.0, 10.0)
    sizes.add(Image.open(io.BytesIO(ex.plot.background_png())).size)
    assert sizes == {(WIDTH, HEIGHT)}


def test_curves_sharing_a_panel_differ_by_line_style_width_or_marker_not_only_colour():
    """Readable in greyscale and with any colour-vision deficiency (Okabe-Ito palette)."""
    named = {"forward", "reference", "custom", "true"} | {f"{key}_marker" for key in MARKERS}
    for fn in [Cube, RoundSTE, CubeWrongPower]:
        plot = Plot(explore(fn).setup)
        for ax in plot.figure.axes:
            lines = [line for line in ax.get_lines() if line.get_gid() in named]
            looks = [(a.get_linestyle(), a.get_linewidth(), a.get_marker()) for a in lines]
            assert len(lines) >= 3
            for one, other in itertools.combinations(looks, 2):
                assert one != other
            for line in lines:
                assert to_hex(line.get_color()) in {c.lower() for c in PALETTE.values()}


def test_without_a_reference_the_truth_is_drawn_dotted():
    plot = explore(CubeWrongPower).plot
    assert artist(plot, "true").get_linestyle() == ":"
    assert "finite differences" in artist(plot, "true").get_label()
    assert artist(explore(Cube).plot, "true").get_linestyle() == "--"


def test_round_ste_caption_says_the_true_gradient_is_undefined_at_the_jumps():
    """The plotted truth is 0 everywhere, so the caption says what it hides."""
    notes = [t.get_text() for t in explore(RoundSTE).plot.figure.texts if t.get_gid() == "note"]
    assert len(notes) == 1
    assert "0 between the jumps, undefined at them" in " ".join(notes[0].split())
    explicit = explore(RoundSTE, torch.round).plot.figure.texts
    assert not [t for t in explicit if t.get_gid() == "note"]
    assert not [t for t in explore(Cube).plot.figure.texts if t.get_gid() == "note"]


def test_limits_ignore_a_lone_spike_and_keep_zero_when_asked():
    values = np.zeros(400)
    values[200] = 1e6
    assert limits(values)[1] < 1e3
    assert limits(np.array([2.0, 3.0]), include_zero=True)[0] < 0
    assert limits(None) == (-1.0, 1.0)


def texts_and_legends(figure):
    """Every piece of text drawn: tick labels in view, titles, notes, and each legend whole."""
    found = [*figure.texts, *figure.legends]
    for ax in figure.axes:
        found += [ax.title, ax._left_title, ax.xaxis.label, ax.yaxis.label, ax.get_legend()]
        for labels, (lo, hi), along in [
            (ax.get_xticklabels(), sorted(ax.get_xlim()), 0),
            (ax.get_yticklabels(), sorted(ax.get_ylim()), 1),
        ]:
            found += [t for t in labels if lo <= t.get_position()[along] <= hi]
    return [t for t in found if t is not None and (not isinstance(t, Text) or t.get_text())]


@pytest.mark.parametrize("size", DRAWING_SIZES, ids=str)
@pytest.mark.parametrize(
    "make",
    [
        lambda: explore(RoundSTE),  # a note under the legends
        lambda: explore(SigmoidSpike),
        lambda: explore(Cube, x_range=(-12, 12)),  # y ticks four digits wide
        lambda: explore(CubeWrongPower, lambda t: t**3),
    ],
)
def test_at_any_width_every_text_is_inside_the_picture_and_legible(make, size):
    ex = make()
    plot = Plot(ex.setup, size)
    plot.draw_curves(ex.curves)
    plot.png()
    renderer = plot.canvas.get_renderer()
    across, down = size.pixels
    panels = [ax.get_window_extent() for ax in plot.figure.axes]
    for item in texts_and_legends(plot.figure):
        box = item.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= across and box.y0 >= 0 and box.y1 <= down, item
    beside = plot.figure.legends + [t for t in plot.figure.texts if t.get_gid() == "note"]
    for box in [item.get_window_extent(renderer) for item in beside]:
        assert all(box.x0 > panel.x1 for panel in panels), "a legend over a panel"
    # Titles, x label, legends and note: none over another.
    boxes = [item.get_window_extent(renderer) for item in plot.figure.texts + plot.figure.legends]
    for one, other in itertools.combinations(boxes, 2):
        assert not one.overlaps(other), "texts over one another"
    assert plot.smallest_font() >= 12


def test_a_picture_has_the_same_layout_in_css_pixels_at_any_screen_density():
    ex = explore(RoundSTE)
    boxes = []
    for ratio in (1.0, 2.0):
        plot = Plot(ex.setup, Size(802, 501, ratio))
        plot.draw_curves(ex.curves)
        boxes.append([panel["box"] for panel in plot.panels()])
        assert Image.open(io.BytesIO(plot.background_png())).size == (802 * ratio, 501 * ratio)
    assert np.asarray(boxes[0]) == pytest.approx(np.asarray(boxes[1]), abs=1)
