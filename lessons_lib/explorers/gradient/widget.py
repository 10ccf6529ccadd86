"""The explorer widget: the picture, a message area, and every slider with its number box.

A point move is the browser's business (front.js draws it from the curves it
holds); the kernel learns the new point through the slider and answers only for an x
between samples. A change of range, grad_out scale or a parameter needs the kernel,
which recomputes the curves (throttled while dragging) and sends them to the picture.
"""

import base64
import html
import math

import ipywidgets as widgets
import numpy as np

from lessons_lib.display import message_box
from lessons_lib.explorers.gradient.curves import KEYS, ON_GRID, Curves, Setup, grid
from lessons_lib.explorers.gradient.figure import STORED_PNG_LEVEL, WIDTH, Plot, style
from lessons_lib.explorers.picture import Picture, exact_values, pack
from lessons_lib.explorers.throttle import Throttle

BOX_WIDTH = 160  # pixels: the number box beside a slider; slider and box span the picture


class PictureWidget(widgets.VBox):
    """The explorers' shared kernel half: curves measured here, every point move drawn there.

    A point move needs nothing from the kernel unless the point falls between samples,
    when it answers with the exact values there; any other input marks the curves stale
    and asks for an update, throttled while a slider is dragged. The picture is also
    stored as a PNG for viewers that cannot run widgets. Subclasses set plot, picture,
    curves, point_slider and inputs before calling __init__, and give readout_keys, summary,
    _measure (new curves into self.curves), _samples, _meta and point_values.
    """

    readout_keys: tuple[str, ...] = ()  # what the picture reads at the point, in order
    summary = ""  # what a viewer without images or widgets shows

    def __init__(self, children: list[widgets.Widget]) -> None:
        self._stale = True  # an input of the curves changed since they were measured
        self._revision = 0  # counts the curves sent to the picture
        self._throttle = Throttle(self.update)
        self.point_slider.observe(self._on_point, "value")
        super().__init__(children)
        self.add_class("lessons-explorer")  # a stable hook for the browser tests and CSS
        self.update()

    def _on_point(self, change: dict) -> None:
        if not self._stale:  # else the coming update answers for the new point too
            self.picture.exact = self._exact()

    def _request_update(self, change: dict | None = None) -> None:
        self._stale = True
        self._throttle.request()

    def update(self) -> None:
        """Bring the picture up to date: if an input changed, measure and send new curves."""
        if not self._stale:
            return
        self._stale = False
        self._measure()
        self.plot.draw_curves(self.curves)
        self._revision += 1
        meta = {
            "revision": self._revision,
            "inputs": [input.value for input in self.inputs],
            **self._meta(),
            "panels": self.plot.panels(),
        }
        self.picture.show(self.plot.background_png(), self._samples(), meta, self._exact())

    def _exact(self) -> dict:
        """The values at a point between samples, for the front end; {} on a sample."""
        if self.curves.index_of(self.point_slider.value) is not None:
            return {}
        return exact_values(self.point_values(), self._revision, self.readout_keys)

    def png(self, compress_level: int = STORED_PNG_LEVEL) -> bytes:
        """The whole picture at the current point, as PNG bytes: what a static viewer shows."""
        self.update()
        self.plot.draw_point(self.point_values())
        return self.plot.png(compress_level)

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        """The widget view, plus a PNG of the picture for viewers that cannot run widgets."""
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.summary
        bundle["image/png"] = base64.b64encode(self.png()).decode("ascii")
        return bundle


class Explorer(PictureWidget):
    """The live explorer: a picture, a message area and the sliders, each with a number box."""

    readout_keys = KEYS

    def __init__(
        self, setup: Setup, x_range: tuple[float, float], point: float, scale: float
    ) -> None:
        self.setup = setup
        self.plot = Plot(setup)
        self.curves = Curves(x=np.empty(0))
        self._held = list(setup.hold)

        lo, hi = x_range
        width = hi - lo
        # The point starts on a sample, as the slider's steps do (0.4 stays 0.4, not 0.3999...).
        samples = Curves(x=grid(lo, hi, setup.samples).numpy())
        if samples.index_of(point) is None:
            point = float(samples.x[round((point - lo) / width * (setup.samples - 1))])
        slider = slider_options()
        self.point_slider = widgets.FloatSlider(
            value=point, min=lo, max=hi, step=self._point_step(lo, hi), description="x", **slider
        )
        self.range_slider = widgets.FloatRangeSlider(
            value=(lo, hi),
            min=lo - 2 * width,
            max=hi + 2 * width,
            step=width / 100,
            description="x range",
            **slider_options(boxes=2),
        )
        self.scale_slider = widgets.FloatSlider(
            value=scale, min=-3.0, max=3.0, step=0.1, description="grad_out scale", **slider
        )
        self.param_sliders = {
            p.name: widgets.FloatSlider(
                value=float(self._held[setup.held_position(p.index)]),
                min=p.low,
                max=p.high,
                step=10 ** math.floor(math.log10((p.high - p.low) / 200)),  # round values
                description=p.name,
                **slider,
            )
            for p in setup.params
        }
        self.point_box = box_for(self.point_slider, "x")
        bounds = (self.range_slider.min, self.range_slider.max, self.range_slider.step)
        self.low_box = number_box(lo, *bounds, "x from")
        self.high_box = number_box(hi, *bounds, "to")
        self.scale_box = box_for(self.scale_slider, "grad_out")
        self.param_boxes = {name: box_for(s, name) for name, s in self.param_sliders.items()}
        # Every value the curves depend on, in the order meta["inputs"] lists them: the
        # front end compares them with what the curves on screen were measured with.
        self.inputs = [self.range_slider, self.scale_slider, *self.param_sliders.values()]
        # The front end links each slider to its box(es) in the browser: a typed x is drawn
        # without a round trip to the kernel, and a typed range moves the slider at once.
        boxes = [
            [self.point_slider, self.point_box],
            [self.range_slider, self.low_box, self.high_box],
            [self.scale_slider, self.scale_box],
        ] + [[self.param_sliders[name], self.param_boxes[name]] for name in self.param_sliders]
        self.picture = Picture(
            picture_style=self._style(),
            controls={"point": self.point_slider, "inputs": self.inputs, "boxes": boxes},
        )
        self.message = widgets.HTML(layout=widgets.Layout(width=f"{WIDTH}px"))

        self.range_slider.observe(self._on_range, "value")
        for s in [self.scale_slider, *self.param_sliders.values()]:
            s.observe(self._request_update, "value")
        rows = [
            slider_row(self.point_slider, [self.point_box], "explorer-point"),
            slider_row(self.range_slider, [self.low_box, self.high_box], "explorer-range"),
            slider_row(self.scale_slider, [self.scale_box], "explorer-scale"),
        ] + [
            slider_row(self.param_sliders[name], [self.param_boxes[name]], "explorer-param")
            for name in self.param_sliders
        ]
        super().__init__([self.picture, self.message, *rows])

    def _point_step(self, lo: float, hi: float) -> float:
        """One step of the point slider is one sample of the curves."""
        return max(hi - lo, 1e-9) / (self.setup.samples - 1)

    def _style(self) -> dict:
        name = self.setup.name
        truth = "intended gradient" if self.setup.grad_reference is not None else "true gradient"
        return {
            **style(),
            "kind": "gradient",
            "rows": ["x", *KEYS, "differ"],  # as explorer_picture.pack lays them out
            "keys": list(KEYS),
            "xscale": "linear",
            "name": name,
            "labels": {"forward": "forward", "custom": f"{name}'s backward", "true": truth},
            "note": " ".join(self.setup.note.split()),
            "on_grid": ON_GRID,
        }

    def _on_range(self, change: dict) -> None:
        lo, hi = change["new"]
        self._stale = True  # before the point is clamped: its values come with the new curves
        for target in (self.point_slider, self.point_box):
            with target.hold_trait_notifications():  # min may pass max until both are set
                target.min, target.max, target.step = lo, hi, self._point_step(lo, hi)
        self._throttle.request()

    def _meta(self) -> dict:
        return {"range": list(self.range_slider.value), "scale": self.scale_slider.value}

    def _samples(self) -> bytes:
        return pack(self.curves)

    def held(self) -> list:
        """The held inputs, with the parameter sliders' current values."""
        held = list(self._held)
        for p in self.setup.params:
            held[self.setup.held_position(p.index)] = self.param_sliders[p.name].value
        return held

    def point_values(self) -> dict:
        """x, forward, custom and true gradient at the point slider, and whether they differ.

        Read from the samples when the point is on one (as the browser does), else measured.
        """
        x = self.point_slider.value
        index = self.curves.index_of(x)
        if index is not None:
            return self.curves.at(index)
        return self.setup.measure_point(x, self.held(), self.scale_slider.value, self.curves)

    def _measure(self) -> None:
        lo, hi = self.range_slider.value
        if not hi > lo:
            self.curves = Curves(x=np.empty(0), failure="the x range is empty: widen it")
        else:
            x = grid(lo, hi, self.setup.samples)
            self.curves = self.setup.measure(x, self.held(), self.scale_slider.value)
        show_problems(
            self.message,
            self.curves.failure,
            self.curves.problems,
            f"change the range or the sliders, or fix {self.setup.name} and call explore again",
        )

    def __repr__(self) -> str:
        return f"<gradient explorer for {self.setup.name}>"

    @property
    def summary(self) -> str:
        return (
            f"Gradient explorer for {self.setup.name}: drag the sliders to move along x "
            "(a static picture where widgets cannot run)."
        )


def show_problems(
    message: widgets.HTML, failure: str | None, problems: list[str], way_on: str
) -> None:
    """Fill an explorer's message area: why nothing could be drawn, or what needs attention.

    way_on: what the learner can do next, e.g. "change the sliders, or fix Cube and ...".
    Empty when all is well; the explorer-error class marks it for tests and CSS.
    """
    if failure is not None:
        body = (
            f"<p><code>{html.escape(failure)}</code></p>"
            f"<p>The sliders still work: {html.escape(way_on)}.</p>"
        )
        message.value = message_box("The explorer cannot draw everything", body, "problem")
    elif problems:
        items = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
        message.value = message_box("Something needs attention", f"<ul>{items}</ul>", "problem")
    else:
        message.value = ""
    if message.value:
        message.add_class("explorer-error")
    else:
        message.remove_class("explorer-error")


def slider_options(boxes: int = 1) -> dict:
    """What every explorer slider shares: live updates, and room for its number box(es)."""
    return {
        "continuous_update": True,
        "readout": False,  # the number box beside it shows and takes the value
        "style": {"description_width": "9em"},
        "layout": widgets.Layout(width=f"{WIDTH - boxes * BOX_WIDTH}px"),
    }


def number_box(
    value: float, low: float, high: float, step: float | None, description: str
) -> widgets.Widget:
    """A number box: type an exact value, or step it with the arrow keys."""
    return widgets.BoundedFloatText(
        value=value,
        min=low,
        max=high,
        step=step,
        description=description,
        style={"description_width": "initial"},
        layout=widgets.Layout(width=f"{BOX_WIDTH - 10}px"),
    )


def box_for(slider: widgets.FloatSlider, description: str) -> widgets.Widget:
    """The number box for a slider: the same value, bounds and step."""
    return number_box(slider.value, slider.min, slider.max, slider.step, description)


def slider_row(slider: widgets.Widget, boxes: list[widgets.Widget], name: str) -> widgets.HBox:
    """A slider and its number box(es) on one line; `name` marks it for tests and CSS."""
    slider.add_class(name)
    return widgets.HBox([slider, *boxes], layout=widgets.Layout(width=f"{WIDTH}px"))
