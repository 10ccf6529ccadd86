"""The kernel's drawing, shared by both explorers: one Agg figure, its sizes, fonts and PNGs.

Layer: the image the kernel draws (matplotlib's Agg, never pyplot, so nothing leaks into
a notebook's inline plots). The browser's half, which draws point moves on it, is
picture.py. Each explorer owns one figure: a curve change redraws its panels over a
cached layer holding what never changes (titles, legends); the result without the
moving parts (the point's line and markers) is the background the browser draws on.
The same figure with the moving parts blitted on is the static picture for viewers
that cannot run widgets.

Sizes are in CSS pixels: the page says how wide the picture can be and how many device
pixels a CSS pixel has (Size), and the figure is drawn at exactly that many pixels, at a
dpi of 96 per CSS inch times that ratio. Fonts and lines are sized in points, which are
then fixed in CSS pixels too: a narrower picture has smaller panels, never smaller text.
"""

import math
import struct
import zlib
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from lessons_lib.display import PALETTE

# CSS px: the widest picture (a wider one draws more pixels for no more to see), and the
# size drawn before the page says what room it has (FIRST_SIZE).
WIDTH, HEIGHT = 960, 600
# CSS px: the narrowest picture, beside whose panels the legends still fit, and the least
# height that holds the gradient explorer's legends and note beside its panels.
MIN_WIDTH, MIN_HEIGHT = 480, 440
RATIOS = (0.5, 4.0)  # the devicePixelRatios drawn for; others are brought into this range
DPI = 96  # matplotlib's dots per inch at one device pixel per CSS px (a CSS inch is 96 px)
PIXELS_PER_POINT = DPI / 72  # CSS px per point, at any ratio: matplotlib sizes text in points
# Font sizes in CSS px, the same at every width: legible from the back of a room (12 at least).
TITLE_PX, TEXT_PX = 16, 14
# zlib levels: the background crosses the network on each curve change (level 6: about a
# fifth smaller than level 1 for 3 ms more); a stored notebook keeps the smallest.
BACKGROUND_PNG_LEVEL, STORED_PNG_LEVEL = 6, 9
POINT_LINE = (PALETTE["green"], 1.5)  # the point's line: colour, width in points
# Markers: key -> (panel, colour, matplotlib marker "o" or "D" or "s", size in points).
Markers = dict[str, tuple[int, str, str, float]]


def points(px: float) -> float:
    """A font size in CSS px as matplotlib takes it: in points."""
    return px / PIXELS_PER_POINT


@dataclass(frozen=True)
class Size:
    """A picture's size in CSS px and its screen's device pixels per CSS px."""

    width: int = WIDTH
    height: int = HEIGHT
    ratio: float = 1.0

    @classmethod
    def asked(cls, size: dict) -> "Size | None":
        """The size a page asks for, brought within what is drawn; None if it is not one."""
        try:
            width, height, ratio = (float(size[key]) for key in ("width", "height", "ratio"))
        except (KeyError, TypeError, ValueError):
            return None
        if not all(math.isfinite(v) and v > 0 for v in (width, height, ratio)):
            return None
        width = min(max(round(width), MIN_WIDTH), WIDTH)
        height = min(max(round(height), MIN_HEIGHT), HEIGHT)
        return cls(width, height, min(max(ratio, RATIOS[0]), RATIOS[1]))

    @property
    def pixels(self) -> tuple[int, int]:
        """Device pixels across and down, rounded as the browser's Math.round would."""
        return (
            math.floor(self.width * self.ratio + 0.5),
            math.floor(self.height * self.ratio + 0.5),
        )

    def as_dict(self) -> dict:
        return asdict(self)


FIRST_SIZE = Size()  # what is drawn before the page says, and what the static picture keeps


class BlitFigure(ABC):
    """One Agg figure whose panels are redrawn over a cached static layer, moving parts blitted.

    A curve change redraws only the panels (the static layer holds titles and legends);
    a point move restores the picture without the moving artists (the browser's
    background) and draws just those on top. Each artist is named by its key (its gid),
    so tests can find it.
    """

    def __init__(self, size: Size = FIRST_SIZE) -> None:
        self.resize(size)

    def resize(self, size: Size) -> None:
        """Build the figure anew at `size`; draw_curves draws the curves into it."""
        self.size = size
        self.figure, self.canvas, self.artists = self.build(size)
        for key, artist in self.artists.items():
            artist.set_gid(key)
        self._static = None  # the picture without the panels, drawn once
        self._background = None  # the picture without the moving artists

    @abstractmethod
    def build(self, size: Size) -> tuple[Figure, FigureCanvasAgg, dict]:
        """The figure at `size` (blank_figure), its canvas and every artist by key."""

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
        """Each panel's box in CSS px from the top left, its x and y limits and scales."""
        return [_panel(ax, self.size) for ax in self.figure.axes]

    def smallest_font(self) -> float:
        """The smallest text drawn, in CSS px: tick labels, legends, titles, notes."""
        return min(
            text.get_fontsize() * PIXELS_PER_POINT
            for text in self.figure.findobj(Text)
            if text.get_visible() and text.get_text().strip()
        )


def _panel(ax: Axes, size: Size) -> dict:
    box, ratio = ax.get_window_extent(), size.ratio
    top = size.pixels[1] - float(box.y1)
    return {
        "box": [float(box.x0) / ratio, top / ratio, box.width / ratio, box.height / ratio],
        "x": [float(v) for v in ax.get_xlim()],
        "y": [float(v) for v in ax.get_ylim()],
        "scale": [ax.get_xscale(), ax.get_yscale()],
    }


def blank_figure(
    size: Size, *, left: float, right: float, top: float, bottom: float, **spacing: float
) -> tuple[Figure, FigureCanvasAgg]:
    """A figure of size.pixels on its own Agg canvas; the panels' margins in CSS px from each
    edge (left, right, top, bottom), any other subplots_adjust argument as it takes it."""
    across, down = size.pixels
    dpi = DPI * size.ratio
    # A hair over: Agg truncates the figure's size in pixels, which float division could
    # leave a hair under a whole number.
    figure = Figure(figsize=((across + 0.01) / dpi, (down + 0.01) / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(figure)
    figure.subplots_adjust(
        left=left / size.width,
        right=1 - right / size.width,
        top=1 - top / size.height,
        bottom=bottom / size.height,
        **spacing,
    )
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
    """How the browser sizes the picture and draws the moving parts: the same colours,
    shapes and sizes, in CSS px."""
    colour, width = POINT_LINE
    return {
        "max_width": WIDTH,
        "min_width": MIN_WIDTH,
        "min_height": MIN_HEIGHT,
        "aspect": WIDTH / HEIGHT,
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
