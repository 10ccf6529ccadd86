"""surrogate_patterns: each right Function follows its rule, each mistake is the one it names."""

import pytest
import torch

from lessons_lib import check_function
from lessons_lib.surrogate_gradients import smoothed_step, step
from lessons_lib.surrogate_patterns import (
    WIDTH,
    ClippedGradSpike,
    FloatSpike,
    GradientReversal,
    LearnedStepQuantize,
    NumberThresholdGrad,
    OffCentreSpike,
    Spike,
    ThresholdSpike,
    lif_run,
    lsq_rule,
    spike_by_detach,
    spike_properties,
    spike_rule,
)

F64 = torch.float64
POINTS = torch.tensor([-2.0, 0.3, 0.8, 0.95, 1.05, 1.4, 3.0], dtype=F64)


def fires_at_one(x):
    return step(x, 1.0)


def smooth_gradient(x: torch.Tensor, grad_out: torch.Tensor, threshold=1.0) -> torch.Tensor:
    """The oracle: autograd's gradient of the smoothed step whose slope is the bump."""
    x = x.detach().requires_grad_()
    (grad,) = torch.autograd.grad(smoothed_step(x, "fast-sigmoid", threshold, WIDTH), x, grad_out)
    return grad


def test_spike_is_a_step_at_one_with_the_smoothed_steps_gradient():
    x = POINTS.clone().requires_grad_()
    grad_out = torch.linspace(0.5, 3.0, len(POINTS), dtype=F64)
    y = Spike.apply(x)
    (grad,) = torch.autograd.grad(y, x, grad_out)
    assert torch.equal(y, (POINTS >= 1).to(F64))
    torch.testing.assert_close(grad, smooth_gradient(POINTS, grad_out))
    torch.testing.assert_close(spike_rule(POINTS, grad_out), grad)


def test_the_doctor_passes_spike_against_its_rule():
    assert check_function(Spike, fires_at_one, grad_reference=spike_rule).codes == []


@pytest.mark.parametrize(
    ("mistake", "code"),
    [(OffCentreSpike, "gradient"), (FloatSpike, "output-dtype"), (ClippedGradSpike, "chain-rule")],
)
def test_each_mistake_is_named_by_the_doctor(mistake, code):
    report = check_function(mistake, fires_at_one, grad_reference=spike_rule)
    assert report.codes == [code], str(report)


def test_the_off_centre_bump_peaks_at_zero_and_the_right_one_at_one():
    x = torch.linspace(-1.0, 3.0, 401, dtype=F64, requires_grad=True)
    peaks = []
    for fn in (Spike, OffCentreSpike):
        (grad,) = torch.autograd.grad(fn.apply(x), x, torch.ones_like(x))
        peaks.append(round(x[grad.argmax()].item(), 6))
    assert peaks == [1.0, 0.0]


def test_float_spike_hands_backward_a_float32_grad_out():
    x = POINTS.clone().requires_grad_()
    seen = []
    y = FloatSpike.apply(x)
    y.register_hook(lambda g: seen.append(g.dtype))
    y.sum().backward()
    assert y.dtype == torch.float32 and seen == [torch.float32]


def test_the_clipped_backward_changes_under_loss_scaling_and_spike_does_not():
    x = torch.tensor([0.6, 0.9, 1.1, 1.4], requires_grad=True)
    weights = torch.tensor([0.5, -0.25, 0.75, -0.5])

    def unscaled(fn, scale):
        (grad,) = torch.autograd.grad((fn.apply(x) * weights).sum() * scale, x)
        return grad / scale

    assert torch.equal(unscaled(Spike, 1.0), unscaled(Spike, 1024.0))
    assert torch.equal(unscaled(ClippedGradSpike, 1.0), unscaled(Spike, 1.0))
    assert not torch.allclose(unscaled(ClippedGradSpike, 1024.0), unscaled(Spike, 1.0))


def number_rule(x, threshold, grad_out):
    return spike_rule(x, grad_out, threshold), None


def test_a_gradient_for_a_number_threshold_is_refused_and_named():
    report = check_function(
        NumberThresholdGrad,
        lambda x, t: (x >= t).to(x.dtype),
        grad_reference=number_rule,
        inputs=(POINTS, 1.0),
    )
    assert report.codes == ["non-tensor-grad"]
    with pytest.raises(RuntimeError, match="not a Variable"):
        NumberThresholdGrad.apply(POINTS.clone().requires_grad_(), 1.0).sum().backward()


@pytest.mark.parametrize("threshold", [1.0, torch.tensor(1.0, dtype=F64)])
def test_a_number_or_frozen_threshold_gets_none(threshold):
    x = POINTS.clone().requires_grad_()
    y = ThresholdSpike.apply(x, threshold)
    (grad,) = torch.autograd.grad(y.sum(), x)
    torch.testing.assert_close(grad, smooth_gradient(POINTS, torch.ones_like(POINTS)))
    assert y.grad_fn.needs_input_grad == (True, False)


@pytest.mark.parametrize(
    "threshold",
    [torch.linspace(0.5, 1.5, len(POINTS), dtype=F64), torch.tensor(1.2, dtype=F64)],
)
def test_a_learned_threshold_gets_the_smoothed_steps_gradient_summed_to_its_shape(threshold):
    x, t = POINTS.clone().requires_grad_(), threshold.clone().requires_grad_()
    grad_out = torch.linspace(0.5, 3.0, len(POINTS), dtype=F64)
    grads = torch.autograd.grad(ThresholdSpike.apply(x, t), (x, t), grad_out)
    x2, t2 = POINTS.clone().requires_grad_(), threshold.clone().requires_grad_()
    smooth = smoothed_step(x2 - t2, "fast-sigmoid", 0.0, WIDTH)
    expected = torch.autograd.grad(smooth, (x2, t2), grad_out)
    for got, want in zip(grads, expected, strict=True):
        torch.testing.assert_close(got, want)


def lsq_by_detach(x, s, lo, hi):
    """LSQ as autograd sees it with rounding straight-through: the oracle for both gradients."""
    v = torch.clamp(x / s, lo, hi)
    return (v + (torch.round(v) - v).detach()) * s


def test_lsq_gradients_match_autograd_with_straight_through_rounding():
    x = torch.tensor([-3.1, -1.3, -0.2, 0.4, 0.9, 1.2, 2.6], dtype=F64, requires_grad=True)
    s = torch.tensor(0.5, dtype=F64, requires_grad=True)
    grad_out = torch.linspace(-1.0, 2.0, 7, dtype=F64)
    got = torch.autograd.grad(LearnedStepQuantize.apply(x, s, -4, 3), (x, s), grad_out)
    want = torch.autograd.grad(lsq_by_detach(x, s, -4, 3), (x, s), grad_out)
    for a, b, c in zip(got, want, lsq_rule(x.detach(), s.detach(), -4, 3, grad_out), strict=True):
        torch.testing.assert_close(a, b)
        torch.testing.assert_close(c, b)
    assert torch.equal(
        LearnedStepQuantize.apply(x, s, -4, 3), torch.round(torch.clamp(x / s, -4, 3)) * s
    )


def test_lsq_agrees_with_pytorchs_learnable_fake_quantize_even_at_the_grids_ends():
    x = torch.tensor(
        [-4.0, -2.0, 0.3, 1.5, 3.5, 5.0], requires_grad=True
    )  # x / s: -8 and 7 are the ends
    s = torch.tensor([0.5], requires_grad=True)
    grad_out = torch.tensor([1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0])
    torch_q = torch._fake_quantize_learnable_per_tensor_affine(x, s, torch.zeros(1), -8, 7, 1.0)
    want = torch.autograd.grad(torch_q, (x, s), grad_out)
    got = torch.autograd.grad(LearnedStepQuantize.apply(x, s, -8, 7), (x, s), grad_out)
    for a, b in zip(got, want, strict=True):
        torch.testing.assert_close(a, b)
    assert got[0][0] == 1 and got[0][4] == 10000  # the ends pass grad_out straight through


def test_lsq_and_gradient_reversal_pass_the_doctor():
    x = torch.linspace(-3.0, 3.0, 13, dtype=F64)
    s = torch.tensor(0.5, dtype=F64)
    lsq = check_function(
        LearnedStepQuantize,
        lambda x, s, lo, hi: torch.round(torch.clamp(x / s, lo, hi)) * s,
        grad_reference=lsq_rule,
        inputs=(x, s, -4, 3),
    )
    grl = check_function(
        GradientReversal,
        lambda x, k: x.clone(),
        grad_reference=lambda x, k, g: (-k * g, None),
        inputs=(x, 0.5),
    )
    assert lsq.codes == [] and grl.codes == []


def test_gradient_reversal_is_the_identity_forwards_and_negates_backwards():
    x = POINTS.clone().requires_grad_()
    y = GradientReversal.apply(x, 0.5)
    (grad,) = torch.autograd.grad(y, x, torch.full_like(x, 2.0))
    assert torch.equal(y, POINTS) and y.data_ptr() != x.data_ptr()
    assert torch.equal(grad, torch.full_like(x, -1.0))


def test_the_neuron_leaks_fires_and_resets_by_subtraction():
    currents = torch.full((8, 1), 0.5, dtype=F64)
    membrane, expected = 0.0, []
    for _ in range(8):  # by hand: leak 0.8, add 0.5, fire at 1, lose 1
        membrane = 0.8 * membrane + 0.5
        expected.append(float(membrane >= 1))
        membrane -= expected[-1]
    assert lif_run(currents).flatten().tolist() == expected
    assert 2 <= sum(expected) < 8


def test_the_neuron_gets_the_same_gradient_through_the_detach_form():
    torch.manual_seed(0)
    currents = (torch.rand(8, 3, dtype=F64) * 0.9).requires_grad_()
    (a,) = torch.autograd.grad(lif_run(currents).sum(), currents)
    (b,) = torch.autograd.grad(lif_run(currents, spike=spike_by_detach).sum(), currents)
    torch.testing.assert_close(a, b)
    assert bool((a != 0).all())


def test_spike_by_detach_is_exactly_the_step_near_the_threshold():
    x = POINTS.clone().requires_grad_()
    y = spike_by_detach(x)
    (grad,) = torch.autograd.grad(y, x, torch.ones_like(x))
    assert torch.equal(y, (POINTS >= 1).to(F64))
    torch.testing.assert_close(grad, spike_rule(POINTS, torch.ones_like(POINTS)))


def test_the_property_test_passes_spike_and_names_each_broken_property():
    spike_properties(Spike, examples=50)
    with pytest.raises(AssertionError, match="higher at"):
        spike_properties(OffCentreSpike, examples=50)
    with pytest.raises(AssertionError, match="not linear in grad_out"):
        spike_properties(ClippedGradSpike, examples=50)
