"""The surrogates' picture: one panel per shape, each drawing the bump its shape computes."""

import numpy as np
import pytest
import torch

from lessons_lib.surrogate_gradients import SHAPES, surrogate_slope
from lessons_lib.surrogate_pictures import draw_surrogates, surrogates_picture


@pytest.fixture(scope="module")
def figure():
    return draw_surrogates(width=0.5, threshold=1.0)


def test_one_panel_per_shape_titled_with_its_name(figure):
    assert [ax.get_title() for ax in figure.axes] == list(SHAPES)


@pytest.mark.parametrize("shape", SHAPES)
def test_each_panel_draws_its_own_bump_and_the_step(figure, shape):
    ax = next(a for a in figure.axes if a.get_title() == shape)
    lines = {line.get_label(): line for line in ax.get_lines()}
    x, drawn = lines["surrogate (backward)"].get_data()
    want = surrogate_slope(torch.as_tensor(np.asarray(x)), shape, 1.0, 0.5)
    assert np.allclose(drawn, want.numpy())
    _, forward = lines["the step (forward)"].get_data()
    assert np.array_equal(np.asarray(forward), (np.asarray(x) >= 1.0).astype(float))
    assert ("smoothed step" in lines) is (shape != "straight-through")


def test_a_narrower_bump_is_drawn_taller(figure):
    narrow = draw_surrogates(width=0.25, threshold=1.0)
    peak = [
        max(line.get_data()[1])
        for f in (figure, narrow)
        for line in f.axes[3].get_lines()
        if line.get_label() == "surrogate (backward)"
    ]
    assert peak[1] == pytest.approx(2 * peak[0])


def test_the_figure_renders(figure):
    figure.canvas.draw()
    assert figure.canvas.buffer_rgba() is not None


def test_the_picture_a_notebook_shows_is_a_png():
    png = surrogates_picture(width=0.5).data
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
