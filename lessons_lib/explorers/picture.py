"""The explorers' picture: the browser's widget (anywidget), of which front/ is the front end.

Layer: the browser's half; the kernel draws the image it shows (drawing.py).

Only a change of the curves travels: the picture without its moving parts (a PNG), the
sampled curves as float64 rows, and what the front end needs to place a point on them
(each panel's box and limits, the inputs the curves were measured with). The front end
draws every point move from these by itself; the kernel answers only for an x that
falls between samples (a typed value), with the exact values there.
"""

import math
from pathlib import Path

import anywidget
import ipywidgets as widgets
import numpy as np
import traitlets

# The front end's parts, one concern each, in the order they are joined into one ES module:
# plain JavaScript with no imports, so nothing is built and nothing is fetched.
FRONT_PARTS = tuple(
    Path(__file__).with_name("front") / name
    for name in ("values.js", "sizing.js", "words.js", "controls.js", "drawing.js", "render.js")
)


def front_end() -> str:
    """The front end as the browser loads it: its parts, joined in order."""
    return "\n".join(part.read_text() for part in FRONT_PARTS)


class Picture(anywidget.AnyWidget):
    """The picture, its readout and its text alternative, drawn in the browser."""

    _esm = front_end()
    background = traitlets.Bytes(b"").tag(sync=True)  # PNG: the picture without the point
    samples = traitlets.Bytes(b"").tag(sync=True)  # float64 rows, named by picture_style.rows
    meta = traitlets.Dict().tag(sync=True)  # revision, inputs measured with, panels, and so on
    exact = traitlets.Dict().tag(sync=True)  # the values at an x between samples, or {}
    # Set by the page: the picture's room in CSS px (width, height) and devicePixelRatio.
    size = traitlets.Dict().tag(sync=True)
    # Fixed: kind, rows, names, colours, markers. Not named `style`: ipywidgets' front end
    # takes a DOMWidget's `style` (and `layout`) for a style widget and builds a view of it.
    picture_style = traitlets.Dict().tag(sync=True)
    # The sliders it listens to in the browser: the point, and every input of the curves.
    controls = traitlets.Dict().tag(sync=True, **widgets.widget_serialization)

    def show(self, background: bytes, samples: bytes, meta: dict, exact: dict) -> None:
        """Send new curves in one message; the front end swaps them in on seeing the new meta."""
        with self.hold_sync():
            self.background = background
            self.samples = samples
            self.exact = exact
            self.meta = meta


def pack_rows(rows: list[np.ndarray]) -> bytes:
    """Equal-length rows as little-endian float64, one after another: what the front end reads."""
    return np.stack(rows).astype("<f8").tobytes()


def exact_values(point: dict, revision: int, keys: tuple[str, ...] | None = None) -> dict:
    """A point's values for the front end: JSON has no NaN, so unknown values become null.

    keys: the values the readout shows, in order; by default every one of the point's
    besides x and differ (whether backward and the truth differ there, if the point says).
    """
    if keys is None:
        keys = tuple(key for key in point if key not in ("x", "differ"))
    values = {key: None if math.isnan(point[key]) else point[key] for key in keys}
    extra = {"differ": point["differ"]} if "differ" in point else {}
    return {"revision": revision, "x": point["x"], **values, **extra}
