"""How the surrogate explorer is drawn: the step on top; below, backward, the family's bump
and the true gradient.

Layer: the kernel's Agg image (the shared machinery is ../drawing.py). The lines change
in place on a curve change; the point's line and markers are the moving parts, drawn by
the browser (../front/) or blitted here for the static picture. The bottom panel's title
names the shape and width picked, so it is the panel's own (redrawn with it).
"""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lessons_lib.display import PALETTE
from lessons_lib.explorers.drawing import (
    FIRST_SIZE,
    TEXT_PX,
    TITLE_PX,
    BlitFigure,
    Markers,
    Size,
    blank_figure,
    moving_markers,
    point_line,
    points,
)
from lessons_lib.explorers.surrogate.curves import Choice, SurrogateCurves

MARKERS: Markers = {
    "forward": (0, PALETTE["blue"], "o", 11),
    "backward": (1, PALETTE["vermillion"], "o", 11),
    "family": (1, PALETTE["orange"], "s", 8),
    "true": (1, PALETTE["black"], "D", 7),
}
MOVING = ["vline_top", "vline_bottom", *(f"{key}_marker" for key in MARKERS)]
# CSS px: room for the y label and ticks, the titles above each panel, the x label below.
LEFT, TOP, BOTTOM, BETWEEN, GAP = 84, 30, 54, 44, 10


class SurrogatePlot(BlitFigure):
    """Two panels: forward on top; backward, the family's bump and the truth below."""

    def __init__(self, name: str, own: bool, size: Size = FIRST_SIZE) -> None:
        self.name, self.own = name, own
        self.choice = Choice("fast-sigmoid", 0.0, 0.5)  # until the first curves come
        super().__init__(size)

    def build(self, size: Size) -> tuple[Figure, FigureCanvasAgg, dict]:
        return _build_figure(self.name, self.own, size)

    def draw_curves(self, curves: SurrogateCurves) -> None:
        """New curves into the lines; the jump's line; the bottom title names the choice."""
        a, top, bottom = self.artists, *self.figure.axes
        empty = np.full(curves.x.shape, np.nan)
        for key in ("forward", "backward", "family", "true"):
            values = getattr(curves, key)
            a[key].set_data(curves.x, empty if values is None else values)
        a["jump"].set_xdata([curves.jump, curves.jump])
        if curves.x.size:
            top.set_xlim(curves.x[0], curves.x[-1])
        top.set_ylim(-0.2, 1.2)
        bottom.set_ylim(*gradient_limits(curves.backward, curves.family))
        c = self.choice
        bottom.set_title(
            f"gradient: {c.shape} bump, width {c.width:g}, threshold {c.threshold:g}",
            fontsize=points(TITLE_PX),
            loc="left",
        )
        self.redraw_panels()

    def draw_point(self, point: dict[str, float]) -> None:
        """Blit the point's line and markers over the curves."""
        x, a = point["x"], self.artists
        for key in ("vline_top", "vline_bottom"):
            a[key].set_xdata([x, x])
        for key in MARKERS:
            a[f"{key}_marker"].set_data([x], [point[key]])
        self.blit(MOVING)


def gradient_limits(*arrays: np.ndarray | None) -> tuple[float, float]:
    """y limits that show every finite value and 0, however tall a narrow bump stands."""
    parts = [a[np.isfinite(a)] for a in arrays if a is not None]
    values = np.concatenate([np.zeros(1), *parts])
    low, high = float(values.min()), float(values.max())
    pad = 0.08 * (high - low) if high > low else 1.0
    return low - pad, high + pad


def _build_figure(name: str, own: bool, size: Size) -> tuple[Figure, FigureCanvasAgg, dict]:
    figure, canvas = blank_figure(size, left=LEFT, right=size.width / 2, top=TOP, bottom=BOTTOM)
    top, bottom = figure.subplots(2, 1, sharex=True)
    backward = f"{name}'s backward" if own else "backward (the spike's surrogate)"
    a = {
        "forward": top.plot([], [], color=PALETTE["blue"], lw=3, label=f"{name}'s forward")[0],
        "backward": bottom.plot([], [], color=PALETTE["vermillion"], lw=4, label=backward)[0],
        "family": bottom.plot(
            [], [], color=PALETTE["orange"], lw=2, ls="--", label="the shape picked\n(its bump)"
        )[0],
        "true": bottom.plot([], [], color=PALETTE["black"], lw=2, label="true gradient: 0")[0],
        "jump": bottom.axvline(
            0.0, color=PALETTE["black"], lw=1.5, ls=":", label="the jump:\nno gradient there"
        ),
    }
    a |= moving_markers((top, bottom), MARKERS)
    a["vline_top"], a["vline_bottom"] = point_line(top, 0.0), point_line(bottom, 0.0)
    top.set_ylabel("output", fontsize=points(TITLE_PX))
    bottom.set_ylabel("gradient", fontsize=points(TITLE_PX))
    for ax in (top, bottom):
        ax.tick_params(labelsize=points(TEXT_PX))
        ax.grid(True, color="#dddddd")
    legends = [
        figure.legend(handles=handles, loc="upper left", fontsize=points(TEXT_PX))
        for handles in ([a["forward"]], [a["backward"], a["family"], a["true"], a["jump"]])
    ]
    renderer = canvas.get_renderer()
    column = max(legend.get_window_extent(renderer).width for legend in legends)
    panels = size.height - TOP - BOTTOM - BETWEEN
    figure.subplots_adjust(right=1 - (column / size.ratio + 2 * GAP) / size.width)
    figure.subplots_adjust(hspace=BETWEEN / (panels / 2))
    box = top.get_position()
    figure.text(
        box.x0,
        box.y1 + 6 / size.height,
        "forward: the step, 0 below the threshold, 1 from it on",
        fontsize=points(TITLE_PX),
        va="bottom",
    )
    for ax, legend in zip((top, bottom), legends, strict=True):
        box = ax.get_position()
        legend.set_bbox_to_anchor((box.x1 + GAP / size.width, box.y1), figure.transFigure)
    box = bottom.get_position()
    figure.text((box.x0 + box.x1) / 2, 4 / size.height, "x", fontsize=points(TITLE_PX), ha="center")
    return figure, canvas, a
