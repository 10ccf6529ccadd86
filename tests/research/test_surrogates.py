"""research/surrogates: each noise against its smoothed step, each estimator against exact
expectations, the width grid against train_neuron, second derivatives against autograd."""

import math

import pytest
import torch

from lessons_lib.research import (
    ESTIMATORS,
    NOISY_SHAPES,
    averaged_step_slope,
    first_and_second,
    laplace_noise,
    laplace_slope,
    noise,
    slope_against_bump,
    slope_of_averaged_step,
    steps_to_loss,
    try_noise,
    unit_estimates,
    unit_exact_gradient,
)
from lessons_lib.running import InputError
from lessons_lib.surrogate_gradients import TrueStep, make_spike, smoothed_step, surrogate_slope

F64 = torch.float64


@pytest.mark.parametrize("shape", NOISY_SHAPES)
@pytest.mark.parametrize("width", [0.3, 1.0, 2.5])
def test_the_noise_is_distributed_as_the_smoothed_step(shape, width):
    # The fraction of draws below u is the distribution function, which is smoothed_step.
    draws = noise(shape, width, 200_000, torch.Generator().manual_seed(1))
    for u in [-1.3, -0.4, 0.0, 0.2, 0.9]:
        below = (draws <= u * width).to(F64).mean().item()
        expected = smoothed_step(torch.tensor(u * width, dtype=F64), shape, width=width).item()
        assert below == pytest.approx(expected, abs=0.005)  # about 4 standard errors


def test_noise_refuses_straight_through_which_is_no_density():
    with pytest.raises(ValueError, match="shape must be one of"):
        noise("straight-through", 1.0, 10, torch.Generator())


@pytest.mark.parametrize("shape", NOISY_SHAPES)
def test_the_averaged_step_has_the_surrogate_as_its_slope(shape):
    x = torch.tensor([-1.5, -0.6, 0.4, 1.2], dtype=F64)  # away from every corner and cusp
    estimate = averaged_step_slope(x, shape, width=1.0, samples=400_000, h=0.02)
    assert torch.allclose(estimate, surrogate_slope(x, shape, width=1.0), atol=0.02)


def test_the_averaged_step_slope_is_a_count_in_a_window():
    # With the same draws on both sides, shifting x by more than the noise's reach gives 0.
    far = averaged_step_slope(torch.tensor([5.0], dtype=F64), "clipped", width=1.0)
    assert far.item() == 0.0


@pytest.mark.parametrize("width", [0.4, 1.0, 3.0])
def test_the_laplace_bump_is_the_laplace_density_and_its_noise_is_laplace(width):
    x = torch.linspace(-4, 4, 81, dtype=F64)
    laplace = torch.distributions.Laplace(0.0, width)
    assert torch.allclose(laplace_slope(x, width), laplace.log_prob(x).exp())
    draws = laplace_noise(width, 200_000, torch.Generator().manual_seed(2))
    assert draws.dtype == F64 and draws.shape == (200_000,)
    for u in [-2.0, -0.5, 0.0, 0.3, 1.7]:
        below = (draws <= u * width).to(F64).mean().item()
        assert below == pytest.approx(laplace.cdf(torch.tensor(u * width)).item(), abs=0.005)


def test_the_laplace_noises_averaged_step_has_the_laplace_bump_as_its_slope_and_a_bell_has_not():
    x = torch.tensor([-1.5, -0.6, 0.0, 0.4, 1.2], dtype=F64)  # the notebook's points
    draws = laplace_noise(1.0, 1_000_000, torch.Generator().manual_seed(0))
    assert torch.allclose(slope_of_averaged_step(x, draws), laplace_slope(x), atol=0.025)
    bell = torch.randn(1_000_000, generator=torch.Generator().manual_seed(0), dtype=F64)
    assert not torch.allclose(slope_of_averaged_step(x, bell), laplace_slope(x), atol=0.025)


def test_slope_against_bump_prints_both_and_says_whether_they_agree():
    x = torch.tensor([-0.5, 0.0, 0.5], dtype=F64)
    draws = laplace_noise(1.0, 400_000, torch.Generator().manual_seed(0))
    right = slope_against_bump(x, draws, laplace_slope(x))
    assert right.splitlines()[-1] == "agree within 0.025: True"
    assert "the bump:           0.30,  0.50,  0.30" in right
    assert slope_against_bump(x, draws, 2 * laplace_slope(x)).endswith("False")


def test_slope_of_averaged_step_refuses_draws_that_are_not_a_1d_float_tensor():
    x = torch.tensor([0.0], dtype=F64)
    for wrong, said in [
        ([0.1, 0.2], "list"),
        (torch.ones(2, 2), "2-D"),
        (torch.ones(3, dtype=torch.long), "int64"),
    ]:
        with pytest.raises(TypeError, match=said):
            slope_of_averaged_step(x, wrong)


@pytest.mark.parametrize(("theta", "target"), [(1.0, 0.2), (-1.5, 0.3), (0.5, 0.9)])
def test_the_exact_gradient_is_the_derivative_of_the_expected_loss(theta, target):
    def expected_loss(t):
        p = torch.sigmoid(t)
        return p * (1 - target) ** 2 + (1 - p) * target**2

    t = torch.tensor(theta, dtype=F64, requires_grad=True)
    (derivative,) = torch.autograd.grad(expected_loss(t), t)
    assert unit_exact_gradient(theta, target) == pytest.approx(derivative.item(), rel=1e-12)


def expected_straight_through(theta: float, target: float) -> tuple[float, float]:
    """Exact means of the two plain straight-through estimators: E[2(b - target)] x 1, x sigmoid'."""
    s = 1 / (1 + math.exp(-theta))
    return 2 * (s - target), 2 * (s - target) * s * (1 - s)


@pytest.mark.parametrize(("theta", "target"), [(1.0, 0.2), (-1.5, 0.3)])
def test_each_estimator_has_the_mean_its_formula_says(theta, target):
    exact = unit_exact_gradient(theta, target)
    identity, sigmoid_slope = expected_straight_through(theta, target)
    expected = {
        "straight-through": identity,
        "straight-through, sigmoid slope": sigmoid_slope,
        "REINFORCE": exact,  # unbiased
        "REINFORCE, baseline": exact,  # a constant baseline keeps it unbiased
    }
    for estimator, mean in expected.items():
        estimates = unit_estimates(estimator, theta, target, repeats=400_000)
        standard_error = estimates.std().item() / math.sqrt(estimates.numel())
        assert abs(estimates.mean().item() - mean) < 4 * standard_error


def test_gumbel_straight_through_is_biased_less_and_noisier_as_it_cools():
    theta, target = -1.5, 0.3
    exact = unit_exact_gradient(theta, target)
    runs = [
        unit_estimates("Gumbel straight-through", theta, target, 400_000, temperature=t)
        for t in (0.1, 0.5, 1.0)
    ]
    biases = [abs(r.mean().item() - exact) for r in runs]
    variances = [r.var().item() for r in runs]
    assert biases == sorted(biases)
    assert variances == sorted(variances, reverse=True)


def test_the_baseline_lowers_reinforces_variance_where_the_notebook_measures_it():
    plain = unit_estimates("REINFORCE", -1.5, 0.3, repeats=400_000)
    baseline = unit_estimates("REINFORCE, baseline", -1.5, 0.3, repeats=400_000)
    assert baseline.var().item() < 0.5 * plain.var().item()


def test_unit_estimates_refuses_an_unknown_estimator():
    with pytest.raises(ValueError, match="estimator must be one of"):
        unit_estimates("pathwise", 0.0, 0.5, repeats=10)
    assert len(ESTIMATORS) == 5


def test_steps_to_loss_reads_train_neurons_losses():
    assert steps_to_loss(TrueStep.apply) is None  # nothing moves
    assert steps_to_loss(make_spike("triangle", width=0.05).apply) is None  # out of reach
    found = steps_to_loss(make_spike("sigmoid", width=0.5).apply)
    assert found is not None and 0 < found < 60


def test_steps_to_loss_shape_matters_less_than_width():
    at_half = [steps_to_loss(make_spike(s, width=0.5).apply) for s in NOISY_SHAPES]
    sigmoid = [steps_to_loss(make_spike("sigmoid", width=w).apply) for w in (0.2, 0.5, 10.0)]
    assert max(at_half) / min(at_half) < 1.5
    assert max(sigmoid) / min(sigmoid) > 5


@pytest.mark.parametrize("shape", ["sigmoid", "fast-sigmoid", "arctan", "triangle"])
def test_the_second_derivative_is_the_smoothed_steps(shape):
    x = torch.tensor([-1.5, -0.6, 0.3, 1.2], dtype=F64)  # away from cusps and corners
    first, second = first_and_second(make_spike(shape, width=1.0).apply, x)
    smooth_first, smooth_second = first_and_second(lambda v: smoothed_step(v, shape), x)
    assert torch.allclose(first, smooth_first) and torch.allclose(second, smooth_second)


@pytest.mark.parametrize("shape", ["straight-through", "clipped"])
def test_a_constant_or_piecewise_constant_bump_has_no_second_derivative_graph(shape):
    x = torch.tensor([-0.5, 0.3], dtype=F64)
    first, second = first_and_second(make_spike(shape, width=1.0).apply, x)
    assert second is None
    assert torch.equal(first, surrogate_slope(x, shape, width=1.0))


def test_try_noise_says_the_draws_kind_whether_the_seed_decides_them_and_the_agreement():
    right = try_noise(laplace_noise, laplace_slope, count=200_000)
    assert right.splitlines()[:2] == [
        "draws: 200,000 numbers of float64",
        "the same seed gives the same draws: True",
    ]
    assert right.endswith("agree within 0.025: True")
    unseeded = try_noise(
        lambda w, n, g: torch.distributions.Laplace(0.0, w).sample((n,)), laplace_slope, count=1000
    )
    assert "float32 (the task asks for float64)" in unseeded
    assert "the same seed gives the same draws: False" in unseeded
    with pytest.raises(InputError, match="noise function"):
        try_noise(3, laplace_slope)
    with pytest.raises(InputError, match="it gave list"):
        try_noise(lambda w, n, g: [w], laplace_slope)
