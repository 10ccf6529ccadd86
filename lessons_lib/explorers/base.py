"""The explorers' shared widget: curves measured in the kernel, every point move drawn there.

Layer: the kernel's widget (ipywidgets), between the drawing (drawing.py, the Agg image)
and the picture (picture.py and front/, the browser's half). A point move is the
browser's business (front/ draws it from the curves it holds); the kernel learns the
new point through the slider and answers only for a point between samples. Any other
input needs the kernel, which measures new curves (throttled while a slider is dragged)
and sends them to the picture. So does a new size: the page says how much room the
picture has, and the kernel draws the curves it holds again at that size.
"""

import base64
import html
import math
from abc import ABCMeta, abstractmethod
from typing import Protocol

import ipywidgets as widgets
import numpy as np
from traitlets import MetaHasTraits

from lessons_lib.display import message_box
from lessons_lib.explorers.controls import Control
from lessons_lib.explorers.drawing import STORED_PNG_LEVEL, WIDTH, BlitFigure, Size
from lessons_lib.explorers.picture import Picture, exact_values, pack_rows
from lessons_lib.explorers.throttle import Throttle


class Sampled(Protocol):
    """What an explorer measures: curves on a grid the point slider's steps fall on."""

    failure: str | None  # learner code raised: why nothing (or not everything) is drawn
    problems: list[str]  # what else needs attention

    def index_of(self, x: float) -> int | None:
        """The sample at the point x, or None between samples."""

    def at(self, index: int) -> dict[str, float]:
        """The point's values at one sample: "x" and each readout key."""

    def rows(self) -> list[np.ndarray]:
        """The samples as equal-length rows, in the order picture_style["rows"] names them."""


class _WidgetABCMeta(MetaHasTraits, ABCMeta):
    """A widget class with abstract methods: ipywidgets' metaclass and abc's together."""


class ExplorerWidget(widgets.VBox, metaclass=_WidgetABCMeta):
    """The picture, a message area and a row per control; an explorer says what to measure.

    The first control's slider is the point, which the browser draws by itself; every
    other slider is an input of the curves (a change marks them stale and asks for an
    update, throttled). Subclasses give measure, measure_at, meta and summary, and set
    their own state before calling __init__, which measures and draws the first curves.
    """

    def __init__(
        self,
        *,
        plot: BlitFigure,
        curves: Sampled,
        controls: list[Control],
        picture_style: dict,
        way_on: str,
    ) -> None:
        """way_on: what the learner can do when the message shows a failure, in a few words."""
        self.plot, self.curves = plot, curves
        self.way_on = way_on
        self.point_slider = controls[0].slider
        # Every value the curves depend on, in the order meta["inputs"] lists them: the
        # front end compares them with what the curves on screen were measured with.
        self.inputs = [control.slider for control in controls[1:]]
        self.picture = Picture(
            picture_style=picture_style,
            controls={
                "point": self.point_slider,
                "inputs": self.inputs,
                "boxes": [[control.slider, *control.boxes] for control in controls],
            },
        )
        self.message = widgets.HTML()
        self._stale = True  # an input of the curves changed since they were measured
        self._measured_with = []  # the inputs' values when the curves were measured
        self._revision = 0  # counts the pictures sent
        self._throttle = Throttle(self.update)
        self.point_slider.observe(self._on_point, "value")
        self.picture.observe(self._on_size, "size")
        super().__init__(
            [self.picture, self.message, *(control.row() for control in controls)],
            # As wide as the output area, up to the widest picture: rows and picture align.
            layout=widgets.Layout(max_width=f"{WIDTH}px"),
        )
        self.add_class("lessons-explorer")  # a stable hook for the browser tests and CSS
        self.update()

    @abstractmethod
    def measure(self) -> Sampled:
        """New curves for the inputs' current values."""

    @abstractmethod
    def measure_at(self, x: float) -> dict[str, float]:
        """The point's values at an x between samples, as Sampled.at gives them on one."""

    @abstractmethod
    def meta(self) -> dict:
        """What the front end needs besides the samples, e.g. the range they span."""

    @property
    @abstractmethod
    def summary(self) -> str:
        """What a viewer without images or widgets shows."""

    def mark_stale(self) -> None:
        """An input of the curves changed: the next update measures them again."""
        self._stale = True

    def request_update(self, change: dict | None = None) -> None:
        """Mark the curves stale and update, at once or (while dragging) a little later."""
        self.mark_stale()
        self._throttle.request()

    def update(self) -> None:
        """Bring the picture up to date: if an input changed, measure and send new curves."""
        if not self._stale:
            return
        self._stale = False
        self._measured_with = [synced_value(input) for input in self.inputs]
        self.curves = self.measure()
        show_problems(self.message, self.curves.failure, self.curves.problems, self.way_on)
        self._draw_and_send()

    def _draw_and_send(self) -> None:
        """Draw the curves at the picture's size and send them, with where everything sits."""
        self.plot.draw_curves(self.curves)
        self._revision += 1
        meta = {
            "revision": self._revision,
            "inputs": self._measured_with,
            **self.meta(),
            "panels": self.plot.panels(),
            "size": self.plot.size.as_dict(),
            "smallest_font": self.plot.smallest_font(),
        }
        samples = pack_rows(self.curves.rows())
        self.picture.show(self.plot.background_png(), samples, meta, self._exact())

    def _on_size(self, change: dict) -> None:
        """The page has room for another size (or another screen density): draw again."""
        size = Size.asked(change["new"])
        if size is not None and size != self.plot.size:
            self.plot.resize(size)
            self._draw_and_send()

    def point_values(self) -> dict:
        """The values at the point slider: read from the samples when the point is on one
        (as the browser does), else measured there."""
        x = self.point_slider.value
        index = self.curves.index_of(x)
        return self.curves.at(index) if index is not None else self.measure_at(x)

    def _on_point(self, change: dict) -> None:
        if not self._stale:  # else the coming update answers for the new point too
            self.picture.exact = self._exact()

    def _exact(self) -> dict:
        """The values at a point between samples, for the front end; {} on a sample."""
        if self.curves.index_of(self.point_slider.value) is not None:
            return {}
        return exact_values(self.point_values(), self._revision)

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


def synced_value(control: widgets.Widget) -> object:
    """A control's value as its front end holds it: a picker (Dropdown) syncs the index of
    its choice, not the choice, so the front end compares indices (front/render.js)."""
    if isinstance(control, widgets.widgets.widget_selection._Selection):
        return control.index
    return control.value


def coarse(value: float) -> str:
    """A measured value as the static text says it: to two decimals, so that it reads the
    same on every CPU (the notebooks' stored text is compared), "unknown" if NaN."""
    if math.isnan(value):
        return "unknown"
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


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
