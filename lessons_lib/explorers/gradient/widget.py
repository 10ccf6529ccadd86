"""The gradient explorer's widget: the point x, the x range, grad_out's scale and the parameters.

Layer: the kernel's widget (the shared machinery is ../base.py). The point is drawn by
the browser; the range, the scale and each parameter are inputs of the curves, which
the kernel measures again when one changes.
"""

import math

import ipywidgets as widgets
import numpy as np

from lessons_lib.explorers.base import ExplorerWidget, coarse
from lessons_lib.explorers.controls import Control, box_for, number_box, slider_options
from lessons_lib.explorers.drawing import style
from lessons_lib.explorers.gradient.curves import KEYS, ROWS, Curves, Param, Setup, grid
from lessons_lib.explorers.gradient.drawing import MARKERS, Plot
from lessons_lib.explorers.sampling import ON_GRID


class Explorer(ExplorerWidget):
    """The live explorer: a picture, a message area and the sliders, each with a number box."""

    def __init__(
        self, setup: Setup, x_range: tuple[float, float], point: float, scale: float
    ) -> None:
        self.setup = setup
        self._held = list(setup.hold)
        super().__init__(
            plot=Plot(setup),
            curves=Curves(x=np.empty(0)),
            controls=self._controls(x_range, on_a_sample(point, x_range, setup.samples), scale),
            picture_style=picture_style(setup),
            way_on=f"change the range or the sliders, or fix {setup.name} and call explore again",
        )
        self.range_slider.observe(self._on_range, "value")
        for slider in [self.scale_slider, *self.param_sliders.values()]:
            slider.observe(self.request_update, "value")

    def _controls(self, x_range: tuple[float, float], point: float, scale: float) -> list[Control]:
        """The point, the range, the scale and each parameter: a slider with its number box(es)."""
        lo, hi = x_range
        options = slider_options()
        step = point_step(lo, hi, self.setup.samples)
        self.point_slider = widgets.FloatSlider(
            value=point, min=lo, max=hi, step=step, description="x", **options
        )
        self.range_slider = range_slider(lo, hi)
        self.scale_slider = widgets.FloatSlider(
            value=scale, min=-3.0, max=3.0, step=0.1, description="grad_out scale", **options
        )
        self.param_sliders = {
            p.name: param_slider(p, self._held[self.setup.held_position(p.index)], options)
            for p in self.setup.params
        }
        self.point_box = box_for(self.point_slider, "x")
        bounds = (self.range_slider.min, self.range_slider.max, self.range_slider.step)
        self.low_box = number_box(lo, *bounds, "x from")
        self.high_box = number_box(hi, *bounds, "to")
        self.scale_box = box_for(self.scale_slider, "grad_out")
        self.param_boxes = {name: box_for(s, name) for name, s in self.param_sliders.items()}
        return [
            Control(self.point_slider, [self.point_box], "explorer-point"),
            Control(self.range_slider, [self.low_box, self.high_box], "explorer-range"),
            Control(self.scale_slider, [self.scale_box], "explorer-scale"),
        ] + [
            Control(self.param_sliders[name], [self.param_boxes[name]], "explorer-param")
            for name in self.param_sliders
        ]

    def _on_range(self, change: dict) -> None:
        lo, hi = change["new"]
        self.mark_stale()  # before the point is clamped: its values come with the new curves
        for target in (self.point_slider, self.point_box):
            with target.hold_trait_notifications():  # min may pass max until both are set
                target.min, target.max = lo, hi
                target.step = point_step(lo, hi, self.setup.samples)
        self.request_update()

    def held(self) -> list:
        """The held inputs, with the parameter sliders' current values."""
        held = list(self._held)
        for p in self.setup.params:
            held[self.setup.held_position(p.index)] = self.param_sliders[p.name].value
        return held

    def measure(self) -> Curves:
        """The curves over the range slider's x, at the scale and parameters set."""
        lo, hi = self.range_slider.value
        if not hi > lo:
            return Curves(x=np.empty(0), failure="the x range is empty: widen it")
        x = grid(lo, hi, self.setup.samples)
        return self.setup.measure(x, self.held(), self.scale_slider.value)

    def measure_at(self, x: float) -> dict:
        """x, forward, custom and true gradient at exactly x, and whether they differ."""
        return self.setup.measure_point(x, self.held(), self.scale_slider.value, self.curves)

    def meta(self) -> dict:
        return {"range": list(self.range_slider.value), "scale": self.scale_slider.value}

    def __repr__(self) -> str:
        return f"<gradient explorer for {self.setup.name}>"

    @property
    def summary(self) -> str:
        """What the picture shows, at which x, and whether backward and the truth agree there."""
        (lo, hi), at, name = self.range_slider.value, self.point_values(), self.setup.name
        truth = "intended" if self.setup.grad_reference is not None else "true"
        scale = self.scale_slider.value
        shown = (
            f"Gradient explorer for {name} on [{lo:g}, {hi:g}]: forward on top, backward against "
            f"the {truth} gradient below (grad_out = {scale:g}), at x = {at['x']:g}: "
        )
        if self.curves.failure is not None:
            return f"{shown}nothing to compare, as {self.curves.failure}."
        backward, true = coarse(at["custom"]), coarse(at["true"])
        if "unknown" in (backward, true):
            verdict = f"backward {backward} and the {truth} gradient {true} cannot be compared"
        else:
            word = "disagree" if at["differ"] else "agree"
            verdict = f"backward {backward} and the {truth} gradient {true} {word}"
        return f"{shown}forward {coarse(at['forward'])}; {verdict}."


def on_a_sample(point: float, x_range: tuple[float, float], samples: int) -> float:
    """The point on the nearest sample, as the slider's steps are (0.4 stays 0.4, not 0.3999...)."""
    lo, hi = x_range
    grid_x = Curves(x=grid(lo, hi, samples).numpy())
    if grid_x.index_of(point) is not None:
        return point
    return float(grid_x.x[round((point - lo) / (hi - lo) * (samples - 1))])


def point_step(lo: float, hi: float, samples: int) -> float:
    """One step of the point slider is one sample of the curves."""
    return max(hi - lo, 1e-9) / (samples - 1)


def range_slider(lo: float, hi: float) -> widgets.FloatRangeSlider:
    """The x range: twice as wide again on each side, in hundredths of the range."""
    width = hi - lo
    return widgets.FloatRangeSlider(
        value=(lo, hi),
        min=lo - 2 * width,
        max=hi + 2 * width,
        step=width / 100,
        description="x range",
        **slider_options(),
    )


def param_slider(p: Param, value: float, options: dict) -> widgets.FloatSlider:
    """A held number's slider, in round steps of about a two-hundredth of its span."""
    return widgets.FloatSlider(
        value=float(value),
        min=p.low,
        max=p.high,
        step=10 ** math.floor(math.log10((p.high - p.low) / 200)),
        description=p.name,
        **options,
    )


def picture_style(setup: Setup) -> dict:
    """What the browser needs to draw a point move and to say what the picture shows."""
    name = setup.name
    truth = "intended gradient" if setup.grad_reference is not None else "true gradient"
    return {
        **style(MARKERS),
        "kind": "gradient",
        "rows": list(ROWS),
        "keys": list(KEYS),
        "xscale": "linear",
        "name": name,
        "labels": {"forward": "forward", "custom": f"{name}'s backward", "true": truth},
        "note": " ".join(setup.note.split()),
        "on_grid": ON_GRID,
    }
