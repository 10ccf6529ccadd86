"""A widget's Python repr ("IntProgress(value=0, ...)") in a page: what its stored output
shows as text where the widget cannot be drawn, and no deck or site page may show."""

import re

import ipywidgets

WIDGET_NAMES = sorted(
    name
    for name, value in vars(ipywidgets).items()
    if isinstance(value, type) and issubclass(value, ipywidgets.Widget)
)
# A name, then its traits as key=value or nothing, in brackets: ipywidgets' Widget.__repr__.
WIDGET_REPR = re.compile(rf"\b(?:{'|'.join(WIDGET_NAMES)})\((?:\w+=|\))")


def widget_reprs(page: str) -> list[str]:
    """Each widget repr in a page's HTML, as the line it begins."""
    return [page[m.start() :].split("\n", 1)[0][:80] for m in WIDGET_REPR.finditer(page)]
