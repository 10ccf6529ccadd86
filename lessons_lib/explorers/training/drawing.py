"""How the training explorer draws its runs: one panel per shape, a line per width, and the
true gradient's flat line in each panel for reference.

Layer: a matplotlib figure on its own Agg canvas (never pyplot), drawn once per training
at the explorers' fixed size and fonts (../drawing.py): one panel per shape compares the
widths of that shape, each width in the same colour in every panel.
"""

import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lessons_lib.display import PALETTE
from lessons_lib.explorers.drawing import (
    DPI,
    HEIGHT,
    STORED_PNG_LEVEL,
    WIDTH,
    encode_png,
    points,
)
from lessons_lib.explorers.training.runs import GOAL, Run

# One colour per width, in the order the widths are given; the true gradient is a grey band.
COLOURS = ("vermillion", "blue", "green", "purple", "orange", "sky")
TRUE_GREY = "#c8c8c8"
COLUMNS = 3  # panels across; more shapes take a second row
# Font sizes in px of the full-width image: an image shrinks with its output area (to about
# 700 px on a projector's 1280x720 window), so these still read at 13 px there.
TITLE_PX, TEXT_PX = 22, 18


def line_widths(count: int) -> list[float]:
    """Each width's line thinner than the one drawn before it: two runs that both reach a
    loss of 0 stay visible, the later line inside the earlier one."""
    return [2.0 + 1.5 * (count - 1 - i) for i in range(count)]


def draw_runs(runs: list[Run], shapes: list[str], widths: list[float], ratio: int = 1) -> bytes:
    """The loss curves as a PNG, WIDTH x HEIGHT CSS px at `ratio` device pixels per px."""
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI * ratio)
    canvas = FigureCanvasAgg(figure)
    across = min(COLUMNS, max(1, len(shapes)))
    down = math.ceil(max(1, len(shapes)) / across)
    axes = figure.subplots(down, across, sharex=True, sharey=True, squeeze=False).ravel()
    truth = next(run for run in runs if run.width is None)
    by_key = {(run.shape, run.width): run for run in runs}
    for ax, shape in zip(axes, shapes, strict=False):
        steps = np.arange(len(truth.training.losses))
        # A wide grey band under the widths' lines: a width that does not learn either
        # draws its line on top of it, in view, instead of hidden beneath it.
        ax.plot(steps, truth.training.losses, color=TRUE_GREY, lw=8, zorder=1)
        for width, colour, line in zip(widths, COLOURS, line_widths(len(widths)), strict=False):
            losses = by_key[(shape, width)].training.losses
            ax.plot(steps, losses, color=PALETTE[colour], lw=line)
        ax.axhline(GOAL, color="#999999", lw=1, ls=":")
        ax.set_title(shape, fontsize=points(TITLE_PX))
        ax.tick_params(labelsize=points(TEXT_PX))
        ax.grid(True, color="#dddddd")
        ax.set_ylim(-0.02, max(0.65, max(truth.training.losses) + 0.05))
    for ax in axes[len(shapes) :]:
        ax.set_visible(False)
    for ax in axes[(down - 1) * across :]:
        ax.set_xlabel("training step", fontsize=points(TEXT_PX))
    for ax in axes[::across]:
        ax.set_ylabel("loss", fontsize=points(TEXT_PX))
    handles = [
        axes[0].plot([], [], color=PALETTE[c], lw=line, label=f"width {w:g}")[0]
        for w, c, line in zip(widths, COLOURS, line_widths(len(widths)), strict=False)
    ]
    handles.append(axes[0].plot([], [], color=TRUE_GREY, lw=8, label="true gradient")[0])
    handles.append(axes[0].plot([], [], color="#999999", ls=":", lw=1, label=f"loss {GOAL:g}")[0])
    figure.legend(
        handles=handles, loc="lower center", ncols=min(len(handles), 4), fontsize=points(TEXT_PX)
    )
    figure.subplots_adjust(left=0.08, right=0.98, top=0.93, bottom=0.26, wspace=0.12, hspace=0.3)
    canvas.draw()
    return encode_png(np.asarray(canvas.buffer_rgba()), STORED_PNG_LEVEL)
