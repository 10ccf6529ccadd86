"""How the gradient explorer is drawn: forward on top, backward against the truth below.

Layer: the kernel's Agg image (the shared machinery is ../drawing.py). The two panels'
lines are updated in place on a curve change; the point's line and markers are the
moving parts, drawn by the browser (../front.js) or blitted here for the static picture.
"""

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lessons_lib.display import PALETTE
from lessons_lib.explorers.drawing import (
    FONT,
    BlitFigure,
    Markers,
    blank_figure,
    moving_markers,
    point_line,
)
from lessons_lib.explorers.gradient.curves import Curves, Setup

MARKERS: Markers = {
    "forward": (0, PALETTE["blue"], "o", 11),
    "custom": (1, PALETTE["vermillion"], "o", 11),
    "true": (1, PALETTE["black"], "D", 7),
}
MOVING = ["vline_top", "vline_bottom", "forward_marker", "custom_marker", "true_marker"]


class Plot(BlitFigure):
    """The gradient explorer's figure: forward on top, backward against the truth below."""

    def __init__(self, setup: Setup) -> None:
        super().__init__(*_build_figure(setup))

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


def _build_figure(setup: Setup) -> tuple[Figure, FigureCanvasAgg, dict]:
    """One figure, two panels, every artist created once and later updated in place."""
    figure, canvas = blank_figure(left=0.08, right=0.64, top=0.93, bottom=0.1, hspace=0.4)
    top, bottom = figure.subplots(2, 1, sharex=True)
    artists = _lines(setup, top, bottom) | moving_markers((top, bottom), MARKERS)
    artists["vline_top"], artists["vline_bottom"] = point_line(top, 0.0), point_line(bottom, 0.0)
    top.set_ylabel("output", fontsize=FONT)
    bottom.set_ylabel("gradient", fontsize=FONT)
    for ax in (top, bottom):
        ax.tick_params(labelsize=FONT - 2)
        ax.grid(True, color="#dddddd")
        ax.axhline(0.0, color="#999999", lw=1)
    _titles_and_legends(figure, setup, artists)
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


def _titles_and_legends(figure: Figure, setup: Setup, a: dict) -> None:
    """Titles, x label, legends and the preset's note.

    They belong to the figure, not the panels: they never change, so they are drawn once
    into the static layer and not again on every range change.
    """
    top, bottom = figure.axes
    shown = [a["forward"], a["reference"]] if setup.reference is not None else [a["forward"]]
    for ax, title, handles in [
        (top, "forward: what the Function computes", shown),
        (
            bottom,
            "gradient: what backward returns, and the truth",
            [a["custom"], a["true"], a["disagree"]],
        ),
    ]:
        box = ax.get_position()
        figure.text(box.x0, box.y1 + 0.015, title, fontsize=FONT, va="bottom")
        figure.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(box.x1 + 0.015, box.y1),
            fontsize=FONT - 2,
        )
    box = bottom.get_position()
    if setup.note:
        figure.text(box.x1 + 0.015, box.y0, setup.note, fontsize=FONT - 2, va="bottom", gid="note")
    figure.text(
        (box.x0 + box.x1) / 2,
        0.01,
        f"x (input {setup.vary} of {setup.name}; the others held)" if setup.hold else "x",
        fontsize=FONT,
        ha="center",
        va="bottom",
    )
