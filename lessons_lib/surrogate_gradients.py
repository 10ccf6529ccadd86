"""Surrogate gradients: a step forward, and backward a bump of chosen shape and width.

Each bump (all but straight-through) has area 1, so it is the exact derivative of a smooth
step that climbs from 0 to 1 around the threshold (`smoothed_step`): the surrogate is the
slope of a smoothed model of the step. Straight-through is the slope of the identity.
Lesson 3 teaches them; tests/test_surrogate_gradients.py holds each to its smoothed step.
"""

import math

import torch
from torch.autograd import Function

SHAPES = ("straight-through", "clipped", "sigmoid", "fast-sigmoid", "arctan", "triangle")


def _check(shape: str, width: float) -> None:
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}; got {shape!r}")
    if not (isinstance(width, int | float) and width > 0):
        raise ValueError(f"width must be a positive number; got {width!r}")


def surrogate_slope(
    x: torch.Tensor, shape: str, threshold: float = 0.0, width: float = 1.0
) -> torch.Tensor:
    """The surrogate's slope at x: a bump of `shape`, centred on `threshold`, `width` wide."""
    _check(shape, width)
    u = (x - threshold) / width  # distance from the threshold, in widths
    if shape == "straight-through":
        return torch.ones_like(x)
    if shape == "clipped":
        bump = (u.abs() <= 1).to(x.dtype) / 2
    elif shape == "sigmoid":
        s = torch.sigmoid(u)
        bump = s * (1 - s)
    elif shape == "fast-sigmoid":
        bump = 0.5 / (1 + u.abs()) ** 2
    elif shape == "arctan":
        bump = 1 / (1 + (math.pi * u) ** 2)
    else:  # triangle
        bump = (1 - u.abs()).clamp(min=0)
    return bump / width  # area 1 at every width


def smoothed_step(
    x: torch.Tensor, shape: str, threshold: float = 0.0, width: float = 1.0
) -> torch.Tensor:
    """The smooth function whose exact derivative is surrogate_slope (0 to 1 across the step)."""
    _check(shape, width)
    u = (x - threshold) / width
    if shape == "straight-through":
        return x - threshold  # the identity, shifted: slope 1 everywhere
    if shape == "clipped":
        return ((u.clamp(-1, 1) + 1) / 2).to(x.dtype)
    if shape == "sigmoid":
        return torch.sigmoid(u)
    if shape == "fast-sigmoid":
        return 0.5 + 0.5 * u / (1 + u.abs())
    if shape == "arctan":
        return 0.5 + torch.atan(math.pi * u) / math.pi
    triangle = torch.where(u < 0, (1 + u) ** 2 / 2, 1 - (1 - u) ** 2 / 2)
    return torch.where(u.abs() <= 1, triangle, (u > 0).to(x.dtype))


def step(x: torch.Tensor, threshold: float = 0.0) -> torch.Tensor:
    """1 where x reaches the threshold, 0 below it, in x's dtype."""
    return (x >= threshold).to(x.dtype)


def make_spike(shape: str = "fast-sigmoid", threshold: float = 0.0, width: float = 0.5) -> type:
    """A Function: the step at `threshold` forwards, the `shape` surrogate of `width` backwards."""
    _check(shape, width)

    class Spike(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return step(x, threshold)  # the output keeps x's dtype

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * surrogate_slope(x, shape, threshold, width)  # scales with grad_out

    Spike.__name__ = Spike.__qualname__ = f"Spike_{shape.replace('-', '_')}"
    Spike.__doc__ = f"A step at {threshold:g} with a {shape} surrogate {width:g} wide."
    return Spike


class TrueStep(Function):
    """The step with its true gradient: zero everywhere but the jump, where it has none."""

    @staticmethod
    def forward(ctx, x):
        return step(x)

    @staticmethod
    def backward(ctx, grad_out):
        return torch.zeros_like(grad_out)
