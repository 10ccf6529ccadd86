"""explore_steps(): a log slider for the step h of a central difference, and its error's V.

For a Function (the lesson's, or your own) or a plain function, at a point x: the error
of (f(x + h) - f(x - h)) / 2h against the slope it is checked against, for every step
from 1 to 1e-15, in float32 and float64, with the error model and the model's best step
marked. Too big a step and the curve bends away; too small and rounding takes over.

The parts: step_curves.py measures, step_figure.py draws, and this module's widget
reuses the gradient explorer's machinery (explorer_widget, explorer_picture and its
front end front.js), so moving h is drawn in the browser without the kernel.
"""

import math
from collections.abc import Callable

import ipywidgets as widgets
import numpy as np
import torch

from lessons_lib.explorers.gradient.explore import checked_range
from lessons_lib.explorers.gradient.figure import WIDTH, style
from lessons_lib.explorers.gradient.widget import (
    PictureWidget,
    box_for,
    number_box,
    show_problems,
    slider_options,
    slider_row,
)
from lessons_lib.explorers.picture import Picture, pack_rows
from lessons_lib.explorers.steps.curves import (
    DECADES,
    KEYS,
    ON_GRID,
    STEPS,
    STEPS_PER_DECADE,
    StepCurves,
    StepSetup,
    autograd_slope,
    backward_slope,
    given_slope,
    measure,
    measure_step,
)
from lessons_lib.explorers.steps.figure import MARKERS, StepPlot
from lessons_lib.running.errors import InputError, NotAFunctionError
from lessons_lib.running.probe import describe_non_function, is_function

__all__ = ["StepExplorer", "explore_steps"]


class StepExplorer(PictureWidget):
    """The live step-size explorer: the picture, a message area, the h and x sliders."""

    readout_keys = KEYS

    def __init__(
        self, setup: StepSetup, x: float, x_range: tuple[float, float], step: float
    ) -> None:
        self.setup = setup
        self.plot = StepPlot(setup)
        self.curves = StepCurves(x=x)
        lo, hi = x_range
        # The point slider of the shared machinery is h: a move is drawn in the browser.
        self.point_slider = self.step_slider = widgets.FloatLogSlider(
            value=step,
            base=10,
            min=-DECADES,
            max=0,
            step=1 / STEPS_PER_DECADE,  # one stop per sample of the curves
            description="step h",
            **slider_options(),
        )
        self.x_slider = widgets.FloatSlider(
            value=x, min=lo, max=hi, step=(hi - lo) / 160, description="point x", **slider_options()
        )
        # No arrow step in the box: the slider's step is in powers of ten, not in h.
        self.step_box = number_box(step, float(STEPS[-1]), float(STEPS[0]), None, "h")
        self.x_box = box_for(self.x_slider, "x")
        self.inputs = [self.x_slider]  # a new x needs new errors, which only the kernel has
        self.picture = Picture(
            picture_style=self._style(),
            controls={
                "point": self.step_slider,
                "inputs": self.inputs,
                "boxes": [[self.step_slider, self.step_box], [self.x_slider, self.x_box]],
            },
        )
        self.message = widgets.HTML(layout=widgets.Layout(width=f"{WIDTH}px"))
        self.x_slider.observe(self._request_update, "value")
        super().__init__(
            [
                self.picture,
                self.message,
                # "explorer-point": the slider the browser draws by itself, as in explore().
                slider_row(self.step_slider, [self.step_box], "explorer-point"),
                slider_row(self.x_slider, [self.x_box], "explorer-x"),
            ]
        )
        self.add_class("step-explorer")

    def _style(self) -> dict:
        return {
            **style(MARKERS),
            "kind": "steps",
            "rows": ["x", *KEYS],
            "keys": list(KEYS),
            "xscale": "log",
            "name": self.setup.name,
            "labels": {key: key for key in KEYS},
            "note": f"The error is |central difference - {self.setup.slope_label}|.",
            "on_grid": ON_GRID,
        }

    def _measure(self) -> None:
        self.curves = measure(self.setup, self.x_slider.value)
        show_problems(
            self.message,
            self.curves.failure,
            self.curves.problems,
            f"move x, or fix {self.setup.name} and call explore_steps again",
        )

    def _meta(self) -> dict:
        best, from_model = self.curves.best, self.curves.from_model
        return {"point": self.x_slider.value, "best": best, "from_model": from_model}

    def _samples(self) -> bytes:
        missing = np.full(self.curves.h.shape, np.nan)
        return pack_rows([self.curves.h, *(self.curves.errors.get(k, missing) for k in KEYS)])

    def point_values(self) -> dict:
        """h and each dtype's error at the h slider: from the samples, else measured at h."""
        step = self.step_slider.value
        index = self.curves.index_of(step)
        if index is not None:
            return self.curves.at(index)
        if self.curves.failure is not None:
            return {"x": step, **dict.fromkeys(KEYS, math.nan)}
        return measure_step(self.setup, self.curves.x, step)

    @property
    def summary(self) -> str:
        return (
            f"Step-size explorer for {self.setup.name} at x = {self.x_slider.value:g}: drag "
            "the step h to move along the V (a static picture where widgets cannot run)."
        )

    def __repr__(self) -> str:
        return f"<step-size explorer for {self.setup.name}>"


def explore_steps(
    fn: Callable,
    x: float = 1.0,
    *,
    derivative: Callable | None = None,
    x_range: tuple[float, float] | None = None,
    h: float = 1e-4,
) -> StepExplorer:
    """A live picture of a central difference's error against its step h, at the point x.

    fn: a Function class such as Cube (your own too), or a plain function such as
        torch.sin; it must work elementwise (one output number per input number).
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
    owner = getattr(fn, "__self__", None)
    if is_function(owner) and getattr(fn, "__name__", "") == "apply":
        fn = owner  # Cube.apply: the Function it belongs to
    if derivative is not None and not callable(derivative):
        raise InputError(
            f"derivative must be a function such as lambda t: 3 * t**2, got {derivative!r}."
        )
    if is_function(fn):
        name = fn.__name__
        slope, label = backward_slope(fn), f"{name}'s backward"
        f = fn.apply
    elif isinstance(fn, type | torch.autograd.Function) or not callable(fn):
        raise NotAFunctionError(
            describe_non_function(fn, "explore_steps({})")
            + " explore_steps also takes a plain function such as torch.sin."
        )
    else:
        name = getattr(fn, "__name__", "f")
        name = "f" if name == "<lambda>" else name
        slope, label = autograd_slope(fn, name), f"autograd of {name}"
        f = fn
    if derivative is not None:
        slope, label = given_slope(derivative), "the derivative given"
    return StepSetup(f, slope, name, label)


def _number(value: object, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError, RuntimeError):
        raise InputError(f"{name} must be a number, got {value!r}.") from None
    if not math.isfinite(number):
        raise InputError(f"{name} must be a finite number, got {value!r}.")
    return number
