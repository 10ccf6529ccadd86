"""drawing: the Agg figure both explorers share, its sizes and markers for the browser, its PNGs."""

import io

import numpy as np
import pytest
from PIL import Image

from lessons_lib.display import PALETTE
from lessons_lib.explorers.drawing import (
    DPI,
    HEIGHT,
    MIN_HEIGHT,
    MIN_WIDTH,
    POINT_LINE,
    RATIOS,
    WIDTH,
    BlitFigure,
    Size,
    blank_figure,
    encode_png,
    moving_markers,
    point_line,
    style,
)
from lessons_lib.explorers.gradient.drawing import MARKERS
from tests.pictures import green_pixels, pixels


def test_style_gives_the_browser_the_markers_and_line_in_pixels():
    s = style(MARKERS)
    assert (s["max_width"], s["min_width"], s["aspect"]) == (WIDTH, MIN_WIDTH, WIDTH / HEIGHT)
    assert s["min_height"] == MIN_HEIGHT
    assert s["markers"]["forward"] == {
        "panel": 0,
        "colour": PALETTE["blue"],
        "shape": "circle",
        "size": 11 * DPI / 72,
    }
    assert s["markers"]["true"]["shape"] == "diamond" and s["line"]["width"] == 1.5 * DPI / 72


def test_png_encoder_round_trips_every_pixel():
    rgba = np.random.default_rng(0).integers(0, 256, (7, 5, 4), dtype=np.uint8)
    decoded = np.asarray(Image.open(io.BytesIO(encode_png(rgba, 1))).convert("RGB"))
    np.testing.assert_array_equal(decoded, rgba[:, :, :3])


class OneDot(BlitFigure):
    """The smallest explorer drawing: one panel, one moving marker and the point's line."""

    def build(self, size: Size) -> tuple:
        figure, canvas = blank_figure(size, left=50, right=20, top=10, bottom=40)
        ax = figure.subplots()
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.tick_params(labelsize=9)  # points: 12 CSS px
        artists = moving_markers((ax,), {"dot": (0, PALETTE["blue"], "o", 10)})
        artists["line"] = point_line(ax, 0.5)
        return figure, canvas, artists

    def draw_curves(self, curves: object) -> None:
        self.redraw_panels()

    def draw_point(self, point: dict[str, float]) -> None:
        self.artists["line"].set_xdata([point["x"]] * 2)
        self.artists["dot_marker"].set_data([point["x"]], [point["dot"]])
        self.blit(["line", "dot_marker"])


def test_a_drawing_must_say_how_it_draws_curves_and_a_point():
    class Half(BlitFigure):
        def draw_curves(self, curves: object) -> None:
            pass

    with pytest.raises(TypeError, match="build"):
        Half()


def test_the_moving_parts_are_named_animated_and_only_blitted():
    drawing = OneDot()
    assert {a.get_gid() for a in drawing.artists.values()} == {"dot_marker", "line"}
    assert all(a.get_animated() for a in drawing.artists.values())
    drawing.draw_curves(None)
    background = drawing.background_png()
    drawing.draw_point({"x": 0.25, "dot": 0.5})
    assert green_pixels(background) == 0 and green_pixels(drawing.png()) > 100
    assert drawing.background_png() == background  # blitting leaves the background alone
    assert Image.open(io.BytesIO(background)).size == (WIDTH, HEIGHT)


def test_a_size_asked_by_the_page_is_brought_within_what_is_drawn_and_nonsense_refused():
    assert Size.asked({"width": 802.4, "height": 501, "ratio": 2}) == Size(802, 501, 2.0)
    assert Size.asked({"width": 5000, "height": 5000, "ratio": 9}) == Size(WIDTH, HEIGHT, RATIOS[1])
    assert Size.asked({"width": 10, "height": 10, "ratio": 0.01}) == Size(
        MIN_WIDTH, MIN_HEIGHT, RATIOS[0]
    )
    for nonsense in [{}, {"width": "wide", "height": 1, "ratio": 1}, {"width": None}]:
        assert Size.asked(nonsense) is None
    assert Size.asked({"width": float("nan"), "height": 500, "ratio": 1}) is None
    assert Size.asked({"width": 800, "height": 500, "ratio": -1}) is None


def test_a_size_has_as_many_pixels_as_the_browser_gives_its_canvas():
    """Math.round, not Python's round half to even: 802.5 device pixels make 803."""
    assert Size(802, 501, 2).pixels == (1604, 1002)
    assert Size(642, 401, 1.25).pixels == (803, 501)  # 802.5 and 501.25


@pytest.mark.parametrize(
    "size", [Size(), Size(700, 438, 1.0), Size(700, 438, 2.0), Size(642, 401, 1.25)]
)
def test_a_drawing_has_one_pixel_per_device_pixel_and_says_where_in_css_pixels(size):
    drawing = OneDot(size)
    drawing.draw_curves(None)
    assert Image.open(io.BytesIO(drawing.background_png())).size == size.pixels
    (panel,) = drawing.panels()
    # The margins were asked for in CSS px: so the panel's box is, at any ratio.
    assert panel["box"] == pytest.approx(
        [50, 10, size.width - 70, size.height - 50], abs=1 / size.ratio
    )
    assert drawing.smallest_font() == pytest.approx(12)


def green_columns(png: bytes) -> np.ndarray:
    """The columns of the picture where the point's line shows."""
    green = np.array([int(POINT_LINE[0][i : i + 2], 16) for i in (1, 3, 5)])
    close = np.abs(pixels(png).astype(int) - green).sum(axis=2) < 30
    return np.flatnonzero(close.sum(axis=0) > 10)


def test_resizing_draws_the_same_picture_with_more_pixels():
    drawing = OneDot()
    drawing.resize(Size(WIDTH, HEIGHT, 2.0))
    drawing.draw_curves(None)
    drawing.draw_point({"x": 0.25, "dot": 0.5})
    sharp = drawing.png()
    assert pixels(sharp).shape == (2 * HEIGHT, 2 * WIDTH, 3)
    assert drawing.artists["line"].get_gid() == "line"  # the new artists are named too
    drawing.resize(Size())
    drawing.draw_curves(None)
    drawing.draw_point({"x": 0.25, "dot": 0.5})
    # The point's line lands on the same CSS pixels, with twice as many device pixels there.
    x = 50 + 0.25 * (WIDTH - 70)
    assert green_columns(drawing.png()).mean() == pytest.approx(x, abs=1)
    assert green_columns(sharp).mean() / 2 == pytest.approx(x, abs=1)
    assert green_columns(sharp).size == 2 * green_columns(drawing.png()).size
