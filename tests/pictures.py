"""Read the explorers' PNGs in tests: the pixels, and how many show the point's green line."""

import io

import numpy as np
from PIL import Image

from lessons_lib.explorers.drawing import MIN_HEIGHT, MIN_WIDTH, POINT_LINE, Size

# The sizes the explorers' drawing tests draw at: a 1280x720 projector's output area, a
# narrower one at devicePixelRatio 2, the narrowest, and the widest (the default).
DRAWING_SIZES = [Size(802, 501, 1.0), Size(704, 440, 2.0), Size(MIN_WIDTH, MIN_HEIGHT, 1.0), Size()]


def pixels(png: bytes) -> np.ndarray:
    """The picture as a (height, width, 3) array of RGB bytes."""
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def green_pixels(png: bytes) -> int:
    """How many pixels have the colour of the moving point's line (within rounding)."""
    colour = POINT_LINE[0]
    green = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(pixels(png).astype(int) - green).sum(axis=2) < 30).sum())
