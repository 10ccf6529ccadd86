"""drawing: the Agg figure both explorers share, its sizes and markers for the browser, its PNGs."""

import io

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from lessons_lib.display import PALETTE
from lessons_lib.explorers.drawing import (
    DPI,
    HEIGHT,
    WIDTH,
    BlitFigure,
    blank_figure,
    encode_png,
    moving_markers,
    point_line,
    style,
)
from lessons_lib.explorers.gradient.drawing import MARKERS
from tests.pictures import green_pixels


def test_style_gives_the_browser_the_markers_and_line_in_pixels():
    s = style(MARKERS)
    assert (s["width"], s["height"]) == (WIDTH, HEIGHT)
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

    def __init__(self) -> None:
        figure, canvas = blank_figure(left=0.1, right=0.9)
        ax = figure.subplots()
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        artists = moving_markers((ax,), {"dot": (0, PALETTE["blue"], "o", 10)})
        artists["line"] = point_line(ax, 0.5)
        super().__init__(figure, canvas, artists)

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

    with pytest.raises(TypeError, match="draw_point"):
        Half(Figure(), None, {})


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
