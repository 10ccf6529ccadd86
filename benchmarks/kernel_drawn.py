"""The gradient explorer the way it worked before its point moves were drawn in the page, for benchmarks/explorer_latency.py.

Every slider event goes to the kernel, which probes the point and sends back a new
960x600 PNG: the comparison the browser-drawn explorer's point moves are timed against.
"""

import ipywidgets as widgets

from lessons_lib.explorers.drawing import HEIGHT, WIDTH
from lessons_lib.explorers.gradient.curves import grid
from lessons_lib.explorers.gradient.drawing import Plot
from lessons_lib.explorers.gradient.explore import explore
from lessons_lib.explorers.throttle import Throttle

KERNEL_DRAWN_PNG_LEVEL = 1  # what the kernel-drawn explorer used while dragging


class KernelDrawn(widgets.VBox):
    """The explorer as it was: each slider event redrawn by the kernel and sent as a PNG."""

    def __init__(self, fn: type) -> None:
        explorer = explore(fn)  # for its checked setup; this one is never shown
        self.setup, (lo, hi) = explorer.setup, explorer.range_slider.value
        self.plot = Plot(self.setup)
        self.curves = None
        self._range = None
        self.point_slider = widgets.FloatSlider(
            value=explorer.point_slider.value, min=lo, max=hi, step=(hi - lo) / 400
        )
        self.range_slider = widgets.FloatRangeSlider(
            value=(lo, hi), min=lo - 2 * (hi - lo), max=hi + 2 * (hi - lo), step=(hi - lo) / 100
        )
        self.image = widgets.Image(
            format="png", layout=widgets.Layout(width=f"{WIDTH}px", height=f"{HEIGHT}px")
        )
        self.image.add_class("explorer-picture")
        self.point_slider.add_class("explorer-point")
        self.range_slider.add_class("explorer-range")
        self._throttle = Throttle(self.draw)
        for slider in (self.point_slider, self.range_slider):
            slider.observe(lambda change: self._throttle.request(), "value")
        super().__init__([self.image, self.point_slider, self.range_slider])
        self.add_class("kernel-drawn")
        self.draw()

    def draw(self) -> None:
        """New curves if the range changed; the point probed at exactly x; a new PNG."""
        lo, hi = self.range_slider.value
        if (lo, hi) != self._range:
            self._range = (lo, hi)
            with self.point_slider.hold_trait_notifications():
                self.point_slider.min, self.point_slider.max = lo, hi
                self.point_slider.step = (hi - lo) / 400
            self.curves = self.setup.measure(grid(lo, hi, self.setup.samples), [], 1.0)
            self.plot.draw_curves(self.curves)
        x = self.point_slider.value
        self.plot.draw_point(self.setup.measure_point(x, [], 1.0, self.curves))
        self.image.value = self.plot.png(KERNEL_DRAWN_PNG_LEVEL)
