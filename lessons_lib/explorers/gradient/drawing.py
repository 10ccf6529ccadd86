"""How the gradient explorer is drawn: forward on top, backward against the truth below.

Layer: the kernel's Agg image (the shared machinery is ../drawing.py). The two panels'
lines are updated in place on a curve change; the point's line and markers are the
moving parts, drawn by the browser (../front/) or blitted here for the static picture.
The margins are in CSS px, the legends' column as wide as its widest legend: a narrower
picture narrows the panels only.
"""

import numpy as np
from matplotlib.axes import Axes
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
from lessons_lib.explorers.gradient.curves import Curves, Setup

MARKERS: Markers = {
    "forward": (0, PALETTE["blue"], "o", 11),
    "custom": (1, PALETTE["vermillion"], "o", 11),
    "true": (1, PALETTE["black"], "D", 7),
}
MOVING = ["vline_top", "vline_bottom", "forward_marker", "custom_marker", "true_marker"]
# CSS px: room for the y label and ticks five characters wide (-1500), the top panel's title,
# the x ticks and label, the bottom one's title between them, gaps beside the legends.
LEFT, TOP, BOTTOM, BETWEEN, GAP = 84, 30, 54, 44, 10


class Plot(BlitFigure):
    """The gradient explorer's figure: forward on top, backward against the truth below."""

    def __init__(self, setup: Setup, size: Size = FIRST_SIZE) -> None:
        self.setup = setup
        super().__init__(size)

    def build(self, size: Size) -> tuple[Figure, FigureCanvasAgg, dict]:
        """One figure, two panels, every artist created once and later updated in place."""
        return _build_figure(self.setup, size)

    def draw_curves(self, curves: Curves) -> None:
        """Put new curves into the lines and redraw the panels; the point is left out."""
        a = self.artists
        empty = np.full(curves.x.shape, np.nan)
        for key in ["forward", "reference", "custom", "true"]:
            values = getattr(curves, key)
            a[key].set_data(curves.x, empty if values is None else values)
        a["disagree"].set_data(curves.x, 0, 1, where=curves.differ())
        top, bottom = self.figure.axes
        if curves.x.size:
            top.set_xlim(curves.x[0], curves.x[-1])
        top.set_ylim(*limits(curves.forward, curves.reference))
        bottom.set_ylim(*limits(curves.custom, curves.true, include_zero=True))
        self.redraw_panels()

    def draw_point(self, point: dict[str, float]) -> None:
        """Blit the point's line and markers (x, forward, custom, true) over the curves."""
        x, a = point["x"], self.artists
        for key in ["vline_top", "vline_bottom"]:
            a[key].set_xdata([x, x])
        for key in MARKERS:
            a[f"{key}_marker"].set_data([x], [point[key]])
        self.blit(MOVING)


def limits(*arrays: np.ndarray | None, include_zero: bool = False) -> tuple[float, float]:
    """y limits that show every finite value, unless a few spikes would flatten the rest."""
    parts = [a[np.isfinite(a)] for a in arrays if a is not None]
    values = np.concatenate(parts) if parts else np.empty(0)
    if include_zero:
        values = np.append(values, 0.0)
    if values.size == 0:
        return -1.0, 1.0
    low, high = values.min(), values.max()
    q_low, q_high = np.quantile(values, [0.02, 0.98])
    spread = max(q_high - q_low, 1e-12)
    if high - low > 20 * spread:  # e.g. finite differences across a jump: ignore the spike
        low, high = q_low - spread, q_high + spread
    pad = 0.08 * (high - low) if high > low else max(1.0, abs(high) * 0.1)
    return float(low - pad), float(high + pad)


def _build_figure(setup: Setup, size: Size) -> tuple[Figure, FigureCanvasAgg, dict]:
    figure, canvas = blank_figure(size, left=LEFT, right=size.width / 2, top=TOP, bottom=BOTTOM)
    top, bottom = figure.subplots(2, 1, sharex=True)
    artists = _lines(setup, top, bottom) | moving_markers((top, bottom), MARKERS)
    artists["vline_top"], artists["vline_bottom"] = point_line(top, 0.0), point_line(bottom, 0.0)
    top.set_ylabel("output", fontsize=points(TITLE_PX))
    bottom.set_ylabel("gradient", fontsize=points(TITLE_PX))
    for ax in (top, bottom):
        ax.tick_params(labelsize=points(TEXT_PX))
        ax.grid(True, color="#dddddd")
        ax.axhline(0.0, color="#999999", lw=1)
    _titles_and_legends(figure, setup, artists, size)
    return figure, canvas, artists


def _lines(setup: Setup, top: Axes, bottom: Axes) -> dict:
    """The curves' lines and the shading where backward and the truth differ, still empty."""
    name = setup.name
    truth = "--" if setup.reference is not None or setup.grad_reference is not None else ":"
    reference_label = f"reference:\n{setup.reference_label}"
    return {
        "forward": top.plot([], [], color=PALETTE["blue"], lw=3, label=f"{name} forward")[0],
        "reference": top.plot([], [], color=PALETTE["black"], lw=2, ls="--", label=reference_label)[
            0
        ],
        "custom": bottom.plot(
            [], [], color=PALETTE["vermillion"], lw=3, label=f"{name}'s backward"
        )[0],
        "true": bottom.plot(
            [],
            [],
            color=PALETTE["black"],
            lw=2,
            ls=truth,
            label=setup.true_label.replace(" (", "\n("),
        )[0],
        "disagree": bottom.fill_between(
            [],
            [],
            [],
            transform=bottom.get_xaxis_transform(),
            color=PALETTE["orange"],
            alpha=0.3,
            hatch="//",
            lw=0,
            label="backward ≠ true gradient",
        ),
    }


def _titles_and_legends(figure: Figure, setup: Setup, a: dict, size: Size) -> None:
    """Titles, x label, legends and the preset's note, the panels narrowed to make room.

    They belong to the figure, not the panels: they never change, so they are drawn once
    into the static layer and not again on every range change.
    """
    top, bottom = figure.axes
    shown = [a["forward"], a["reference"]] if setup.reference is not None else [a["forward"]]
    legends = [
        figure.legend(handles=handles, loc="upper left", fontsize=points(TEXT_PX))
        for handles in (shown, [a["custom"], a["true"], a["disagree"]])
    ]
    note_style = {"fontsize": points(TEXT_PX), "va": "top", "gid": "note"}
    notes = [figure.text(0, 0, setup.note, **note_style)] if setup.note else []
    renderer = figure.canvas.get_renderer()
    column = max(item.get_window_extent(renderer).width for item in [*legends, *notes])
    panels = size.height - TOP - BOTTOM - BETWEEN
    figure.subplots_adjust(right=1 - (column / size.ratio + 2 * GAP) / size.width)
    figure.subplots_adjust(hspace=BETWEEN / (panels / 2))
    beside = GAP / size.width  # the legends' column starts this far right of the panels
    above = 6 / size.height  # a title sits this far above its panel
    for ax, title, legend in [
        (top, "forward: what the Function computes", legends[0]),
        (bottom, "gradient: what backward returns, and the truth", legends[1]),
    ]:
        box = ax.get_position()
        figure.text(box.x0, box.y1 + above, title, fontsize=points(TITLE_PX), va="bottom")
        legend.set_bbox_to_anchor((box.x1 + beside, box.y1), transform=figure.transFigure)
    box = bottom.get_position()
    # The note under the bottom legend, however many lines the legend took; it may reach
    # into the margin below the panels, where only the x axis' label is, centred under them.
    under = legends[1].get_window_extent(renderer)
    left, top = figure.transFigure.inverted().transform((under.x0, under.y0))
    for note in notes:
        note.set_position((left, top - 4 / size.height))
    label = figure.text(
        (box.x0 + box.x1) / 2,
        4 / size.height,
        f"x (input {setup.vary} of {setup.name}; the others held)" if setup.hold else "x",
        fontsize=points(TITLE_PX),
        ha="center",
        va="bottom",
    )
    if label.get_window_extent(renderer).x0 < 4 * size.ratio:  # wider than narrow panels
        label.set_horizontalalignment("left")
        label.set_x(4 / size.width)
