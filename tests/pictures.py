"""Read the explorers' PNGs in tests: the pixels, and how many show the point's green line."""

import io

import numpy as np
from PIL import Image

from lessons_lib.explorers.drawing import POINT_LINE


def pixels(png: bytes) -> np.ndarray:
    """The picture as a (height, width, 3) array of RGB bytes."""
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def green_pixels(png: bytes) -> int:
    """How many pixels have the colour of the moving point's line (within rounding)."""
    colour = POINT_LINE[0]
    green = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(pixels(png).astype(int) - green).sum(axis=2) < 30).sum())
