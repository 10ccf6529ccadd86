"""What the step-size explorer measures: a central difference's error against its step h.

For f and a point x, at every step h of a log grid, in float32 and in float64: how far
the central difference (f(x + h) - f(x - h)) / 2h lands from the slope it is checked
against (a Function's own backward, as gradcheck does, or a derivative you give), beside
finite_differences' error model and the step the model calls best. Learner code runs
through finite_differences and probe, so a broken Function becomes a message, never a
traceback.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from lessons_lib.errors import LessonError
from lessons_lib.finite_differences import (
    best_step,
    error_model,
    model_best_step,
    step_errors,
    third_difference,
)
from lessons_lib.probe import engine_run, preserved_global_state, vjp

STEPS_PER_DECADE = 4
DECADES = 15
# 1 down to 1e-15, four per decade: the h slider's stops, so every stop is a sample.
STEPS = np.array([10 ** (-k / STEPS_PER_DECADE) for k in range(DECADES * STEPS_PER_DECADE + 1)])
DTYPES = {"float32": torch.float32, "float64": torch.float64}
KEYS = tuple(DTYPES)  # what the readout shows at a step, in order
# A step is on the grid when its log10 is this close to a sample's, relative to the grid's
# width in decades: far below a slider stop, far above a log slider's rounding.
ON_GRID = 1e-9
# f''' is taken as 0 when it is within this factor of its own round-off (third_difference):
# a quadratic's estimate is noise, and a model built on noise marks a meaningless optimum.
NOISE_FACTOR = 100


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
    best_from_model: bool = False  # False: the model has no optimum here; best is eps^(1/3)
    value: float = math.nan  # f(x), in float64
    slope: float = math.nan  # what the difference is checked against, at x
    third: float = math.nan  # f'''(x), estimated; 0 when it is lost in round-off
    failure: str | None = None  # f or the slope raised: nothing to plot
    problems: list[str] = field(default_factory=list)

    def index_of(self, h: float) -> int | None:
        """The sample at step h, or None between samples: compared in log10, as a log slider steps."""
        if not h > 0 or self.h.size < 2:
            return None
        logs = np.log10(self.h)
        first, width = float(logs[0]), float(logs[-1] - logs[0])
        index = round((math.log10(h) - first) / width * (self.h.size - 1))
        close = 0 <= index < self.h.size and abs(logs[index] - math.log10(h)) <= ON_GRID * abs(
            width
        )
        return index if close else None

    def at(self, index: int) -> dict[str, float]:
        """h and each dtype's error at one sample."""
        values = {
            key: float(self.errors[key][index]) if key in self.errors else math.nan for key in KEYS
        }
        return {"x": float(self.h[index]), **values}


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
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            raise LessonError(f"the derivative you gave raised {type(e).__name__}: {first}") from e
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
            curves.third = _third_derivative(setup, x, curves.value)
    except LessonError as e:
        curves.failure = str(e)
        return curves
    _note_non_finite(curves)
    usable = math.isfinite(curves.value) and math.isfinite(curves.third)
    curves.best_from_model = usable and curves.value != 0 and curves.third != 0
    for key, dtype in DTYPES.items():
        size, third = (abs(curves.value), abs(curves.third)) if usable else (0.0, 0.0)
        curves.model[key] = np.array([error_model(h, dtype, size, third) for h in curves.h])
        curves.best[key] = (
            model_best_step(dtype, size, third) if curves.best_from_model else best_step(dtype)
        )
    return curves


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
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            raise LessonError(f"{setup.name} raised {type(e).__name__}: {first}") from e
    return _checked(value, point, setup.name).item()


def _third_derivative(setup: StepSetup, x: float, value: float) -> float:
    """|f'''(x)| estimated in float64, or 0 when the estimate is no bigger than its round-off."""
    h = 0.01 * max(1.0, abs(x))
    third = third_difference(setup.f, x, h)
    noise = NOISE_FACTOR * 3 * torch.finfo(torch.float64).eps * max(abs(value), 1e-300) / h**3
    return 0.0 if abs(third) <= noise else third


def _note_non_finite(curves: StepCurves) -> None:
    for key, errors in curves.errors.items():
        bad = ~np.isfinite(errors)
        if bad.any():
            curves.problems.append(
                f"in {key}, the difference was NaN or inf at {bad.sum()} of {bad.size} steps "
                "(the largest first); they are left out of the plot"
            )
            errors[bad] = np.nan
