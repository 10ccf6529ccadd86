"""The step explorer's widget: the step h, which the browser draws by itself, and the point x.

Layer: the kernel's widget (the shared machinery is ../base.py). Moving h moves along the
V the kernel measured; a new x needs new errors, which only the kernel can measure.
"""

import math

import ipywidgets as widgets

from lessons_lib.explorers.base import ExplorerWidget
from lessons_lib.explorers.controls import Control, box_for, number_box, slider_options
from lessons_lib.explorers.drawing import style
from lessons_lib.explorers.sampling import ON_GRID
from lessons_lib.explorers.steps.curves import (
    BEYOND_THE_MODEL,
    DECADES,
    KEYS,
    ROWS,
    STEPS,
    STEPS_PER_DECADE,
    StepCurves,
    StepSetup,
    measure,
    measure_step,
)
from lessons_lib.explorers.steps.drawing import MARKERS, StepPlot


class StepExplorer(ExplorerWidget):
    """The live step-size explorer: the picture, a message area, the h and x sliders."""

    def __init__(
        self, setup: StepSetup, x: float, x_range: tuple[float, float], step: float
    ) -> None:
        self.setup = setup
        lo, hi = x_range
        # The point slider of the shared machinery is h: a move is drawn in the browser.
        self.step_slider = widgets.FloatLogSlider(
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
        super().__init__(
            plot=StepPlot(setup),
            curves=StepCurves(x=x),
            controls=[
                # "explorer-point": the slider the browser draws by itself, as in explore().
                Control(self.step_slider, [self.step_box], "explorer-point"),
                Control(self.x_slider, [self.x_box], "explorer-x"),
            ],
            picture_style=self._style(),
            way_on=f"move x, or fix {setup.name} and call explore_steps again",
        )
        self.add_class("step-explorer")
        self.x_slider.observe(self.request_update, "value")

    def _style(self) -> dict:
        return {
            **style(MARKERS),
            "kind": "steps",
            "rows": list(ROWS),
            "keys": list(KEYS),
            "xscale": "log",
            "name": self.setup.name,
            "labels": {key: key for key in KEYS},
            "note": f"The error is |central difference - {self.setup.slope_label}|.",
            "on_grid": ON_GRID,
        }

    def measure(self) -> StepCurves:
        """Every step's error at the x slider's point."""
        return measure(self.setup, self.x_slider.value)

    def measure_at(self, h: float) -> dict[str, float]:
        """Each dtype's error at exactly step h (unknown once the curves failed)."""
        if self.curves.failure is not None:
            return {"x": h, **dict.fromkeys(KEYS, math.nan)}
        return measure_step(self.setup, self.curves.x, h)

    def meta(self) -> dict:
        best, from_model = self.curves.best, self.curves.from_model
        return {"point": self.x_slider.value, "best": best, "from_model": from_model}

    @property
    def summary(self) -> str:
        """What the picture shows, at which h, each dtype's best step and whether the error at
        h is what the model expects: coarse, so it reads the same on every CPU."""
        curves, h = self.curves, self.step_slider.value
        shown = (
            f"Step-size explorer for {self.setup.name} at x = {curves.x:g}: the error of a central "
            f"difference against {self.setup.slope_label} for steps h from 1 to 1e-15, in "
            f"float32 and float64, on log scales, at h = {h:.0e}. "
        )
        if curves.failure is not None:
            return f"{shown}Nothing was measured, as {curves.failure}."
        best = ", ".join(
            f"{key} about {curves.best[key]:.0e}"
            + ("" if curves.from_model[key] else " (the rule of thumb ε^(1/3))")
            for key in KEYS
        )
        point, index = self.point_values(), curves.index_of(h)
        far = [
            key
            for key in KEYS
            if index is not None and point[key] > BEYOND_THE_MODEL * curves.model[key][index] > 0
        ]
        verdict = (
            f"the {' and '.join(far)} {'errors are' if len(far) > 1 else 'error is'} more "
            f"than {BEYOND_THE_MODEL:g} times the "
            "model's estimate: something else dominates, such as a wrong backward"
            if far
            else f"each error is within {BEYOND_THE_MODEL:g} times the model's estimate"
        )
        return f"{shown}Best steps: {best}. At h = {h:.0e} {verdict}."

    def __repr__(self) -> str:
        return f"<step-size explorer for {self.setup.name}>"
