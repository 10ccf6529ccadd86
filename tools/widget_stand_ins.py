"""Which stored widget outputs a page without a kernel leaves out: the decks and the website.

A widget's view needs a kernel (the notebooks store no widget state), so a deck or a site
page shows what else the output holds. The explorers store a picture and a text
alternative beside their view. A plain ipywidgets widget, such as the progress bar the
training explorer shows while it trains, stores only its Python repr as text,
"IntProgress(value=0, description='training', max=1)": code, not course text, and it says
nothing the explorer's own output does not. Such an output is left out.
"""

import re
from collections.abc import Mapping

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# ipywidgets' Widget.__repr__: the class's name, then its traits as key=value, in brackets.
WIDGET_REPR = re.compile(r"[A-Za-z_]\w*\((?:\w+=.*)?\)", re.DOTALL)


def is_widget_repr(text: str) -> bool:
    """Whether text is a widget's Python repr, such as "FloatProgress(value=0.0)"."""
    return WIDGET_REPR.fullmatch(text.strip()) is not None


def is_stand_in(data: Mapping[str, object]) -> bool:
    """Whether an output's formats (MIME type to content) are a widget view with only its
    repr beside it: nothing a page without the widget could show."""
    text = data.get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else str(text)
    return WIDGET_VIEW in data and set(data) <= {WIDGET_VIEW, "text/plain"} and is_widget_repr(text)
