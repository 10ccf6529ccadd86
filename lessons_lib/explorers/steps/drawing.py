"""How the step-size explorer is drawn: one log-log panel, the V of each dtype, the step blitted.

Layer: the kernel's Agg image (the shared machinery is ../drawing.py, BlitFigure): the
curves, the model and the best steps are drawn with the panel; the step's line and its
markers are the moving parts, drawn by the browser (../front/) or blitted here
for the static picture. The margins are in CSS px, the legend's column as wide as the
widest legend it may have to show: a narrower picture narrows the panel only.
"""

import textwrap

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lessons_lib.display import PALETTE
from lessons_lib.explorers.drawing import (
    DPI,
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
from lessons_lib.explorers.steps.curves import KEYS, STEPS, StepCurves, StepSetup

LOOKS = {  # dtype: colour, measured marker, model line style (they differ in greyscale too)
    "float32": (PALETTE["blue"], "o", "--"),
    "float64": (PALETTE["vermillion"], "s", "-."),
}
MARKERS: Markers = {key: (0, colour, marker, 12) for key, (colour, marker, _) in LOOKS.items()}
LEGEND_WIDTH = 30  # characters: a wrapped legend entry stays inside the picture
MOVING = ["step_line", *(f"{key}_marker" for key in KEYS)]
# CSS px: room for the y ticks and label, the title, the x ticks and label, and the gaps
# around the legend's column.
LEFT, TOP, BOTTOM, GAP = 84, 34, 56, 10
# The longest reason a legend may give for a missing optimum: what the column must hold.
LONGEST_REASON = "no round-off at x: the model favours smaller h"


class StepPlot(BlitFigure):
    """One log-log panel: measured error and model per dtype, the best steps marked."""

    def __init__(self, setup: StepSetup, size: Size = FIRST_SIZE) -> None:
        self.setup = setup
        super().__init__(size)

    def build(self, size: Size) -> tuple[Figure, FigureCanvasAgg, dict]:
        """The panel and every artist, created once and later updated in place."""
        return _build_figure(self.setup, size)

    def draw_curves(self, curves: StepCurves) -> None:
        """Put one point's errors, model and best steps into the panel and redraw it."""
        a, (ax,) = self.artists, self.figure.axes
        empty = np.full(curves.h.shape, np.nan)
        for key in KEYS:
            errors = curves.errors.get(key, empty)
            # An error of exactly 0 has no place on a log axis: a gap, not a drop to the floor.
            a[f"{key}_measured"].set_data(curves.h, np.where(errors > 0, errors, np.nan))
            a[f"{key}_model"].set_data(curves.h, curves.model.get(key, empty))
            best = curves.best.get(key, np.nan)
            a[f"{key}_best"].set_xdata([best, best])
            a[f"{key}_best"].set_label(_best_label(key, best, curves.no_optimum.get(key)))
        ax.set_xlim(curves.h[-1] / 2, curves.h[0] * 2)
        ax.set_ylim(*_error_limits(curves))
        slope = (
            "" if np.isnan(curves.slope) else f": {self.setup.slope_label} says {curves.slope:.6g}"
        )
        title = f"{self.setup.name} at x = {curves.x:g}{slope}"
        ax.set_title(title, fontsize=points(TITLE_PX), loc="left")
        _legend(ax)  # again: the best steps' labels changed
        self.redraw_panels()

    def draw_point(self, point: dict[str, float]) -> None:
        """Blit the step's line and each dtype's marker over the curves."""
        h, a = point["x"], self.artists
        a["step_line"].set_xdata([h, h])
        for key in KEYS:
            a[f"{key}_marker"].set_data([h], [point[key]])
        self.blit(MOVING)


def _best_label(key: str, best: float, why_not: str | None) -> str:
    """The legend's words for a dtype's dotted line: the model's best h, or the rule of thumb."""
    if np.isnan(best):
        return f"{key} best h"
    words = f"{key} best h ≈ {best:.1g}" if why_not is None else f"{key} ε^(1/3) ≈ {best:.1g}"
    if not STEPS[-1] <= best <= STEPS[0]:
        words += "\n(off the grid)"
    if why_not is None:
        return words
    return f"{words}\n" + textwrap.fill(f"(rule of thumb: {why_not})", LEGEND_WIDTH)


def _error_limits(curves: StepCurves) -> tuple[float, float]:
    """y limits on a log axis: every positive measured error, with a decade's margin."""
    parts = [e[np.isfinite(e) & (e > 0)] for e in curves.errors.values()]
    values = np.concatenate(parts) if parts else np.empty(0)
    if values.size == 0:
        return 1e-16, 1.0
    return float(values.min()) / 10, float(values.max()) * 10


def _legend(ax: object) -> object:
    """The legend, beside the panel; it belongs to the panel, as the best steps' labels change."""
    beside = 1 + GAP * ax.figure.dpi / DPI / ax.get_window_extent().width  # device px
    return ax.legend(loc="upper left", bbox_to_anchor=(beside, 1.0), fontsize=points(TEXT_PX))


def _build_figure(setup: StepSetup, size: Size) -> tuple[Figure, FigureCanvasAgg, dict]:
    figure, canvas = blank_figure(size, left=LEFT, right=size.width / 2, top=TOP, bottom=BOTTOM)
    ax = figure.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    a = {}
    for key, (colour, marker, model_style) in LOOKS.items():
        a[f"{key}_measured"] = ax.plot(
            [], [], color=colour, marker=marker, ms=4, lw=2, label=f"{key} measured"
        )[0]
        a[f"{key}_model"] = ax.plot(
            [], [], color=colour, ls=model_style, lw=1.5, label=f"{key} model"
        )[0]
        a[f"{key}_best"] = ax.axvline(1.0, color=colour, ls=":", lw=2, label=f"{key} best h")
    a |= moving_markers((ax,), MARKERS)
    a["step_line"] = point_line(ax, 1.0)  # 1, not 0: the x axis is logarithmic
    ax.set_xlabel("step h", fontsize=points(TITLE_PX))
    ax.set_ylabel(f"|central difference - {setup.slope_label}|", fontsize=points(TEXT_PX))
    ax.tick_params(labelsize=points(TEXT_PX))
    ax.grid(True, color="#dddddd")
    # The model's formula, once, under the legend: it never changes, so it is static.
    model = figure.text(
        0,
        0,
        "model: h² |f'''| / 6 + ε (|f| + |x f'|) / h\nε: the dtype's machine epsilon",
        fontsize=points(TEXT_PX),
        va="bottom",
    )
    column = _widest_legend(ax, [a[f"{key}_best"] for key in KEYS], model)
    figure.subplots_adjust(right=1 - (column / size.ratio + 2 * GAP) / size.width)
    # Under the legend, aligned with its frame.
    frame = _legend(ax).get_window_extent(canvas.get_renderer())
    left, _ = figure.transFigure.inverted().transform((frame.x0, 0))
    model.set_position((left, ax.get_position().y0))
    return figure, canvas, a


def _widest_legend(ax: object, best: list, model: object) -> float:
    """Device pixels across the widest of the model's formula and the legend, with the
    longest labels the best steps' lines may have: a model's step off the grid, or the
    rule of thumb (always on the grid) with the longest reason."""
    renderer = ax.figure.canvas.get_renderer()
    labels = [line.get_label() for line in best]
    widths = [model.get_window_extent(renderer).width]
    for step, reason in [(5e-20, None), (5e-3, LONGEST_REASON)]:
        for line, key in zip(best, KEYS, strict=True):
            line.set_label(_best_label(key, step, reason))
        widths.append(_legend(ax).get_window_extent(renderer).width)
    for line, label in zip(best, labels, strict=True):
        line.set_label(label)
    return max(widths)
