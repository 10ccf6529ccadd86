"""What the gradient explorer measures along x: fn's forward, its backward and the true gradient.

Layer: plain numbers, no widgets. Every call into the Function goes through
lessons_lib.running, so broken learner code becomes a problem noted beside the curves,
never a traceback. The curves are sampled on a grid that the point slider's steps fall
on (../sampling.py), so a value read at the point is exact.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from lessons_lib.explorers.sampling import sample_index
from lessons_lib.running import Run, as_tuple, run_function, vjp

# Central finite differences: step relative to |x|, about the cube root of float64's epsilon.
FD_STEP = 1e-5
# Shade where backward and the true gradient differ by more than rounding and more than
# a thousandth of the panel's height: a difference nobody could see is not shaded.
RTOL, VISIBLE = 1e-4, 1e-3
KEYS = ("forward", "custom", "true")  # what the point's readout shows, in order
ROWS = ("x", *KEYS, "differ")  # the samples the picture gets, in order (Curves.rows)


@dataclass(frozen=True)
class Param:
    """A held number among fn's inputs that gets its own slider, e.g. a surrogate's slope."""

    index: int  # position among fn's inputs
    name: str
    low: float
    high: float


@dataclass
class Curves:
    """What fn, its backward and the truth gave on a grid of x values (NaN where unknown)."""

    x: np.ndarray
    forward: np.ndarray | None = None
    reference: np.ndarray | None = None
    custom: np.ndarray | None = None  # what fn's backward returned
    true: np.ndarray | None = None
    failure: str | None = None  # the Function raised: nothing to plot from it
    problems: list[str] = field(default_factory=list)

    def differ(self) -> np.ndarray:
        """Per sample: do backward and the true gradient visibly differ? (False if unknown.)"""
        if self.custom is None or self.true is None:
            return np.zeros(self.x.shape, bool)
        return disagreement(self.custom, self.true)

    def index_of(self, x: float) -> int | None:
        """The sample at x, or None when x falls between samples or outside the grid."""
        return sample_index(self.x, x)

    def at(self, index: int) -> dict[str, float]:
        """x, forward, custom and true gradient at one sample, and whether they differ."""
        values = {key: _number(getattr(self, key), index) for key in KEYS}
        return {"x": float(self.x[index]), **values, "differ": bool(self.differ()[index])}

    def rows(self) -> list[np.ndarray]:
        """The samples as ROWS names them: x, forward, custom, true (NaN where unknown), differ."""
        unknown = np.full(self.x.shape, np.nan)
        values = [unknown if getattr(self, key) is None else getattr(self, key) for key in KEYS]
        return [self.x, *values, self.differ().astype(np.float64)]


def _number(values: np.ndarray | None, index: int = 0) -> float:
    return math.nan if values is None else float(values[index])


def grid(low: float, high: float, samples: int) -> torch.Tensor:
    """The x values the curves are measured at: `samples` evenly spaced, both ends included."""
    return torch.linspace(low, high, samples, dtype=torch.float64)


def largest(*arrays: np.ndarray | None) -> float:
    """The largest finite |value| among the arrays (0 if none)."""
    parts = [np.abs(a[np.isfinite(a)]) for a in arrays if a is not None]
    values = np.concatenate(parts) if parts else np.empty(0)
    return float(values.max()) if values.size else 0.0


def disagreement(custom: np.ndarray, true: np.ndarray, span: float | None = None) -> np.ndarray:
    """Where fn's backward and the true gradient visibly differ (NaN against a number counts).

    span: the size a difference is judged against; by default the largest |value| of the
    two arrays themselves (a single point is judged against its whole curves).
    """
    span = largest(custom, true) if span is None else span
    tolerance = VISIBLE * span + RTOL * np.abs(true)
    with np.errstate(invalid="ignore"):
        close = np.abs(custom - true) <= tolerance
    return ~close & ~(np.isnan(custom) & np.isnan(true))


@dataclass
class Setup:
    """Everything fixed when explore() is called: what to run and how to name it."""

    fn: type
    reference: Callable | None
    reference_label: str
    grad_reference: Callable | None
    vary: int
    hold: list
    params: tuple[Param, ...]
    samples: int
    note: str = ""  # the preset's caption, shown only with the preset's own reference

    @property
    def name(self) -> str:
        """fn's class name, as the legend and messages say it."""
        return self.fn.__name__

    @property
    def true_label(self) -> str:
        """Where the true gradient comes from, as the legend says it."""
        if self.grad_reference is not None:
            return "intended gradient (grad_reference)"
        if self.reference is not None:
            return f"true gradient (autograd of {self.reference_label})"
        return f"true gradient (finite differences of {self.name})"

    def held_position(self, index: int) -> int:
        """Where fn's input number `index` sits in `hold` (which leaves out the varied one)."""
        return index if index < self.vary else index - 1

    def inputs(self, x: torch.Tensor, held: Sequence) -> tuple:
        """fn's inputs: x at position `vary`, held tensors spread to x's shape, the rest as is."""
        args = [torch.full(x.shape, v.item(), dtype=v.dtype) if _is_tensor(v) else v for v in held]
        args.insert(self.vary, x)
        return tuple(args)

    def measure(self, x: torch.Tensor, held: Sequence, scale: float) -> Curves:
        """Run fn, its backward (grad_out = scale) and the truth at every x, all run safely."""
        inputs, upstream = self.inputs(x, held), constant_upstream(scale)
        curves = Curves(x=x.numpy())
        run = run_function(self.fn, inputs, upstream)
        if run.failure is not None and run.failure.stage == "forward":
            curves.failure = f"{self.name}'s {run.failure}"
            return curves
        curves.forward = plotted(run.output, x, f"{self.name}'s forward", curves)
        if run.failure is not None:
            curves.failure = f"{self.name}'s {run.failure}"
        else:
            curves.custom = backward_values(self, run, x, curves)
        if self.grad_reference is not None or self.reference is not None:
            truth = vjp(self._truth(), inputs, upstream)
            if truth.failure is not None:
                curves.problems.append(f"the {truth.failure}")
            else:
                if self.reference is not None:
                    curves.reference = plotted(truth.output, x, "the reference", curves)
                curves.true = plotted(truth.grads[self.vary], x, "the true gradient", curves)
        elif curves.forward is not None:
            curves.true = self._finite_difference(x, held, scale, curves)
        return curves

    def measure_point(self, x: float, held: Sequence, scale: float, curves: Curves) -> dict:
        """forward, custom and true gradient at exactly x, judged against the whole curves."""
        if curves.failure is not None and curves.forward is None:
            return {"x": x, **dict.fromkeys(KEYS, math.nan), "differ": False}
        at = self.measure(torch.tensor([x], dtype=torch.float64), held, scale)
        values = {key: _number(getattr(at, key)) for key in KEYS}
        differ = (
            bool(disagreement(at.custom, at.true, largest(curves.custom, curves.true))[0])
            if at.custom is not None and at.true is not None
            else False
        )
        return {"x": x, **values, "differ": differ}

    def _truth(self) -> Callable:
        """The reference, or one whose autograd gradient is exactly grad_reference."""
        if self.grad_reference is None:
            return self.reference
        return with_gradient(self.reference, self.grad_reference, self.vary)

    def _finite_difference(
        self, x: torch.Tensor, held: Sequence, scale: float, curves: Curves
    ) -> np.ndarray | None:
        h = FD_STEP * x.abs().clamp(min=1.0)
        after = run_function(self.fn, self.inputs(x + h, held)).output
        before = run_function(self.fn, self.inputs(x - h, held)).output
        if after is None or before is None:
            curves.problems.append(f"{self.name}'s forward failed near the grid points")
            return None
        slope = (_first_tensor(after) - _first_tensor(before)) / (2 * h)
        return plotted(scale * slope, x, "the finite-difference gradient", curves)


def backward_values(setup: Setup, run: Run, x: torch.Tensor, curves: Curves) -> np.ndarray | None:
    """What fn's backward returned for the varied input, one number per x; else a problem."""
    count = len(setup.hold) + 1  # fn's inputs: x and the held ones
    if len(run.grads) != count:
        curves.problems.append(
            f"{setup.name}'s backward returned {len(run.grads)} value(s) for "
            f"{count} forward input(s): it needs one per input (None for non-tensors)"
        )
        return None
    grad = run.grads[setup.vary]
    if grad is None:
        curves.problems.append(f"{setup.name}'s backward returned None for input {setup.vary}")
        return None
    return plotted(grad, x, f"{setup.name}'s backward", curves)


def with_gradient(reference: Callable | None, grad_reference: Callable, vary: int) -> Callable:
    """A reference whose autograd gradient in input `vary` is exactly grad_reference's.

    As in check_function: grad_reference(*inputs, grad_out) is the intended backward.
    Asked with grad_out = 1 it gives the derivative; autograd then applies grad_out.
    Without a reference the values are 0: only the gradient is plotted from it.
    """

    def with_given_gradient(*args: object) -> torch.Tensor:
        x = args[vary]
        value = reference(*args).detach() if reference is not None else torch.zeros_like(x)
        given = as_tuple(grad_reference(*args, torch.ones_like(x)))
        derivative = given[vary] if len(given) == len(args) else given[0]
        return value + (x - x.detach()) * derivative.detach()

    return with_given_gradient


def plotted(value: object, x: torch.Tensor, what: str, curves: Curves) -> np.ndarray | None:
    """value as float64 numbers, one per x; a problem noted if it cannot be that."""
    value = _first_tensor(value)
    if not _is_tensor(value) or value.shape != x.shape:
        shape = tuple(value.shape) if _is_tensor(value) else type(value).__name__
        curves.problems.append(
            f"{what} gave {shape} for {tuple(x.shape)} inputs: "
            "the explorer plots element-wise Functions (one output per x)"
        )
        return None
    values = value.detach().to(torch.float64).numpy().copy()
    bad = ~np.isfinite(values)
    if bad.any():
        first = float(curves.x[np.argmax(bad)])
        curves.problems.append(
            f"{what} gave NaN or inf at {bad.sum()} of {bad.size} point(s) "
            f"(first at x = {first:.4g}); they are left out of the plot"
        )
        values[bad] = np.nan
    return values


def constant_upstream(scale: float) -> Callable[[torch.Tensor, int], torch.Tensor]:
    """grad_out of `scale` everywhere: what the scale slider sends backward."""

    def upstream(out: torch.Tensor, index: int) -> torch.Tensor:
        return torch.full_like(out, scale)

    return upstream


def _is_tensor(value: object) -> bool:
    return isinstance(value, torch.Tensor)


def _first_tensor(value: object) -> object:
    """A Function with several outputs is plotted by its first."""
    if isinstance(value, tuple):
        return next((v for v in value if _is_tensor(v)), None)
    return value
