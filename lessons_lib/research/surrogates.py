"""Lesson 3, researcher track: what a surrogate gradient estimates, and how well.

- A surrogate bump is the density of a noise: the step with that noise added, averaged,
  is the smoothed step, so the bump is the exact slope of the averaged step (`noise`,
  `averaged_step_slope`, measured by Monte Carlo); the task's bump of a noise of one's own
  (`laplace_slope`, `laplace_noise`, `slope_of_averaged_step`, `slope_against_bump`,
  `try_noise`).
- On one stochastic binary unit, whose expected loss has an exact gradient, the bias and
  variance of straight-through, REINFORCE and Gumbel straight-through (`unit_estimates`).
- Width against shape on lesson 3's threshold neuron (`steps_to_loss`).
- What a second derivative through a spike computes (`first_and_second`).

tests/research/test_surrogates.py holds each to an exact formula or to torch's own ops.
"""

import math
from collections.abc import Callable

import torch

from lessons_lib.running import InputError
from lessons_lib.surrogate_gradients import SHAPES, step, surrogate_slope
from lessons_lib.threshold_training import train_neuron

__all__ = [
    "ESTIMATORS",
    "NOISY_SHAPES",
    "averaged_step_slope",
    "first_and_second",
    "laplace_noise",
    "laplace_slope",
    "noise",
    "slope_against_bump",
    "slope_of_averaged_step",
    "steps_to_loss",
    "try_noise",
    "unit_estimates",
    "unit_exact_gradient",
]

NOISY_SHAPES = tuple(shape for shape in SHAPES if shape != "straight-through")

# --- 1. a bump is a noise's density --------------------------------------------------------


def noise(shape: str, width: float, count: int, generator: torch.Generator) -> torch.Tensor:
    """`count` draws of the noise whose density is the `shape` bump of `width` (float64).

    Each is drawn by inverting its distribution function at a uniform p; the triangle is
    the sum of two uniform noises half as wide.
    """
    if shape not in NOISY_SHAPES:
        raise ValueError(f"shape must be one of {', '.join(NOISY_SHAPES)}; got {shape!r}")
    p = torch.rand(count, generator=generator, dtype=torch.float64)
    q = 2 * p - 1  # uniform on (-1, 1)
    if shape == "clipped":  # uniform on [-w, w]
        return width * q
    if shape == "sigmoid":  # logistic of scale w
        return width * torch.log(p / (1 - p))
    if shape == "arctan":  # Cauchy of scale w/π
        return width / math.pi * torch.tan(math.pi * (p - 0.5))
    if shape == "fast-sigmoid":  # density 1 / (2w (1 + |u|/w)²)
        return width * q / (1 - q.abs())
    other = torch.rand(count, generator=generator, dtype=torch.float64) * 2 - 1
    return width / 2 * (q + other)  # triangle on [-w, w]


def averaged_step_slope(
    x: torch.Tensor,
    shape: str,
    width: float = 1.0,
    samples: int = 1_000_000,
    h: float = 0.02,
    seed: int = 0,
) -> torch.Tensor:
    """Monte Carlo slope of E[step(x + ε)] at each x, ε the `shape` noise of `width`."""
    return slope_of_averaged_step(
        x, noise(shape, width, samples, torch.Generator().manual_seed(seed)), h
    )


def slope_of_averaged_step(x: torch.Tensor, draws: torch.Tensor, h: float = 0.02) -> torch.Tensor:
    """Monte Carlo slope of E[step(x + ε)] at each x, over the given draws of the noise ε.

    A central difference of the averaged step, the same draws on both sides (common random
    numbers), so each estimate is the fraction of draws in a window 2h wide, over 2h.
    """
    if not isinstance(draws, torch.Tensor) or not draws.is_floating_point() or draws.dim() != 1:
        raise InputError(f"draws must be a 1-D tensor of floats; got {_kind(draws)}")
    slopes = []
    for point in x.tolist():
        above = step(point + h + draws).mean()
        below = step(point - h + draws).mean()
        slopes.append((above - below) / (2 * h))
    return torch.stack(slopes).to(torch.float64)


def _kind(value: object) -> str:
    if isinstance(value, torch.Tensor):
        return f"a {value.dim()}-D tensor of {value.dtype}"
    return f"{type(value).__name__} {value!r:.60}"


def slope_against_bump(
    x: torch.Tensor, draws: torch.Tensor, bump: torch.Tensor, tolerance: float = 0.025
) -> str:
    """The Monte Carlo slope over `draws` beside the bump at each x, and whether they agree."""
    estimate = slope_of_averaged_step(x, draws)
    agree = bool(((estimate - bump).abs() <= tolerance).all())
    return "\n".join(
        [
            "x:                 " + ", ".join(f"{v:+5.1f}" for v in x.tolist()),
            "Monte Carlo slope: " + ", ".join(f"{v:5.2f}" for v in estimate.tolist()),
            "the bump:          " + ", ".join(f"{v:5.2f}" for v in bump.tolist()),
            f"agree within {tolerance:g}: {agree}",
        ]
    )


def try_noise(
    noise_fn: Callable, bump: Callable, width: float = 1.0, count: int = 1_000_000
) -> str:
    """The task's check of a learner's noise: its draws' kind and count, whether the same
    seed gives the same draws, then slope_against_bump at the five points of section 1."""
    if not callable(noise_fn):
        raise InputError(f"try_noise needs your noise function; got {_kind(noise_fn)}")
    draws = noise_fn(width, count, torch.Generator().manual_seed(0))
    again = noise_fn(width, count, torch.Generator().manual_seed(0))
    if not isinstance(draws, torch.Tensor) or not draws.is_floating_point() or draws.dim() != 1:
        raise InputError(f"the noise must be a 1-D tensor of floats; it gave {_kind(draws)}")
    kind = str(draws.dtype).removeprefix("torch.")
    lines = [
        f"draws: {draws.numel():,} numbers of {kind}"
        + ("" if draws.numel() == count else f" (asked for {count:,})")
        + ("" if draws.dtype == torch.float64 else " (the task asks for float64)"),
        "the same seed gives the same draws: "
        + (
            "True"
            if torch.equal(draws, again)
            else "False (it draws from something besides the generator it is given)"
        ),
    ]
    x = torch.tensor([-1.5, -0.6, 0.0, 0.4, 1.2], dtype=torch.float64)
    return "\n".join([*lines, slope_against_bump(x, draws.double(), bump(x, width))])


def laplace_slope(x: torch.Tensor, width: float = 1.0) -> torch.Tensor:
    """A bump that is not one of the course's six: exp(-|x| / w) / (2w), area 1."""
    return torch.exp(-x.abs() / width) / (2 * width)


def laplace_noise(width: float, count: int, generator: torch.Generator) -> torch.Tensor:
    """`count` draws of Laplace noise of scale `width`, whose density is laplace_slope.

    Its distribution function is ½ + ½ sign(u) (1 - exp(-|u| / w)); inverted at a uniform
    draw q on (-1, 1) standing for 2F - 1: u = -w sign(q) log(1 - |q|).
    """
    q = 2 * torch.rand(count, generator=generator, dtype=torch.float64) - 1
    return -width * torch.sign(q) * torch.log1p(-q.abs())


# --- 2. bias and variance on one stochastic binary unit -----------------------------------
# The unit fires, b = step(θ + ε), with logistic noise ε: b is Bernoulli(p), p = sigmoid(θ).
# Its loss is (b - target)², so the expected loss p (1 - target)² + (1 - p) target² has the
# exact gradient p (1 - p) (1 - 2 target). Each estimator turns one draw into one estimate.

ESTIMATORS = (
    "straight-through",
    "straight-through, sigmoid slope",
    "REINFORCE",
    "REINFORCE, baseline",
    "Gumbel straight-through",
)


def unit_exact_gradient(theta: float, target: float) -> float:
    """d/dθ of the expected loss E[(b - target)²], b ~ Bernoulli(sigmoid(θ))."""
    s = 1 / (1 + math.exp(-theta))
    return s * (1 - s) * (1 - 2 * target)


def unit_estimates(
    estimator: str,
    theta: float,
    target: float,
    repeats: int = 1_000_000,
    temperature: float = 1.0,
    seed: int = 0,
) -> torch.Tensor:
    """`repeats` one-draw estimates of unit_exact_gradient by `estimator` (float64).

    All estimators see the same draws (same seed). REINFORCE's baseline is the average
    loss of 1,000 separate draws: a constant, so the estimate stays unbiased.
    """
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {', '.join(ESTIMATORS)}; got {estimator!r}")
    generator = torch.Generator().manual_seed(seed)
    u = theta + noise("sigmoid", 1.0, repeats, generator)  # pre-activation, logistic noise
    b = step(u)
    loss, loss_slope = (b - target) ** 2, 2 * (b - target)  # f(b) and f'(b)
    s = 1 / (1 + math.exp(-theta))
    if estimator == "straight-through":  # backward treats the step as the identity
        return loss_slope
    if estimator == "straight-through, sigmoid slope":  # ... or as sigmoid(θ) = E[b]
        return loss_slope * s * (1 - s)
    if estimator == "Gumbel straight-through":  # the slope of sigmoid(u / τ) at the noisy u
        return loss_slope * surrogate_slope(u, "sigmoid", width=temperature)
    score = b - s  # d/dθ log P(b) for a Bernoulli(sigmoid(θ))
    if estimator == "REINFORCE":
        return loss * score
    pilot = step(theta + noise("sigmoid", 1.0, 1000, generator))
    baseline = ((pilot - target) ** 2).mean()
    return (loss - baseline) * score


# --- 3. width against shape ----------------------------------------------------------------


def steps_to_loss(
    spike: Callable[[torch.Tensor], torch.Tensor], level: float = 0.05, steps: int = 300
) -> int | None:
    """Training steps train_neuron needs to bring its loss to `level` or below; None if never."""
    losses = train_neuron(spike, steps=steps).losses
    return next((i for i, loss in enumerate(losses) if loss <= level), None)


# --- 4. second derivatives through a spike -------------------------------------------------


def first_and_second(
    fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """d/dx and d²/dx² of fn, elementwise, through autograd with `create_graph=True`.

    The second is None when the first carries no graph back to x: backward's result did
    not depend on x through differentiable operations.
    """
    leaf = x.detach().requires_grad_(True)
    (first,) = torch.autograd.grad(fn(leaf).sum(), leaf, create_graph=True)
    if not first.requires_grad:
        return first.detach(), None
    (second,) = torch.autograd.grad(first.sum(), leaf, allow_unused=True)
    return first.detach(), torch.zeros_like(leaf) if second is None else second
