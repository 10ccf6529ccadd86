"""Notebook helpers: show library source as code, and friendly message boxes."""

import html
import inspect

from IPython.display import Code

# Okabe-Ito colours: distinguishable with every common colour-vision deficiency.
PALETTE = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "sky": "#56B4E9",
    "black": "#000000",
}
BOX_COLOURS = {"ok": PALETTE["green"], "problem": PALETTE["vermillion"], "note": PALETTE["blue"]}


def show_source(obj: object) -> Code:
    """The source of a lessons_lib class or function, syntax-highlighted in a notebook."""
    return Code(inspect.getsource(obj), language="python")


def message_box(title: str, body_html: str, kind: str = "note") -> str:
    """A bordered HTML box with a bold title; body_html must already be escaped."""
    colour = BOX_COLOURS[kind]
    return (
        f'<div style="border-left: 6px solid {colour}; padding: 0.5em 1em; margin: 0.5em 0;">'
        f'<b style="color: {colour};">{html.escape(title)}</b>{body_html}</div>'
    )
