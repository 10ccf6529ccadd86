"""surrogate/curves: the spike's forward and backward measured, the family's bump, the truth."""

import math

import numpy as np
import pytest
import torch
from torch.autograd import Function

from lessons_lib.explorers.surrogate.curves import (
    ROWS,
    Choice,
    jump_of,
    measure,
    measure_point,
    true_gradient,
)
from lessons_lib.surrogate_gradients import surrogate_slope

X = torch.linspace(-2, 2, 401, dtype=torch.float64)
CHOICE = Choice("fast-sigmoid", 0.0, 0.5)


class OwnSpike(Function):
    """A learner's spike: the step at 0.5, a triangle surrogate 1 wide."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x >= 0.5).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * (1 - (x - 0.5).abs()).clamp(min=0)


class BrokenSpike(Function):
    @staticmethod
    def forward(ctx, x):
        return (x >= 0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * undefined_slope  # noqa: F821 - the learner's mistake


class NoneSpike(Function):
    @staticmethod
    def forward(ctx, x):
        return (x >= 0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        return None


def test_the_courses_spike_steps_forwards_and_passes_its_bump_backwards():
    curves = measure(None, X, CHOICE)
    assert set(np.unique(curves.forward)) == {0.0, 1.0}
    expected = surrogate_slope(X, "fast-sigmoid", 0.0, 0.5).numpy()
    np.testing.assert_allclose(curves.backward, expected)
    np.testing.assert_allclose(curves.family, expected)
    assert curves.jump == 0.0 and curves.failure is None and curves.problems == []


def test_the_true_gradient_is_zero_everywhere_and_missing_only_at_the_jump():
    curves = measure(None, X, Choice("triangle", 0.5, 0.5))
    missing = np.flatnonzero(np.isnan(curves.true))
    assert [float(curves.x[i]) for i in missing] == pytest.approx([0.5])
    assert np.all(curves.true[~np.isnan(curves.true)] == 0)


@pytest.mark.parametrize("shape", ["triangle", "arctan"])
def test_picking_another_shape_changes_the_drawn_bump_and_the_courses_backward(shape):
    before, after = measure(None, X, CHOICE), measure(None, X, Choice(shape, 0.0, 0.5))
    assert not np.allclose(before.family, after.family)
    np.testing.assert_allclose(after.backward, surrogate_slope(X, shape, 0.0, 0.5).numpy())


def test_the_learners_own_spike_is_measured_and_the_family_drawn_beside_it():
    curves = measure(OwnSpike, X, CHOICE)
    np.testing.assert_allclose(curves.forward, (X >= 0.5).double().numpy())
    np.testing.assert_allclose(curves.backward, (1 - (X - 0.5).abs()).clamp(min=0).numpy())
    np.testing.assert_allclose(curves.family, surrogate_slope(X, *CHOICE.__dict__.values()))
    # where its own forward jumps (to a sample: the grid's 0.5 may round below it), not at 0
    assert curves.jump == pytest.approx(0.5, abs=0.011)
    assert curves.failure is None


def test_a_broken_backward_becomes_a_message_and_forward_still_draws():
    curves = measure(BrokenSpike, X, CHOICE)
    assert "BrokenSpike's backward" in curves.failure
    assert "undefined_slope" in curves.failure
    assert curves.forward is not None and curves.backward is None
    assert curves.family is not None  # the family's bump is still there to compare


def test_a_backward_returning_none_is_a_problem_in_words():
    curves = measure(NoneSpike, X, CHOICE)
    assert curves.backward is None
    assert any("returned None" in p for p in curves.problems)


def test_rows_are_the_samples_in_the_order_the_picture_reads_them():
    curves = measure(None, X, CHOICE)
    rows = curves.rows()
    assert len(rows) == len(ROWS) and all(r.shape == X.shape for r in rows)
    index = curves.index_of(0.25)
    assert curves.at(index)["backward"] == pytest.approx(0.5 / (1 + 0.5) ** 2 / 0.5)


def test_a_point_between_samples_is_measured_exactly():
    at = measure_point(None, 0.123, CHOICE, 0.0)
    slope = surrogate_slope(torch.tensor(0.123), "fast-sigmoid", 0.0, 0.5).item()
    assert at["backward"] == pytest.approx(slope) and at["true"] == 0.0
    assert math.isnan(measure_point(None, 0.0, CHOICE, 0.0)["true"])


def test_the_jump_is_found_where_forward_changes_or_falls_back_to_the_threshold():
    x = np.linspace(-1, 1, 5)
    assert jump_of(x, np.array([0, 0, 0, 1, 1.0]), 0.0) == 0.5
    assert jump_of(x, None, 0.25) == 0.25
    assert jump_of(x, np.zeros(5), 0.25) == 0.25
    assert np.isnan(true_gradient(x, 0.5)).sum() == 1
