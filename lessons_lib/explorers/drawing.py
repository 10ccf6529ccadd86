"""The kernel's drawing, shared by both explorers: one Agg figure, its sizes, fonts and PNGs.

Layer: the image the kernel draws (matplotlib's Agg, never pyplot, so nothing leaks into
a notebook's inline plots). The browser's half, which draws point moves on it, is
picture.py. Each explorer owns one figure: a curve change redraws its panels over a
cached layer holding what never changes (titles, legends); the result without the
moving parts (the point's line and markers) is the background the browser draws on.
The same figure with the moving parts blitted on is the static picture for viewers
that cannot run widgets.
"""

import struct
import zlib
from abc import ABC, abstractmethod

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lessons_lib.display import PALETTE

WIDTH, HEIGHT, DPI = 960, 600, 96  # pixels: every frame has this size, so the page never jumps
FONT = 14  # large enough for a projector
# zlib levels: the background crosses the network on each curve change (level 6: about a
# fifth smaller than level 1 for 3 ms more); a stored notebook keeps the smallest.
BACKGROUND_PNG_LEVEL, STORED_PNG_LEVEL = 6, 9
PIXELS_PER_POINT = DPI / 72
POINT_LINE = (PALETTE["green"], 1.5)  # the point's line: colour, width in points
# Markers: key -> (panel, colour, matplotlib marker "o" or "D" or "s", size in points).
Markers = dict[str, tuple[int, str, str, float]]


class BlitFigure(ABC):
    """One Agg figure whose panels are redrawn over a cached static layer, moving parts blitted.

    A curve change redraws only the panels (the static layer holds titles and legends);
    a point move restores the picture without the moving artists (the browser's
    background) and draws just those on top. Each artist is named by its key (its gid),
    so tests can find it.
    """

    def __init__(self, figure: Figure, canvas: FigureCanvasAgg, artists: dict) -> None:
        self.figure, self.canvas, self.artists = figure, canvas, artists
        for key, artist in artists.items():
            artist.set_gid(key)
        self._static = None  # the picture without the panels, drawn once
        self._background = None  # the picture without the moving artists

    @abstractmethod
    def draw_curves(self, curves: object) -> None:
        """Put new curves into the panels and redraw them (redraw_panels); the point is left out."""

    @abstractmethod
    def draw_point(self, point: dict[str, float]) -> None:
        """Blit the point's moving parts at the values given (blit)."""

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
        return [_panel(ax) for ax in self.figure.axes]


def _panel(ax: Axes) -> dict:
    box = ax.get_window_extent()
    return {
        "box": [float(box.x0), HEIGHT - float(box.y1), float(box.width), float(box.height)],
        "x": [float(v) for v in ax.get_xlim()],
        "y": [float(v) for v in ax.get_ylim()],
        "scale": [ax.get_xscale(), ax.get_yscale()],
    }


def blank_figure(**margins: float) -> tuple[Figure, FigureCanvasAgg]:
    """A WIDTH x HEIGHT figure on its own Agg canvas, with the panels' margins (subplots_adjust)."""
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI)
    canvas = FigureCanvasAgg(figure)
    figure.subplots_adjust(**margins)
    return figure, canvas


def moving_markers(panels: tuple[Axes, ...], markers: Markers) -> dict:
    """The point's markers ("<key>_marker"), animated: blitted, never drawn with the panels."""
    return {
        f"{key}_marker": panels[panel].plot([], [], marker, color=colour, ms=size, animated=True)[0]
        for key, (panel, colour, marker, size) in markers.items()
    }


def point_line(ax: Axes, at: float) -> object:
    """The point's vertical line in one panel, animated; `at` is any x the axis can show."""
    colour, width = POINT_LINE
    return ax.axvline(at, color=colour, lw=width, animated=True)


def style(markers: Markers) -> dict:
    """How the browser draws the moving parts: the same colours, shapes and sizes, in pixels."""
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


def _static_layer(figure: Figure, canvas: FigureCanvasAgg) -> object:
    """The figure drawn without its panels: what a range change need not draw again."""
    for ax in figure.axes:
        ax.set_visible(False)
    canvas.draw()
    for ax in figure.axes:
        ax.set_visible(True)
    return canvas.copy_from_bbox(figure.bbox)
