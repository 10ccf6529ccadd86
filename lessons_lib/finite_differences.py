"""Finite differences and their error: the numbers behind a gradient check's tolerance.

A central difference (f(x + h) - f(x - h)) / 2h has two errors pulling against each
other: truncation, about h² |f'''| / 6, which shrinks with h, and round-off, about
eps |f| / h, which grows as h shrinks. Their sum is smallest near h = eps^(1/3).
"""

import math
from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from lessons_lib.running import InputError, LessonError, first_line

__all__ = [
    "best_step",
    "central_difference",
    "complex_step",
    "directional_difference",
    "error_model",
    "model_best_step",
    "roundoff_error",
    "smooth_derivatives",
    "step_errors",
    "truncation_error",
]


def _check_step(h: float) -> float:
    """h as a float, refused with a plain message unless it is finite and positive."""
    try:
        step = float(h)
    except (TypeError, ValueError):
        raise InputError(f"the step h must be a number, got {type(h).__name__}") from None
    if not step > 0 or step == float("inf"):
        raise InputError(f"the step h must be a finite positive number, got {h!r}")
    return step


def _check_point(x: object) -> None:
    """Refuse, with a plain message, an x that is not a real floating-point tensor."""
    if not isinstance(x, Tensor) or not x.is_floating_point():
        kind = x.dtype if isinstance(x, Tensor) else type(x).__name__
        raise InputError(f"x must be a real floating-point tensor, got {kind}")


def _call(f: Callable[[Tensor], Tensor], x: Tensor, where: str) -> Tensor:
    """f(x), with an exception or a result that is not a tensor turned into a LessonError."""
    try:
        y = f(x)
    except Exception as e:
        raise LessonError(f"f raised {type(e).__name__} at {where}: {first_line(e)}") from e
    if not isinstance(y, Tensor):
        raise LessonError(f"f must return a tensor, but at {where} it returned {type(y).__name__}")
    return y


def _evaluate(f: Callable[[Tensor], Tensor], x: Tensor, where: str) -> Tensor:
    """f(x) for an elementwise f: a LessonError unless it keeps x's shape and dtype."""
    y = _call(f, x, where)
    if y.shape != x.shape:
        raise LessonError(
            f"f must work elementwise (same shape out as in), but at {where} it turned "
            f"shape {tuple(x.shape)} into {tuple(y.shape)}"
        )
    if y.dtype != x.dtype:
        raise LessonError(
            f"f must keep the input's dtype so the difference is computed in it, but at "
            f"{where} it turned {x.dtype} into {y.dtype}"
        )
    return y


def central_difference(f: Callable[[Tensor], Tensor], x: Tensor, h: float) -> Tensor:
    """(f(x + h) - f(x - h)) / 2h elementwise, for an elementwise f, computed in x's dtype."""
    _check_point(x)
    step = _check_step(h)
    with torch.no_grad():
        x = x.detach()
        plus = _evaluate(f, x + step, "x + h")
        minus = _evaluate(f, x - step, "x - h")
        return (plus - minus) / (2 * step)


def complex_step(f: Callable[[Tensor], Tensor], x: Tensor, h: float) -> Tensor:
    """Im f(x + ih) / h elementwise: f' without a subtraction, for a real-analytic, complex-safe f."""
    _check_point(x)
    step = _check_step(h)
    with torch.no_grad():
        z = torch.complex(x.detach(), torch.full_like(x, step))
        try:
            y = f(z)
        except Exception as e:
            raise LessonError(f"f is not complex-safe: {type(e).__name__}: {first_line(e)}") from e
        if not isinstance(y, Tensor) or not y.is_complex() or y.shape != x.shape:
            got = f"{y.dtype} {tuple(y.shape)}" if isinstance(y, Tensor) else type(y).__name__
            raise LessonError(
                f"f must map a complex tensor to a complex tensor of the same shape, got {got}"
            )
        return y.imag / step


def step_errors(
    f: Callable[[Tensor], Tensor],
    derivative: Callable[[Tensor], Tensor],
    x: float,
    steps: Sequence[float],
    dtype: torch.dtype,
) -> list[float]:
    """|central difference - true derivative| at the point x, one per step h, f run in dtype.

    The true derivative is evaluated in float64 at x as stored in dtype, so only the
    difference's own error is measured, not the rounding of x.
    """
    point = torch.tensor([x], dtype=dtype)
    with torch.no_grad():
        exact = derivative(point.to(torch.float64)).to(torch.float64)
    return [abs(central_difference(f, point, h).to(torch.float64) - exact).item() for h in steps]


def best_step(dtype: torch.dtype) -> float:
    """The rule-of-thumb step for a central difference in dtype: eps^(1/3)."""
    return torch.finfo(dtype).eps ** (1 / 3)


def truncation_error(h: float, third_abs: float = 1.0) -> float:
    """The central difference's truncation error model: h² |f'''| / 6."""
    return h * h * third_abs / 6


def roundoff_error(h: float, dtype: torch.dtype, f_abs: float = 1.0) -> float:
    """The central difference's round-off error model in dtype: eps |f| / h."""
    return torch.finfo(dtype).eps * f_abs / h


def error_model(h: float, dtype: torch.dtype, f_abs: float = 1.0, third_abs: float = 1.0) -> float:
    """The model's total error at step h: truncation h² |f'''| / 6 plus round-off eps |f| / h."""
    return truncation_error(h, third_abs) + roundoff_error(h, dtype, f_abs)


def model_best_step(dtype: torch.dtype, f_abs: float = 1.0, third_abs: float = 1.0) -> float:
    """The step that minimises error_model: (3 eps |f| / |f'''|)^(1/3)."""
    return (3 * torch.finfo(dtype).eps * f_abs / third_abs) ** (1 / 3)


def directional_difference(
    f: Callable[[Tensor], Tensor], x: Tensor, direction: Tensor, h: float
) -> Tensor:
    """(f(x + h u) - f(x - h u)) / 2h for a direction u: J u without J, as fast gradcheck does."""
    _check_point(x)
    if not isinstance(direction, Tensor) or direction.shape != x.shape:
        got = tuple(direction.shape) if isinstance(direction, Tensor) else type(direction).__name__
        raise InputError(
            f"the direction must be a tensor shaped like x {tuple(x.shape)}, got {got}"
        )
    step = _check_step(h)
    with torch.no_grad():
        x, u = x.detach(), direction.detach().to(x.dtype)
        plus = _call(f, x + step * u, "x + h u")
        minus = _call(f, x - step * u, "x - h u")
        if plus.shape != minus.shape or plus.dtype != minus.dtype:
            raise LessonError("f must return tensors of one shape and dtype at x + h u and x - h u")
        return (plus - minus) / (2 * step)


# A stencil estimate within this many times its own round-off counts as 0; estimates at two
# steps in a row that agree to this fraction count as steady.
NOISE_FACTOR, STEADY = 100, 0.1
# The stencil step shrinks by the golden ratio: two steps in an irrational ratio cannot both
# sit on multiples of a period, so a periodic f cannot alias into a false agreement.
SHRINK = (1 + 5**0.5) / 2
MAX_SHRINKS = 65  # a factor of about 4e13 in all


def smooth_derivatives(f: Callable[[Tensor], Tensor], x: float) -> tuple[float, float] | None:
    """f''(x) and f'''(x) in float64 where f is smooth around x; None near a kink or a jump.

    Central differences on five points x + (-2, -1, 0, 1, 2) h, with h shrinking from
    0.2 max(1, |x|) until the estimates at two steps in a row agree for both derivatives. An estimate
    that round-off (about 4 eps |f| / h² and 3 eps |f| / h³) could change by a tenth
    counts as 0. Across a
    kink or a jump the estimates grow like 1/h or faster and never agree; points outside
    f's domain (NaN) make the step shrink too.
    """
    eps = torch.finfo(torch.float64).eps
    offsets = torch.tensor([-2.0, -1.0, 0.0, 1.0, 2.0], dtype=torch.float64)
    before = None
    for k in range(MAX_SHRINKS + 1):
        h = 0.2 * max(1.0, abs(x)) / SHRINK**k
        with torch.no_grad():
            v = _evaluate(f, x + h * offsets, "x + (-2, -1, 0, 1, 2) h").tolist()
        if not all(math.isfinite(value) for value in v):
            before = None  # outside f's domain at this h: shrink
            continue
        size = max(abs(value) for value in v)
        second = (v[3] - 2 * v[2] + v[1]) / h**2
        third = (v[4] - 2 * v[3] + 2 * v[1] - v[0]) / (2 * h**3)
        noise = (NOISE_FACTOR * 4 * eps * size / h**2, NOISE_FACTOR * 3 * eps * size / h**3)
        # Not resolved to STEADY above its round-off: as good as 0 at this step or any smaller.
        now = [
            0.0 if STEADY * abs(d) <= n else d for d, n in zip((second, third), noise, strict=True)
        ]
        if before is not None and all(
            abs(a - b) <= STEADY * max(abs(a), abs(b)) for a, b in zip(now, before, strict=True)
        ):
            return now[0], now[1]
        before = now
    return None
