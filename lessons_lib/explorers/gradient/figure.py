"""How the explorer is drawn: one Agg figure, two panels, the moving parts kept apart.

Each explorer owns one figure (never pyplot, so nothing leaks into the notebook's
inline plots). A curve change updates the lines in place and redraws the two panels
over a cached layer holding what never changes (titles, legends); the result, without
the point's marker and line, is the background the browser draws a point move on.
The same figure, with the moving parts blitted on, is the static picture for viewers
that cannot run widgets.
"""

import struct
import zlib

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lessons_lib.display import PALETTE
from lessons_lib.explorers.gradient.curves import Curves, Setup

WIDTH, HEIGHT, DPI = 960, 600, 96  # pixels: every frame has this size, so the page never jumps
FONT = 14  # large enough for a projector
# zlib levels: the background crosses the network on each curve change (level 6: about a
# fifth smaller than level 1 for 3 ms more); a stored notebook keeps the smallest.
BACKGROUND_PNG_LEVEL, STORED_PNG_LEVEL = 6, 9
PIXELS_PER_POINT = DPI / 72
# The moving parts, drawn by the browser from the style below and by blitting here.
MARKERS = {  # key: (panel, colour, matplotlib marker, size in points)
    "forward": (0, PALETTE["blue"], "o", 11),
    "custom": (1, PALETTE["vermillion"], "o", 11),
    "true": (1, PALETTE["black"], "D", 7),
}
POINT_LINE = (PALETTE["green"], 1.5)  # colour, width in points
MOVING = ["vline_top", "vline_bottom", "forward_marker", "custom_marker", "true_marker"]


class BlitFigure:
    """One Agg figure whose panels are redrawn over a cached static layer, moving parts blitted.

    The explorers' shared drawing: a curve change redraws only the panels (the static
    layer holds titles and legends); a point move restores the picture without the
    moving artists (the browser's background) and draws just those on top.
    """

    def __init__(self, figure: Figure, canvas: FigureCanvasAgg, artists: dict) -> None:
        self.figure, self.canvas, self.artists = figure, canvas, artists
        self._static = None  # the picture without the panels, drawn once
        self._background = None  # the picture without the moving artists

    def redraw_panels(self) -> None:
        """Redraw every panel over the static layer; `animated` artists are left out."""
        if self._static is None:
            self._static = _static_layer(self.figure, self.canvas)
        self.canvas.restore_region(self._static)
        for ax in self.figure.axes:
            self.figure.draw_artist(ax)
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)

    def background_png(self, compress_level: int = BACKGROUND_PNG_LEVEL) -> bytes:
        """The picture without the moving artists, as PNG bytes."""
        self.canvas.restore_region(self._background)
        return self.png(compress_level)

    def blit(self, keys: list[str]) -> None:
        """Draw the named moving artists over the background."""
        self.canvas.restore_region(self._background)
        for key in keys:
            self.figure.draw_artist(self.artists[key])

    def png(self, compress_level: int = STORED_PNG_LEVEL) -> bytes:
        """The canvas as it stands, as PNG bytes."""
        return encode_png(np.asarray(self.canvas.buffer_rgba()), compress_level)

    def panels(self) -> list[dict]:
        """Each panel's box in pixels from the top left, its x and y limits and scales."""
        found = []
        for ax in self.figure.axes:
            box = ax.get_window_extent()
            found.append(
                {
                    "box": [
                        float(box.x0),
                        HEIGHT - float(box.y1),
                        float(box.width),
                        float(box.height),
                    ],
                    "x": [float(v) for v in ax.get_xlim()],
                    "y": [float(v) for v in ax.get_ylim()],
                    "scale": [ax.get_xscale(), ax.get_yscale()],
                }
            )
        return found


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


def style(markers: dict = MARKERS) -> dict:
    """How the browser draws the moving parts: the same colours, shapes and sizes, in pixels.

    markers: key -> (panel, colour, matplotlib marker "o" or "D" or "s", size in points).
    """
    colour, width = POINT_LINE
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "line": {"colour": colour, "width": width * PIXELS_PER_POINT},
        "edge": PIXELS_PER_POINT,  # matplotlib's marker edge: 1 point wide
        "markers": {
            key: {
                "panel": panel,
                "colour": colour,
                "shape": {"o": "circle", "D": "diamond", "s": "square"}[marker],
                "size": size * PIXELS_PER_POINT,
            }
            for key, (panel, colour, marker, size) in markers.items()
        },
    }


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


def encode_png(rgba: np.ndarray, compress_level: int) -> bytes:
    """An RGB PNG of an (height, width, 4) uint8 image.

    Written out here because it is about twice as fast as Pillow's encoder at level 1:
    rows go unfiltered (line art compresses well anyway), so zlib is the only cost.
    """
    height, width, _ = rgba.shape
    rows = np.zeros((height, 1 + 3 * width), np.uint8)  # each row: filter byte 0, then RGB
    rows[:, 1:].reshape(height, width, 3)[:] = rgba[:, :, :3]  # a view: one copy, no temporary
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    pixels = zlib.compress(rows, compress_level)  # no copy: zlib reads the array buffer
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", pixels)
        + _chunk(b"IEND", b"")
    )


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def _build_figure(setup: Setup) -> tuple[Figure, FigureCanvasAgg, dict]:
    """One figure, two panels, every artist created once and later updated in place."""
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI)
    canvas = FigureCanvasAgg(figure)
    figure.subplots_adjust(left=0.08, right=0.64, top=0.93, bottom=0.1, hspace=0.4)
    top, bottom = figure.subplots(2, 1, sharex=True)
    name = setup.name
    truth = "--" if setup.reference is not None or setup.grad_reference is not None else ":"
    a = {
        "forward": top.plot([], [], color=PALETTE["blue"], lw=3, label=f"{name} forward")[0],
        "reference": top.plot(
            [],
            [],
            color=PALETTE["black"],
            lw=2,
            ls="--",
            label=f"reference:\n{setup.reference_label}",
        )[0],
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
    panels = (top, bottom)
    for key, (panel, colour, marker, size) in MARKERS.items():
        line = panels[panel].plot([], [], marker, color=colour, ms=size, animated=True)[0]
        a[f"{key}_marker"] = line
    colour, width = POINT_LINE
    for key, ax in [("vline_top", top), ("vline_bottom", bottom)]:
        a[key] = ax.axvline(0.0, color=colour, lw=width, animated=True)
    top.set_ylabel("output", fontsize=FONT)
    bottom.set_ylabel("gradient", fontsize=FONT)
    for ax in panels:
        ax.tick_params(labelsize=FONT - 2)
        ax.grid(True, color="#dddddd")
        ax.axhline(0.0, color="#999999", lw=1)
    # Titles, x label and legends belong to the figure, not the panels: they never change,
    # so they are drawn once into the static layer and not again on every range change.
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
        f"x (input {setup.vary} of {name}; the others held)" if setup.hold else "x",
        fontsize=FONT,
        ha="center",
        va="bottom",
    )
    for key, artist in a.items():
        artist.set_gid(key)  # a stable name, so tests can find each artist
    return figure, canvas, a


def _static_layer(figure: Figure, canvas: FigureCanvasAgg) -> object:
    """The figure drawn without its panels: what a range change need not draw again."""
    for ax in figure.axes:
        ax.set_visible(False)
    canvas.draw()
    for ax in figure.axes:
        ax.set_visible(True)
    return canvas.copy_from_bbox(figure.bbox)
