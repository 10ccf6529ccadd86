"""What the step-size explorer measures: a central difference's error against its step h.

For f and a point x, at every step h of a log grid, in float32 and in float64: how far
the central difference (f(x + h) - f(x - h)) / 2h lands from the slope it is checked
against (a Function's own backward, run in float64 at x as stored in each dtype, or a
derivative you give), beside finite_differences' error model and the step the model
calls best. Here the model's round-off term scales with |f| + |x f'|: the rounding of
f's values and of x ± h itself, so it also holds near a zero of f and at large |x|.
Layer: plain numbers, no widgets. Learner code runs through finite_differences and
lessons_lib.running, so a broken Function becomes a message, never a traceback.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from lessons_lib.explorers.sampling import sample_index
from lessons_lib.finite_differences import (
    best_step,
    error_model,
    model_best_step,
    smooth_derivatives,
    step_errors,
)
from lessons_lib.running import LessonError, engine_run, first_line, preserved_global_state, vjp

STEPS_PER_DECADE = 4
DECADES = 15
# 1 down to 1e-15, four per decade: the h slider's stops, so every stop is a sample.
STEPS = np.array([10 ** (-k / STEPS_PER_DECADE) for k in range(DECADES * STEPS_PER_DECADE + 1)])
DTYPES = {"float32": torch.float32, "float64": torch.float64}
KEYS = tuple(DTYPES)  # what the readout shows at a step, in order
ROWS = ("x", *KEYS)  # the samples the picture gets, in order (StepCurves.rows); x is h
# An error this many times the model's estimate is beyond it: something else dominates.
BEYOND_THE_MODEL = 10.0


@dataclass(frozen=True)
class StepSetup:
    """What to difference and what to check it against, fixed when explore_steps is called."""

    f: Callable[[Tensor], Tensor]  # elementwise: fn.apply, or a plain function
    slope: Callable[[Tensor], Tensor]  # the slope at a float64 point: backward, or given
    name: str  # how the picture names f
    slope_label: str  # how the picture names the slope, e.g. "Cube's backward"


@dataclass
class StepCurves:
    """The errors at every step of the grid for one point x (NaN where unknown)."""

    x: float
    h: np.ndarray = field(default_factory=lambda: STEPS.copy())
    errors: dict[str, np.ndarray] = field(default_factory=dict)  # per dtype name
    model: dict[str, np.ndarray] = field(default_factory=dict)  # finite_differences' model
    best: dict[str, float] = field(default_factory=dict)  # the step marked best, per dtype
    # Per dtype: is `best` the model's optimum? If not, it is the rule of thumb eps^(1/3),
    # and `no_optimum` says why the model has none (which way it points, or that it is out).
    from_model: dict[str, bool] = field(default_factory=dict)
    no_optimum: dict[str, str] = field(default_factory=dict)
    value: float = math.nan  # f(x), in float64
    slope: float = math.nan  # what the difference is checked against, at x
    third: float = math.nan  # f'''(x), estimated; 0 when it is lost in round-off
    failure: str | None = None  # f or the slope raised: nothing to plot
    problems: list[str] = field(default_factory=list)

    def index_of(self, h: float) -> int | None:
        """The sample at step h, or None between samples: compared in log10, as a log slider steps."""
        return sample_index(np.log10(self.h), math.log10(h)) if h > 0 else None

    def at(self, index: int) -> dict[str, float]:
        """h and each dtype's error at one sample."""
        values = {
            key: float(self.errors[key][index]) if key in self.errors else math.nan for key in KEYS
        }
        return {"x": float(self.h[index]), **values}

    def rows(self) -> list[np.ndarray]:
        """The samples as ROWS names them: h, then each dtype's error (NaN where unknown)."""
        missing = np.full(self.h.shape, np.nan)
        return [self.h, *(self.errors.get(key, missing) for key in KEYS)]


def backward_slope(fn: type) -> Callable[[Tensor], Tensor]:
    """The slope fn's backward gives at a point, through the engine, as training sees it."""

    def slope(point: Tensor) -> Tensor:
        run = engine_run(fn, (point,))
        if run.failure is not None:
            raise LessonError(f"{fn.__name__}'s {run.failure}")
        if run.refused is not None:
            raise LessonError(
                f"autograd refused what {fn.__name__}'s backward returned: {run.refused}"
            )
        return _checked(run.grads[0], point, f"{fn.__name__}'s backward")

    return slope


def autograd_slope(f: Callable[[Tensor], Tensor], name: str) -> Callable[[Tensor], Tensor]:
    """The slope autograd finds for a plain function at a point."""

    def slope(point: Tensor) -> Tensor:
        run = vjp(f, (point,))
        if run.failure is not None:
            raise LessonError(f"{name}: the {run.failure}")
        return _checked(run.grads[0], point, f"autograd of {name}")

    return slope


def given_slope(derivative: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """The slope from a derivative you give, e.g. lambda x: 3 * x**2."""

    def slope(point: Tensor) -> Tensor:
        try:
            with torch.no_grad():
                value = derivative(point)
        except Exception as e:
            what = f"{type(e).__name__}: {first_line(e)}"
            raise LessonError(f"the derivative you gave raised {what}") from e
        return _checked(value, point, "the derivative you gave")

    return slope


def _checked(value: object, point: Tensor, what: str) -> Tensor:
    """value as one float64 number shaped like the point, or a LessonError saying what it was."""
    if not isinstance(value, Tensor) or value.shape != point.shape:
        got = f"shape {tuple(value.shape)}" if isinstance(value, Tensor) else type(value).__name__
        raise LessonError(
            f"{what} gave {got} for one number: the step-size explorer checks elementwise "
            "Functions (one output per input number)"
        )
    return value.detach().to(torch.float64)


def measure(setup: StepSetup, x: float) -> StepCurves:
    """Every step's error in float32 and float64 at x, the model beside it, and the best steps."""
    curves = StepCurves(x=x)
    try:
        with preserved_global_state():
            point = torch.tensor([x], dtype=torch.float64)
            curves.slope = setup.slope(point).item()
            curves.value = _value(setup, point)
            for key, dtype in DTYPES.items():
                curves.errors[key] = np.array(step_errors(setup.f, setup.slope, x, curves.h, dtype))
            if not math.isfinite(curves.value):
                raise LessonError(f"{setup.name} gives {curves.value} at x = {x:g}: move x")
            derivatives = smooth_derivatives(setup.f, x)
            scales = {key: _roundoff_scale(setup, x, curves.slope, d) for key, d in DTYPES.items()}
    except LessonError as e:
        curves.failure = str(e)
        return curves
    _note_non_finite(curves)
    if not any((errors > 0).any() for errors in curves.errors.values()):
        curves.problems.append(
            f"every error is exactly 0 at x = {x:g}: the difference hits the slope at every "
            "step, and a log scale cannot show 0"
        )
    if derivatives is None:
        curves.problems.append(
            f"f is not smooth at x = {x:g} (a kink or a jump at or near it): the model is left "
            "out. At a kink the central difference averages the slopes on either side, which "
            "need not be the one backward returns: a floor there is not a wrong backward."
        )
    curves.third = math.nan if derivatives is None else derivatives[1]
    for key, dtype in DTYPES.items():
        size, third = scales[key], abs(curves.third)
        usable = derivatives is not None and math.isfinite(size)
        curves.model[key] = np.array(
            [error_model(h, dtype, size, third) if usable else math.nan for h in curves.h]
        )
        curves.from_model[key] = usable and size > 0 and third > 0
        if curves.from_model[key]:
            curves.best[key] = model_best_step(dtype, size, third)
        else:
            curves.best[key] = best_step(dtype)
            curves.no_optimum[key] = _why_no_optimum(usable, size, third)
    _note_beyond_the_model(curves)
    return curves


def _why_no_optimum(usable: bool, size: float, third: float) -> str:
    """Why the model marks no best step, in a few words for the legend."""
    if not usable:
        return "no model at a kink"
    if third == 0 and size > 0:
        return "f''' = 0: the model favours larger h"
    if size == 0 and third > 0:
        return "no round-off at x: the model favours smaller h"
    return "the model is 0 here"


def measure_step(setup: StepSetup, x: float, h: float) -> dict[str, float]:
    """Each dtype's error at exactly step h: for a typed h between the grid's samples."""
    values = {}
    try:
        with preserved_global_state():
            for key, dtype in DTYPES.items():
                (values[key],) = step_errors(setup.f, setup.slope, x, [h], dtype)
    except LessonError:
        values = dict.fromkeys(KEYS, math.nan)
    return {
        "x": h,
        **{key: values[key] if math.isfinite(values[key]) else math.nan for key in KEYS},
    }


def _value(setup: StepSetup, point: Tensor) -> float:
    with torch.no_grad():
        try:
            value = setup.f(point)
        except Exception as e:
            raise LessonError(f"{setup.name} raised {type(e).__name__}: {first_line(e)}") from e
    return _checked(value, point, setup.name).item()


def _roundoff_scale(setup: StepSetup, x: float, slope: float, dtype: torch.dtype) -> float:
    """|f| + |x f'| at x as stored in dtype: what rounding f(x ± h) and x ± h scales with."""
    stored = torch.tensor([x], dtype=dtype).to(torch.float64)
    return abs(_value(setup, stored)) + abs(stored.item() * slope)


def _note_beyond_the_model(curves: StepCurves, factor: float = BEYOND_THE_MODEL) -> None:
    """Name the steps where the error is far above the model: something else dominates there."""
    for key, errors in curves.errors.items():
        model = curves.model[key]
        with np.errstate(invalid="ignore"):
            far = (model > 0) & (errors > factor * model)
        if far.any():
            steps = curves.h[far]
            curves.problems.append(
                f"in {key} the error is more than {factor:g} times the model's estimate at "
                f"{far.sum()} of {far.size} steps (h from {steps.min():.0e} to {steps.max():.0e}): "
                "something the model leaves out dominates there, such as a wrong backward, or a "
                "kink, a jump or the edge of f's domain within h of x"
            )


def _note_non_finite(curves: StepCurves) -> None:
    for key, errors in curves.errors.items():
        bad = ~np.isfinite(errors)
        if bad.any():
            curves.problems.append(
                f"in {key}, the difference was NaN or inf at {bad.sum()} of {bad.size} steps "
                "(the largest first); they are left out of the plot"
            )
            errors[bad] = np.nan
