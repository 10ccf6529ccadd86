"""training/drawing: one panel per shape, a line per width and the true gradient in each."""

import io

import numpy as np
import pytest
from matplotlib.text import Text
from PIL import Image

from lessons_lib.explorers.drawing import HEIGHT, PIXELS_PER_POINT, WIDTH
from lessons_lib.explorers.training import drawing
from lessons_lib.explorers.training.runs import train_all


def test_the_picture_is_a_png_of_the_explorers_size():
    runs = train_all(["sigmoid"], [0.5], 5)
    png = drawing.draw_runs(runs, ["sigmoid"], [0.5])
    assert Image.open(io.BytesIO(png)).size == (WIDTH, HEIGHT)


def test_at_ratio_two_it_has_twice_the_pixels_each_way():
    runs = train_all(["sigmoid"], [0.5], 5)
    png = drawing.draw_runs(runs, ["sigmoid"], [0.5], ratio=2)
    assert Image.open(io.BytesIO(png)).size == (2 * WIDTH, 2 * HEIGHT)


def test_its_smallest_text_is_text_px_of_the_full_size_picture(monkeypatch):
    """What the projector test (tests/ui/test_explorers_fit.py) scales to the shown width."""
    figures = []
    real = drawing.FigureCanvasAgg
    monkeypatch.setattr(drawing, "FigureCanvasAgg", lambda f: figures.append(f) or real(f))
    runs = train_all(["triangle", "sigmoid"], [0.5, 2.0], 5)
    drawing.draw_runs(runs, ["triangle", "sigmoid"], [0.5, 2.0])
    sizes = [
        text.get_fontsize() * PIXELS_PER_POINT
        for text in figures[0].findobj(Text)
        if text.get_visible() and text.get_text().strip()
    ]
    assert min(sizes) == pytest.approx(drawing.TEXT_PX)


def test_each_shape_gets_a_panel_with_each_width_and_the_flat_true_gradient(monkeypatch):
    figures = []
    real = drawing.FigureCanvasAgg
    monkeypatch.setattr(drawing, "FigureCanvasAgg", lambda f: figures.append(f) or real(f))
    shapes, widths = ["triangle", "sigmoid", "arctan", "clipped"], [0.01, 0.5]
    runs = train_all(shapes, widths, 20)
    drawing.draw_runs(runs, shapes, widths)
    panels = [ax for ax in figures[0].axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == shapes
    for ax in panels:
        truth, *lines = [line for line in ax.get_lines() if len(line.get_xdata()) == 21]
        assert len(lines) == len(widths)
        assert len(set(np.asarray(truth.get_ydata()))) == 1  # flat: nothing moves


def test_each_widths_line_is_thinner_than_the_one_drawn_before_it():
    assert drawing.line_widths(3) == [5.0, 3.5, 2.0] and drawing.line_widths(1) == [2.0]
