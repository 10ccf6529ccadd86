"""surrogate_gradients: each bump is the exact derivative of its smoothed step, of area 1."""

import pytest
import torch
from torch.autograd import gradcheck

from lessons_lib import check_function
from lessons_lib.surrogate_gradients import (
    SHAPES,
    TrueStep,
    make_spike,
    smoothed_step,
    step,
    surrogate_slope,
)

F64 = torch.float64


def away_from_corners(threshold: float, width: float) -> torch.Tensor:
    """Points where every smoothed step is smooth: not at the clipped window's edges."""
    u = torch.tensor([-3.0, -1.7, -0.6, -0.2, 0.3, 0.55, 1.4, 2.5], dtype=F64)
    return (threshold + width * u).requires_grad_()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("threshold", "width"), [(0.0, 1.0), (1.0, 0.25), (-0.5, 3.0)])
def test_the_slope_is_the_exact_derivative_of_the_smoothed_step(shape, threshold, width):
    x = away_from_corners(threshold, width)
    (derivative,) = torch.autograd.grad(smoothed_step(x, shape, threshold, width).sum(), x)
    torch.testing.assert_close(derivative, surrogate_slope(x.detach(), shape, threshold, width))


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "straight-through"])
@pytest.mark.parametrize("width", [0.1, 1.0, 4.0])
def test_every_bump_has_area_one_and_peaks_at_the_threshold(shape, width):
    x = torch.linspace(1.0 - 400 * width, 1.0 + 400 * width, 800_001, dtype=F64)
    slope = surrogate_slope(x, shape, threshold=1.0, width=width)
    area = torch.trapezoid(slope, x).item()
    assert area == pytest.approx(1.0, abs=3e-3)  # fast-sigmoid keeps 1/401 beyond 400 widths
    assert abs(x[slope.argmax()].item() - 1.0) <= width


@pytest.mark.parametrize("shape", SHAPES)
def test_a_spike_steps_forward_and_follows_its_surrogate_backward(shape):
    spike = make_spike(shape, threshold=0.5, width=0.25)
    x = torch.tensor([-1.0, 0.4, 0.5, 0.7, 2.0], dtype=F64, requires_grad=True)
    out = spike.apply(x)
    assert out.dtype == x.dtype and out.tolist() == [0.0, 0.0, 1.0, 1.0, 1.0]
    grad_out = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0], dtype=F64)
    (got,) = torch.autograd.grad(out, x, grad_out)
    torch.testing.assert_close(got, grad_out * surrogate_slope(x.detach(), shape, 0.5, 0.25))


@pytest.mark.parametrize("shape", SHAPES)
def test_the_doctor_passes_each_spike_against_its_declared_rule(shape):
    spike = make_spike(shape, threshold=0.5, width=0.25)
    report = check_function(
        spike,
        lambda x: step(x, 0.5),
        grad_reference=lambda x, g: g * surrogate_slope(x, shape, 0.5, 0.25),
    )
    assert report.ok and report.codes == [], str(report)


def test_the_true_step_passes_gradcheck_away_from_the_jump_and_gives_no_blame():
    x = torch.tensor([-2.0, -0.5, 0.5, 2.0], dtype=F64, requires_grad=True)
    assert gradcheck(TrueStep.apply, (x,))
    (got,) = torch.autograd.grad(TrueStep.apply(x).sum(), x)
    assert not got.any()


def test_a_wrong_shape_or_width_is_refused_by_name():
    with pytest.raises(ValueError, match="shape must be one of straight-through"):
        make_spike("gaussian")
    with pytest.raises(ValueError, match="width must be a positive number; got 0"):
        make_spike("sigmoid", width=0)
