"""explore_steps(): a log slider for the step h of a central difference, and its error's V.

For a Function (the lesson's, or your own) or a plain function, at a point x: the error
of (f(x + h) - f(x - h)) / 2h against the slope it is checked against, for every step
from 1 to 1e-15, in float32 and float64, with the error model and the model's best step
marked. Too big a step and the curve bends away; too small and rounding takes over.

This module is the front door: explore_steps() checks its arguments. The parts, one
idea each, beside the gradient explorer's and sharing the explorers' base (../):

- curves.py    what is measured: each step's error, the model and the best steps
- drawing.py   how it is drawn (one log-log Agg panel; the static picture for viewers)
- widget.py    the widget: the h and x sliders and their number boxes (../base.py), so
               moving h is drawn in the browser (../picture.py, ../front/) without the kernel
"""

import math
from collections.abc import Callable

import numpy as np
import torch

from lessons_lib.explorers.arguments import checked_range, function_to_explore
from lessons_lib.explorers.steps.curves import (
    STEPS,
    StepSetup,
    autograd_slope,
    backward_slope,
    given_slope,
)
from lessons_lib.explorers.steps.widget import StepExplorer
from lessons_lib.running import InputError, as_function
from lessons_lib.running.arguments import MISSING

__all__ = ["StepExplorer", "explore_steps"]

PLAIN_TOO = " explore_steps also takes a plain function such as torch.sin."


def explore_steps(
    fn: Callable = MISSING,
    x: float = 1.0,
    *,
    derivative: Callable | None = None,
    x_range: tuple[float, float] | None = None,
    h: float = 1e-4,
) -> StepExplorer:
    """A live picture of a central difference's error against its step h, at the point x.

    fn: a Function class such as Cube (or Cube.apply; your own too), or a plain function
        such as torch.sin; it must work elementwise (one output number per input number).
    derivative: the true slope, e.g. lambda t: 3 * t**2. Without it, the difference is
        checked against what gradcheck checks it against: fn's own backward (for a plain
        function, autograd's gradient). A wrong backward shows as a floor: near the best
        step the error stays at the size of the mistake.
    x_range: the x slider's range (by default -4 to 4, widened to include x).
    h: the step the slider starts at, from 1e-15 to 1 (snapped to the slider's stops).
    """
    setup = _setup(fn, derivative)
    x = _number(x, "x")
    lo, hi = (min(-4.0, x - 1), max(4.0, x + 1)) if x_range is None else checked_range(x_range)
    if not lo <= x <= hi:
        raise InputError(f"x = {x:g} lies outside x_range ({lo:g}, {hi:g}).")
    step = _number(h, "h")
    if not STEPS[-1] <= step <= STEPS[0]:
        raise InputError(f"h must be between 1e-15 and 1, got {h!r}.")
    step = float(STEPS[np.argmin(np.abs(np.log10(STEPS) - math.log10(step)))])
    return StepExplorer(setup, x, (lo, hi), step)


def _setup(fn: object, derivative: object) -> StepSetup:
    """What to difference and what to check it against, with plain messages for bad input."""
    if derivative is not None and not callable(derivative):
        raise InputError(
            f"derivative must be a function such as lambda t: 3 * t**2, got {derivative!r}."
        )
    if as_function(fn) is None and _plain_function(fn):
        name = getattr(fn, "__name__", "f")
        name = "f" if name == "<lambda>" else name
        slope, label, f = autograd_slope(fn, name), f"autograd of {name}", fn
    else:  # Cube or Cube.apply alike; anything else refused as explore() refuses it
        function = function_to_explore(fn, "explore_steps({})", PLAIN_TOO)
        name = function.__name__
        slope, label, f = backward_slope(function), f"{name}'s backward", function.apply
    if derivative is not None:
        slope, label = given_slope(derivative), "the derivative given"
    return StepSetup(f, slope, name, label)


def _plain_function(fn: object) -> bool:
    """A callable that is neither a class nor a Function instance, such as torch.sin."""
    return callable(fn) and not isinstance(fn, type | torch.autograd.Function)


def _number(value: object, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError, RuntimeError):
        raise InputError(f"{name} must be a number, got {value!r}.") from None
    if not math.isfinite(number):
        raise InputError(f"{name} must be a finite number, got {value!r}.")
    return number
