"""How the gradient doctor compares numbers, accepts a kink, and probes the chain rule."""

from collections.abc import Callable

import torch

from lessons_lib.doctor.samples import upstream_gradient
from lessons_lib.running import SCALE, EngineRun, as_tuple, differentiable

RTOL, ATOL = 1e-5, 1e-7
LOW_RTOL, LOW_ATOL = 1e-3, 1e-5  # float32 and below: a few units in the last place add up
# In float64 a derivative computed from its formula agrees with the reference's to about
# 1e-13 of its largest entry (5e-12 at worst in the doctor's corpus: an iterative forward);
# a finite difference leaves 1e-11 at its very best, and usually 1e-9 to 1e-5.
FORMULA_ACCURACY = 1e-10
KINK_STEP = 1e-6  # one-sided finite differences, relative to max(1, |x|)
MAX_KINK_PROBES = 32  # elements probed for a kink per input and sample


def chain_rule_kind(run: EngineRun, i: int) -> str | None:
    """None if backward's gradient for input i scales with grad_out; else how it fails to."""
    if run.scaled is None or len(run.scaled) <= i or len(run.raw) <= i:
        return None
    plain, scaled = run.raw[i], run.scaled[i]
    if not (isinstance(plain, torch.Tensor) and isinstance(scaled, torch.Tensor)):
        return None
    if plain.shape != scaled.shape:
        return None
    finite = plain.isfinite() & scaled.isfinite()  # a NaN is a different mistake
    plain, scaled = plain[finite], scaled[finite]
    if close(scaled, SCALE * plain).all():
        return None
    if close(scaled, plain).all():
        return "ignores"
    upstream = upstream_gradient(run.outputs[run.tracked[0]], run.tracked[0])
    moved = (1 - SCALE) * upstream[finite] if upstream.shape == finite.shape else None
    if len(run.tracked) == 1 and moved is not None and close(plain - scaled, moved).all():
        return "adds"
    return "other"


def one_number(got: torch.Tensor, uniform: torch.Tensor, mask: torch.Tensor) -> float | None:
    """c where got = c * uniform (uniform: the right gradient for a grad_out of all ones).

    That is a backward using grad_out as one number (its sum, mean, first element) in
    place of grad_out itself, elementwise. None unless the two are proportional, c is not
    zero, and at least two elements of `uniform` in `mask` are non-zero (any two single
    numbers are proportional).
    """
    got, uniform = got[mask], uniform[mask]
    if int((uniform != 0).sum()) < 2:
        return None
    wide = got.to(torch.float64), uniform.to(torch.float64)
    factor = ((wide[0] * wide[1]).sum() / (wide[1] * wide[1]).sum()).item()
    if factor == 0 or not close(got, factor * uniform).all():  # tolerance of uniform's dtype
        return None
    return factor


def one_sided_slopes(reference: Callable, inputs: tuple, i: int, index: tuple):
    """Left and right slopes of sum(grad_out * reference) along element `index` of input i."""
    args = [a.detach().double() if differentiable(a) else a for a in inputs]
    x = args[i]
    step = KINK_STEP * max(1.0, abs(x[index].item()))
    try:
        with torch.no_grad():
            centre = as_tuple(reference(*args))
            moved = []
            for sign in (1, -1):
                shifted = x.clone()
                shifted[index] += sign * step
                moved.append(as_tuple(reference(*args[:i], shifted, *args[i + 1 :])))
    except Exception:
        return None

    def change(after: tuple) -> float:
        total = 0.0
        for k, (a, c) in enumerate(zip(after, centre, strict=True)):
            if isinstance(c, torch.Tensor) and c.is_floating_point():
                total += ((a - c) * upstream_gradient(c, k)).sum().item()
        return total

    right, left = change(moved[0]) / step, -change(moved[1]) / step
    return left, right


def single_upstream(ref_output) -> torch.Tensor | None:
    """The grad_out a one-output Function received, to quote beside the evidence."""
    outputs = as_tuple(ref_output)
    if len(outputs) == 1 and isinstance(outputs[0], torch.Tensor):
        return upstream_gradient(outputs[0], 0)
    return None


def close(got: torch.Tensor, want: torch.Tensor) -> torch.Tensor:
    if want.dtype == torch.float64:
        return torch.isclose(got.to(want.dtype), want, RTOL, ATOL)
    # float32 and below; bfloat16 and float16 round at the 3rd or 4th digit already, so the
    # tolerance grows with the dtype's rounding step (eps): a few steps, not a wrong gradient.
    eps = torch.finfo(want.dtype).eps if want.is_floating_point() else 0.0
    return torch.isclose(got.to(want.dtype), want, max(LOW_RTOL, 4 * eps), max(LOW_ATOL, eps))


def relative_error(got: torch.Tensor, want: torch.Tensor, mask: torch.Tensor) -> float:
    """The largest |got - want| in `mask`, relative to the largest |want| there (0 if none)."""
    if got.shape != want.shape or not mask.any():
        return 0.0
    scale = want[mask].abs().max().item()
    return (got - want)[mask].abs().max().item() / scale if scale > 0 else 0.0


def all_finite(output) -> bool:
    return all(
        bool(o.isfinite().all())
        for o in as_tuple(output)
        if isinstance(o, torch.Tensor) and o.is_floating_point()
    )


def elementwise_finite(ref_output, like: torch.Tensor) -> torch.Tensor:
    """Where the reference's value is finite, for outputs shaped like `like` (else all True)."""
    mask = torch.ones(like.shape, dtype=torch.bool)
    for o in as_tuple(ref_output):
        if isinstance(o, torch.Tensor) and o.is_floating_point() and o.shape == like.shape:
            mask &= o.isfinite()
    return mask


def output_mask(values: torch.Tensor, kinks: dict):
    """Where an output-shaped comparison is meaningful: finite and away from accepted kinks."""
    mask = values.isfinite()
    for accepted in kinks.values():
        if not accepted.any():
            continue
        if accepted.shape != values.shape:
            return None  # a kink somewhere, and no way to tell which outputs it touches
        mask &= ~accepted
    return mask


def between_slopes(
    reference: Callable, inputs: tuple, i: int, index: tuple, value: float, scale: float = 1.0
) -> bool:
    """Whether element `index` of input i is a kink of the reference and `value` lies
    between its one-sided slopes (each times `scale`)."""
    slopes = one_sided_slopes(reference, inputs, i, index)
    if slopes is None:
        return False
    left, right = (scale * slope for slope in slopes)
    size = 1 + abs(left) + abs(right)
    is_kink = abs(right - left) > 1e-3 * size
    return is_kink and min(left, right) - 1e-4 * size <= value <= max(left, right) + 1e-4 * size


def accepted_at_kinks(
    reference: Callable, wrong: torch.Tensor, inputs: tuple, i: int, got: torch.Tensor
) -> torch.Tensor:
    """Elements where the reference has a kink and `got` lies between its one-sided slopes.

    At a kink any value between the slopes is a valid subgradient (a ReLU may pass
    0 or 1 at exactly 0), so the doctor accepts it rather than raise a false alarm.
    """
    accepted = torch.zeros_like(wrong)
    for index in wrong.nonzero()[:MAX_KINK_PROBES].tolist():
        spot = tuple(index)
        accepted[spot] = between_slopes(reference, inputs, i, spot, got[spot].item())
    return accepted
