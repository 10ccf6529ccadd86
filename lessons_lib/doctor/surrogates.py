"""What a wrong-looking gradient may be instead: a deliberate surrogate of a known shape.

Projects replace the derivative of a step, a sign or a rounding (zero almost everywhere)
with a "surrogate": grad_out passed straight through, negated (gradient reversal), clipped
to a window, or times a bump (a sigmoid's, fast sigmoid's, arctan's or triangle's slope).
Where backward's gradient, divided by grad_out, has one of these shapes on the points the
doctor tried, the report says which, and how to declare it (grad_reference), instead of
only "work out the slope again". Each shape is read off the recorded numbers.
"""

from typing import NamedTuple

import torch

TOLERANCE = 1e-6


class Shape(NamedTuple):
    """What backward does, a grad_reference for it, and where a bump peaks (else None)."""

    does: str
    rule: str
    peak: float | None = None


def _same(a: torch.Tensor, b: float | torch.Tensor) -> torch.Tensor:
    return torch.isclose(a, torch.as_tensor(b, dtype=a.dtype), rtol=TOLERANCE, atol=1e-9)


def _window(x: torch.Tensor, inside: torch.Tensor) -> tuple[float, float] | None:
    """(lo, hi) if `inside` is exactly the points with lo <= x <= hi; else None."""
    lo, hi = x[inside].min(), x[inside].max()
    return (lo.item(), hi.item()) if bool(((x >= lo) & (x <= hi) == inside).all()) else None


def _bump_peak(x: torch.Tensor, slope: torch.Tensor) -> float | None:
    """Where a bump peaks: slope > 0, rising up to one point and falling after it."""
    x, slope = x.detach().double().flatten(), slope.detach().double().flatten()
    order = x.argsort()
    xs, ys = x[order], slope[order]
    if not bool((ys > 0).all()) or xs.unique().numel() != xs.numel():
        return None
    top = int(ys.argmax())
    rising = bool((ys[1 : top + 1] >= ys[:top] * (1 - TOLERANCE)).all())
    falling = bool((ys[top + 1 :] <= ys[top:-1] * (1 + TOLERANCE)).all())
    interior = 0 < top < len(ys) - 1
    return xs[top].item() if rising and falling and interior else None


def shape_of(x: torch.Tensor, got: torch.Tensor, grad_out: torch.Tensor) -> Shape | None:
    """What backward does, if got / grad_out has a surrogate's shape.

    Elementwise, one input: x, got and grad_out of one shape, six points or more.
    """
    if not (x.shape == got.shape == grad_out.shape) or x.numel() < 6:
        return None
    x, slope = x.detach().double().flatten(), (got / grad_out).detach().double().flatten()
    if not bool(slope.isfinite().all()):
        return None
    first = slope[0].item()
    if bool(_same(slope, first).all()) and first != 0:
        if first == 1:
            return Shape(
                "passes grad_out through unchanged: a straight-through estimator", "grad_out"
            )
        if first == -1:
            return Shape("passes grad_out back negated: a gradient reversal", "-grad_out")
        return Shape(
            f"passes grad_out back times {first:.4g}: a scaled straight-through",
            f"{first:.4g} * grad_out",
        )
    ones, zeros = _same(slope, 1.0), _same(slope, 0.0)
    if bool((ones | zeros).all()) and ones.any() and zeros.any():
        window = _window(x, ones)
        if window is not None:
            lo, hi = window
            return Shape(
                f"passes grad_out through where {lo:g} <= x <= {hi:g} (at the points tried) and "
                "blocks it elsewhere: a clipped straight-through estimator",
                f"grad_out * ((x >= {lo:g}) & (x <= {hi:g}))",
            )
    peak = _bump_peak(x, slope)
    if peak is not None:
        return Shape(
            f"multiplies grad_out by a bump that peaks at x = {peak:g} (at the points tried) and "
            "falls off on both sides: a surrogate gradient (the slope of a sigmoid, a fast "
            "sigmoid, an arctan or a triangle)",
            "grad_out * (your bump's formula)",
            peak,
        )
    return None


def jump_of(x: torch.Tensor, values: torch.Tensor) -> tuple[float, float] | None:
    """Where a step's value changes, if it changes once along x: the two neighbouring points
    it changes between."""
    if x.shape != values.shape or x.numel() < 2:
        return None
    order = x.detach().flatten().argsort()
    xs, ys = x.detach().flatten()[order], values.detach().flatten()[order]
    changes = (ys[1:] != ys[:-1]).nonzero().flatten()
    if changes.numel() != 1:
        return None
    at = int(changes[0])
    return xs[at].item(), xs[at + 1].item()
