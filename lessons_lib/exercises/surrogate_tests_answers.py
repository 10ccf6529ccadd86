"""The course's answer to "Choose your surrogate", Part 2: tests a surrogate spike must pass."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_lib import check_function
from lessons_lib.surrogate_gradients import surrogate_slope


def reference_surrogate_tests(spike: type[torch.autograd.Function]) -> None:
    """Raise AssertionError if `spike` (applied as spike.apply(x, 1.0, 0.5)) is wrong."""

    def fires(x, threshold, width):  # the reference forward: the step, in x's dtype
        return (x >= threshold).to(x.dtype)

    def rule(x, threshold, width, grad_out):  # the declared backward: None for the numbers
        return grad_out * surrogate_slope(x, "fast-sigmoid", threshold, width), None, None

    # 1. The doctor holds backward to the declared rule (and checks dtype and grad_out).
    x = torch.tensor([-1.0, 0.5, 0.9, 1.0, 1.2, 3.0], dtype=torch.float64)
    report = check_function(spike, fires, grad_reference=rule, inputs=(x, 1.0, 0.5))
    assert report.ok, str(report)

    # 2. A property: the gradient is linear in grad_out and highest at the threshold, 1.
    @settings(max_examples=100, deadline=None)
    @given(st.floats(-10, 10), st.floats(-100, 100))
    def linear_and_peaks_at_threshold(point: float, c: float) -> None:
        x = torch.tensor([point, 1.0], dtype=torch.float64, requires_grad=True)
        (bump,) = torch.autograd.grad(spike.apply(x, 1.0, 0.5), x, torch.ones(2).double())
        (scaled,) = torch.autograd.grad(spike.apply(x, 1.0, 0.5), x, torch.full((2,), c).double())
        assert torch.allclose(scaled, c * bump), f"not linear in grad_out at x={point:g}"
        assert bump[1] >= bump[0], f"the bump is higher at x={point:g} than at the threshold"

    linear_and_peaks_at_threshold()
