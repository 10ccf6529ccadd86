"""The gradient doctor on styles of Function that projects write and the course's own do not:
a spiking step in float32, the legacy non-static form, frozen inputs, low precision."""

import torch
from torch.autograd import Function

from lessons_lib.doctor.examination import check_function
from tests.doctor_catalogue import PAIR, broadcast_mul_backward, mul_forward, swapped_needs_backward
from tests.learner_functions import function


def fast_sigmoid_slope(x, grad_out):
    """A spiking network's surrogate: the slope of x / (1 + 10|x|), times grad_out."""
    return grad_out / (1 + 10 * x.abs()) ** 2


class SpikeFloat32(Function):
    """A neuron's step as much spiking code writes it, (x > 0).float(), with a declared
    surrogate gradient that backward follows exactly."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x > 0).float()

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return fast_sigmoid_slope(x, grad_out)


def test_a_float32_step_with_its_declared_surrogate_is_one_dtype_finding_not_a_wrong_gradient():
    for reference in (lambda x: (x > 0).double(), lambda x: (x > 0).float()):
        report = check_function(SpikeFloat32, reference, grad_reference=fast_sigmoid_slope)
        assert report.codes == ["output-dtype"], str(report)
        text = str(report)
        assert "forward's output is torch.float32, from torch.float64 inputs." in text
        assert "(x > 0).to(x.dtype)" in text


def test_double_backward_of_a_declared_surrogate_is_checked_with_its_grad_out():
    class Spike(SpikeFloat32):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (x > 0).to(x.dtype)

    report = check_function(Spike, lambda x: (x > 0).double(), grad_reference=fast_sigmoid_slope)
    assert report.ok, str(report)
    assert not any("could not be differentiated" in note for note in report.notes), report.notes
    assert "double backward gives the reference's second derivatives" in str(report)


class LegacyScale(Function):
    """The pre-1.3 style: state set in __init__, forward and backward plain methods."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, x):
        return x * self.lambd

    def backward(self, grad_out):
        return grad_out * self.lambd


def test_a_legacy_function_is_told_why_its_state_is_missing_and_how_to_move_it_to_ctx():
    report = check_function(LegacyScale, lambda x: x * 0.5)
    assert report.codes == ["error"]
    text = str(report)
    assert "forward is not a @staticmethod, so its first parameter, self, is autograd's ctx" in text
    assert "apply never runs __init__, so self.lambd was never set" in text
    assert "(ctx.lambd = lambd)" in text and "Read the message above" not in text


def test_a_static_forward_missing_an_attribute_gets_no_legacy_explanation():
    class ForgotToSet(Function):
        @staticmethod
        def forward(ctx, x):
            return x * ctx.lambd

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out * 0.5

    text = str(check_function(ForgotToSet, lambda x: x * 0.5))
    assert "@staticmethod" not in text and "Read the message above" in text


def test_a_backward_reading_the_wrong_needs_input_grad_index_is_caught_with_a_frozen_input():
    right = function("Mul", mul_forward, broadcast_mul_backward)
    assert check_function(right, torch.mul, inputs=PAIR).ok
    report = check_function(
        function("SwappedNeeds", mul_forward, swapped_needs_backward), torch.mul, inputs=PAIR
    )
    assert report.codes == ["frozen-input"], str(report)
    text = str(report)
    assert (
        "With x alone requiring grad (w frozen, as a frozen weight is), backward gave no " in text
    )
    assert "ctx.needs_input_grad[i]" in text
