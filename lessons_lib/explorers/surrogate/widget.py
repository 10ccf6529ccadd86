"""The surrogate explorer's widget: the point x, the threshold, the width and the shape.

Layer: the kernel's widget (the shared machinery is ../base.py). The point is drawn by
the browser; the threshold, the width and the shape picker are inputs of the curves,
which the kernel measures again when one changes.
"""

import ipywidgets as widgets
import numpy as np

from lessons_lib.explorers.base import ExplorerWidget, coarse
from lessons_lib.explorers.controls import Control, box_for, slider_options
from lessons_lib.explorers.drawing import style
from lessons_lib.explorers.gradient.widget import on_a_sample, point_step
from lessons_lib.explorers.sampling import ON_GRID
from lessons_lib.explorers.surrogate.curves import (
    KEYS,
    ROWS,
    Choice,
    SurrogateCurves,
    measure,
    measure_point,
    sample_grid,
)
from lessons_lib.explorers.surrogate.drawing import MARKERS, SurrogatePlot
from lessons_lib.surrogate_gradients import SHAPES

SAMPLES = 401
WIDTHS = (0.01, 2.0)  # the width slider's span, widened to hold the width asked for


class SurrogateExplorer(ExplorerWidget):
    """The live surrogate explorer: the picture, a message area, the sliders and the picker."""

    def __init__(
        self, own: type | None, choice: Choice, x_range: tuple[float, float], point: float
    ) -> None:
        self.own, self.x_range = own, x_range
        self.name = own.__name__ if own is not None else "the spike"
        super().__init__(
            plot=SurrogatePlot(self.name, own is not None),
            curves=SurrogateCurves(x=np.empty(0)),
            controls=self._controls(choice, point),
            picture_style=self._style(),
            way_on=f"pick another shape, or fix {self.name} and call explore_surrogate again",
        )
        self.add_class("surrogate-explorer")
        for control in (self.threshold_slider, self.width_slider, self.shape_picker):
            control.observe(self.request_update, "value")

    def _controls(self, choice: Choice, point: float) -> list[Control]:
        lo, hi = self.x_range
        options, step = slider_options(), point_step(lo, hi, SAMPLES)
        self.point_slider = widgets.FloatSlider(
            value=on_a_sample(point, self.x_range, SAMPLES),
            min=lo,
            max=hi,
            step=step,
            description="x",
            **options,
        )
        self.threshold_slider = widgets.FloatSlider(
            value=on_a_sample(choice.threshold, self.x_range, SAMPLES),
            min=lo,
            max=hi,
            step=step,
            description="threshold",
            **options,
        )
        self.width_slider = widgets.FloatSlider(
            value=choice.width,
            min=min(WIDTHS[0], choice.width),
            max=max(WIDTHS[1], choice.width),
            step=0.01,
            description="width",
            **options,
        )
        self.shape_picker = widgets.Dropdown(
            options=list(SHAPES),
            value=choice.shape,
            description="shape",
            style={"description_width": "9em"},
            layout=widgets.Layout(width="auto"),
        )
        return [
            Control(self.point_slider, [box_for(self.point_slider, "x")], "explorer-point"),
            Control(
                self.threshold_slider,
                [box_for(self.threshold_slider, "threshold")],
                "explorer-threshold",
            ),
            Control(self.width_slider, [box_for(self.width_slider, "width")], "explorer-width"),
            Control(self.shape_picker, [], "explorer-shape"),
        ]

    def _style(self) -> dict:
        backward = f"{self.name}'s backward" if self.own is not None else "backward"
        return {
            **style(MARKERS),
            "kind": "surrogate",
            "rows": list(ROWS),
            "keys": list(KEYS),
            "xscale": "linear",
            "name": self.name,
            "own": self.own is not None,
            "labels": {
                "forward": "forward",
                "backward": backward,
                "family": "the shape picked",
                "true": "true gradient",
            },
            "note": "",
            "on_grid": ON_GRID,
        }

    @property
    def choice(self) -> Choice:
        """The shape, threshold and width the controls set."""
        return Choice(self.shape_picker.value, self.threshold_slider.value, self.width_slider.value)

    def measure(self) -> SurrogateCurves:
        self.plot.choice = self.choice
        return measure(self.own, sample_grid(*self.x_range, SAMPLES), self.choice)

    def measure_at(self, x: float) -> dict[str, float]:
        return measure_point(self.own, x, self.choice, self.curves.jump)

    def meta(self) -> dict:
        c = self.choice
        return {
            "range": list(self.x_range),
            "shape": c.shape,
            "threshold": c.threshold,
            "width": c.width,
            "jump": self.curves.jump,
        }

    def __repr__(self) -> str:
        return f"<surrogate explorer for {self.name}>"

    @property
    def summary(self) -> str:
        """What the picture shows and the values at the point, coarse: the same on every CPU."""
        c, at = self.choice, self.point_values()
        shown = (
            f"Surrogate explorer for {self.name} on [{self.x_range[0]:g}, {self.x_range[1]:g}]: "
            f"the step forwards on top; below, backward, the {c.shape} bump (width {c.width:g}, "
            f"threshold {c.threshold:g}) and the true gradient, 0 everywhere, none at the jump "
            f"(x = {self.curves.jump:g}). At x = {at['x']:g}: "
        )
        if self.curves.failure is not None:
            return f"{shown}nothing to compare, as {self.curves.failure}."
        true = "none (the jump)" if np.isnan(at["true"]) else coarse(at["true"])
        return (
            f"{shown}forward {coarse(at['forward'])}, backward {coarse(at['backward'])}, "
            f"the {c.shape} bump {coarse(at['family'])}, true gradient {true}."
        )
