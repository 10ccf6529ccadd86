"""fit: plain gradient descent on one weight, steered only by the step's backward rule."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons_lib import Cube, RoundSTE
from lessons_lib.training import Fitted, fit


def test_fit_reaches_the_target_through_a_correct_backward():
    """Cube's backward agrees with autograd of x**3: both land on the cube root of -8."""
    custom = fit(Cube.apply, -1.0, -8.0, lr=0.002, steps=300)
    builtin = fit(lambda w: w**3, -1.0, -8.0, lr=0.002, steps=300)
    assert custom == pytest.approx((-2.0, 0.0), abs=1e-4)
    assert custom == pytest.approx(builtin)


def test_true_gradient_of_rounding_freezes_the_weight():
    """torch.round's gradient is zero, so the weight never moves and the loss stays."""
    assert fit(torch.round, 0.3, 2.0, lr=0.1, steps=20) == pytest.approx((0.3, 4.0))


def test_straight_through_rounding_trains_the_weight():
    """RoundSTE's surrogate gradient moves the weight until the rounded value hits the target."""
    fitted = fit(RoundSTE.apply, 0.3, 2.0, lr=0.1, steps=20)
    assert torch.round(torch.tensor(fitted.weight)).item() == 2.0
    assert fitted.loss == 0.0


@given(
    start=st.floats(-3, 3, allow_nan=False),
    target=st.floats(-3, 3, allow_nan=False),
    steps=st.integers(0, 5),
)
def test_fit_matches_hand_written_gradient_descent(start, target, steps):
    """Each step is w -= lr * 2 (w - target) for the identity step, in float32."""
    w = torch.tensor(start, dtype=torch.float32)
    for _ in range(steps):
        w = w - 0.1 * 2 * (w - target)
    fitted = fit(lambda v: v, start, target, lr=0.1, steps=steps)
    assert isinstance(fitted, Fitted)
    assert fitted.weight == pytest.approx(w.item(), rel=1e-5, abs=1e-5)
    assert fitted.loss == pytest.approx((w.item() - target) ** 2, rel=1e-4, abs=1e-5)


def test_fit_zero_steps_reports_the_start():
    """With no steps the weight is the start and the loss is measured there."""
    assert fit(lambda v: v * 2, 1.5, 1.0, lr=0.1, steps=0) == pytest.approx((1.5, 4.0))
