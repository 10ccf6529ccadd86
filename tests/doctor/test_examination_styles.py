"""The gradient doctor on styles of Function that projects write and the course's own do not:
a spiking step in float32, the legacy non-static form, frozen inputs, low precision."""

import torch
from torch.autograd import Function

from lessons_lib.doctor.examination import check_function
from tests.doctor_catalogue.correct import broadcast_mul_backward
from tests.doctor_catalogue.state import PAIR, mul_forward, swapped_needs_backward
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
        # grad_out came back in float32, which output-dtype explains; no finite difference
        assert "what a finite difference leaves" not in text


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


def elementwise(name: str, forward, backward):
    """A one-input Function: forward(x), backward(x, grad_out) from the saved x."""

    def saving(ctx, x):
        ctx.save_for_backward(x)
        return forward(x)

    return function(name, saving, lambda ctx, g: backward(ctx.saved_tensors[0], g))


def step(x):
    return (x > 0).to(x.dtype)


def step_at_one(x):
    return (x > 1).to(x.dtype)


def sigmoid_slope(x, g):
    return g * 4 * torch.sigmoid(4 * x) * (1 - torch.sigmoid(4 * x))


def fix_of(fn, reference) -> str:
    report = check_function(fn, reference)
    assert report.codes == ["gradient"], str(report)
    return report.findings[0].fix


def test_a_surrogate_without_grad_reference_is_named_by_its_shape_with_the_rule_to_declare():
    shapes = {
        "backward passes grad_out through unchanged: a straight-through estimator?": (
            elementwise("SignSTE", torch.sign, lambda x, g: g),
            torch.sign,
            "grad_reference=lambda x, grad_out: grad_out.",
        ),
        "backward passes grad_out back negated: a gradient reversal?": (
            elementwise("Reversal", torch.clone, lambda x, g: -g),
            torch.clone,
            "grad_reference=lambda x, grad_out: -grad_out.",
        ),
        "backward passes grad_out through where -1 <= x <= 1 (at the points tried)": (
            elementwise("ClippedSTE", torch.sign, lambda x, g: g * (x.abs() <= 1)),
            torch.sign,
            "grad_out * ((x >= -1) & (x <= 1))",
        ),
        "backward multiplies grad_out by a bump that peaks at x = 0 (at the points tried)": (
            elementwise("SigmoidSpike", step, sigmoid_slope),
            step,
            "grad_out * (your bump's formula)",
        ),
    }
    for says, (fn, reference, rule) in shapes.items():
        fix = fix_of(fn, reference)
        assert fix.startswith(says) and rule in fix and "Forward's step" not in fix, fix


def test_a_surrogate_bump_away_from_forwards_step_is_pointed_out():
    fix = fix_of(elementwise("FiresAtOne", step_at_one, sigmoid_slope), step_at_one)
    assert "peaks at x = 0 (at the points tried)" in fix
    assert "Forward's step is between x = 1 and 1.5, though" in fix


def test_a_wrong_derivative_of_no_known_shape_gets_only_the_slope_advice():
    fix = fix_of(elementwise("CubeSquare", lambda x: x**3, lambda x, g: g * x**2), lambda x: x**3)
    assert fix.startswith("Work out again the slope") and "?" not in fix


def test_a_backward_that_follows_neither_its_declared_rule_nor_the_truth_is_held_to_the_rule():
    clipped = elementwise("SignSTENoClip", torch.sign, lambda x, g: g)
    report = check_function(
        clipped, torch.sign, grad_reference=lambda x, g: g * (x.abs() <= 1).to(x.dtype)
    )
    assert report.codes == ["gradient"]
    finding = report.findings[0]
    assert "differs from grad_reference, the rule you declared" in finding.what
    assert finding.fix.startswith("Make backward return what grad_reference(*inputs, *grad_outs)")
    assert "slope of what forward computes" not in finding.fix


x = torch.tensor([2.0], dtype=torch.float64)  # the notebook's own x, read by mistake below


def test_a_backward_that_reads_the_notebooks_x_is_told_so_from_its_code():
    def reads_global(ctx, g):
        return g * 3 * x**2  # the global x, not the saved one

    fn = function("CubeGlobalX", lambda ctx, t: (ctx.save_for_backward(t), t**3)[1], reads_global)
    fix = fix_of(fn, lambda t: t**3)
    assert fix.startswith("backward reads x, a tensor from outside it (the notebook's own x)")
    assert "(x,) = ctx.saved_tensors" in fix


def test_every_report_says_the_dtype_it_computed_in_and_low_precision_is_no_false_alarm():
    from lessons_lib import Cube

    assert str(check_function(Cube, lambda t: t**3)).startswith(
        "Cube: no problems found (checked in float64)"
    )
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        inputs = (torch.tensor([-1.5, 0.5, 2.0, 3.0], dtype=dtype),)
        report = check_function(Cube, lambda t: t**3, inputs=inputs)
        assert report.ok, str(report)
        assert f"(checked in {str(dtype).removeprefix('torch.')})" in str(report)
        wrong = elementwise("CubeTwice", lambda t: t**3, lambda t, g: g * 6 * t**2)
        assert check_function(wrong, lambda t: t**3, inputs=inputs).codes == ["gradient"]


def test_points_skipped_for_an_overflowing_reference_are_not_called_outside_its_domain():
    exp = elementwise("Exp", torch.exp, lambda t, g: g * torch.exp(t))
    text = str(check_function(exp, torch.exp))
    assert "skipped where the reference itself gives inf or NaN" in text
    assert "outside the reference's domain skipped" not in text


class SoftsignSavedIntermediate(Function):
    """softsign x / (1 + |x|), its backward read from a value forward computed on the way."""

    @staticmethod
    def forward(ctx, x):
        denominator = 1 + x.abs()
        ctx.save_for_backward(denominator)
        return x / denominator

    @staticmethod
    def backward(ctx, grad_out):
        (denominator,) = ctx.saved_tensors
        return grad_out / denominator**2


def test_a_double_backward_broken_by_a_saved_intermediate_names_it_and_the_fix():
    report = check_function(SoftsignSavedIntermediate, lambda x: x / (1 + x.abs()))
    assert report.codes == ["double-backward"], str(report)
    fix = report.findings[0].fix
    assert fix.startswith("forward saved 1 tensor that is neither an input nor an output")
    assert "Recompute it in backward from the saved inputs" in fix
    stashed = next(
        f for f in check_function_wrong_double_backward().findings if f.code == "double-backward"
    )
    assert "neither an input nor an output" not in stashed.fix


def check_function_wrong_double_backward():
    """A backward that detaches: wrong double backward with nothing saved on the way."""

    def detached(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x.detach() ** 2

    fn = function("CubeDetached", lambda ctx, t: (ctx.save_for_backward(t), t**3)[1], detached)
    return check_function(fn, lambda t: t**3)
