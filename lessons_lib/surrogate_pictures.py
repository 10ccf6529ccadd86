"""Lesson 3's static picture: each surrogate bump drawn under the step it stands in for.

One small panel per shape in surrogate_gradients.SHAPES: the step (its forward), the smooth
step the surrogate is the slope of, and the bump itself (what backward passes on). The
beginner track shows it as a PNG (surrogates_picture); tests/test_surrogate_pictures.py checks
what is drawn.
"""

import io

import torch
from IPython.display import Image
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lessons_lib.display import PALETTE
from lessons_lib.surrogate_gradients import SHAPES, smoothed_step, step, surrogate_slope

SPAN = 3.0  # each panel shows x from -SPAN to SPAN around the threshold


def draw_surrogates(width: float = 0.5, threshold: float = 0.0) -> Figure:
    """A figure with one panel per surrogate shape: the step, its smooth model, the bump."""
    x = torch.linspace(threshold - SPAN, threshold + SPAN, 601, dtype=torch.float64)
    figure = Figure(figsize=(10.5, 6.0), dpi=80, layout="constrained")
    FigureCanvasAgg(figure)  # a canvas of its own: no pyplot, no global state
    axes = figure.subplots(2, 3, sharex=True, sharey=True)
    for ax, shape in zip(axes.flat, SHAPES, strict=True):
        ax.plot(x, step(x, threshold), color=PALETTE["black"], lw=1.2, label="the step (forward)")
        if shape != "straight-through":  # its smooth model is a line, off this scale
            smooth = smoothed_step(x, shape, threshold, width)
            ax.plot(x, smooth, color=PALETTE["sky"], ls="--", lw=1.2, label="smoothed step")
        bump = surrogate_slope(x, shape, threshold, width)
        ax.plot(x, bump, color=PALETTE["vermillion"], lw=2.2, label="surrogate (backward)")
        ax.fill_between(x, 0, bump, color=PALETTE["vermillion"], alpha=0.15)
        ax.axvline(threshold, color=PALETTE["black"], lw=0.6, ls=":")
        ax.set_title(shape)
        ax.set_ylim(-0.1, 2.1)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("the step's input")
    handles, labels = axes[0][1].get_legend_handles_labels()  # a panel with all three lines
    figure.legend(handles, labels, loc="outside lower center", ncols=3)
    figure.suptitle(f"Six surrogate gradients, each {width:g} wide, around a step at {threshold:g}")
    return figure


def surrogates_picture(width: float = 0.5, threshold: float = 0.0) -> Image:
    """draw_surrogates as a PNG image a notebook shows (no pyplot, no inline backend needed)."""
    buffer = io.BytesIO()
    draw_surrogates(width, threshold).savefig(buffer, format="png")
    return Image(data=buffer.getvalue(), format="png")
