"""Notebook helpers: show library source as code, and friendly message boxes."""

import html
import importlib
import inspect
import pkgutil
import types
from types import ModuleType

from IPython.display import Code

from lessons_lib.running import InputError, as_function
from lessons_lib.running.arguments import MISSING, refuse

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


def show_source(obj: object = MISSING) -> Code:
    """The source of a lessons_lib class or function, syntax-highlighted in a notebook.

    `Cube.apply` shows Cube (the one policy: both name the Function); anything without source
    is refused in one line that says what was passed.
    """
    function = as_function(obj)
    obj = function if function is not None else obj
    if not isinstance(obj, type | types.FunctionType | types.MethodType | types.ModuleType):
        refuse("show_source", obj, "a class or function of the course", "show_source(Cube)")
    try:
        return Code(inspect.getsource(obj), language="python")
    except (OSError, TypeError):
        name = getattr(obj, "__qualname__", getattr(obj, "__name__", "it"))
        raise InputError(
            f"show_source: the source of {name} is not available to read back: it was defined "
            "in this notebook (its cell above is its source) or built by code. show_source "
            "shows the course's own code, as in show_source(Cube)."
        ) from None


def show_section(module: ModuleType = MISSING, title: str = MISSING) -> Code:
    """The code under a module's `# --- title` comment, up to the next such comment.

    For code that is not one class or function, such as a custom operator with its
    registrations. A package's modules are searched too.
    """
    if not isinstance(module, ModuleType):
        refuse("show_section", module, "a module of the course", 'show_section(research, "...")')
    if not isinstance(title, str):
        refuse(
            "show_section", title, "a section's title (a string)", 'show_section(research, "...")'
        )
    for source in _sources(module):
        lines = source.splitlines(keepends=True)
        starts = [i for i, line in enumerate(lines) if line.startswith(f"# --- {title}")]
        if starts:
            break
    else:
        titles = sorted(
            {
                line[6:].strip().rstrip("-").strip()
                for source in _sources(module)
                for line in source.splitlines()
                if line.startswith("# --- ")
            }
        )
        raise InputError(
            f"show_section: {module.__name__} has no section called {title!r}; its sections "
            f"are: {', '.join(repr(t) for t in titles) or 'none'}."
        )
    start = starts[0]
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("# --- ")), None)
    return Code("".join(lines[start + 1 : end]).strip() + "\n", language="python")


def _sources(module: ModuleType) -> list[str]:
    """A module's source; for a package, its own and then each of its modules'."""
    sources = [inspect.getsource(module)]
    if hasattr(module, "__path__"):  # a package: lessons_lib.research, say
        for info in pkgutil.iter_modules(module.__path__, f"{module.__name__}."):
            sources.append(inspect.getsource(importlib.import_module(info.name)))
    return sources


def message_box(title: str, body_html: str, kind: str = "note") -> str:
    """A bordered HTML box with a bold title; body_html must already be escaped."""
    colour = BOX_COLOURS[kind]
    return (
        f'<div style="border-left: 6px solid {colour}; padding: 0.5em 1em; margin: 0.5em 0;">'
        f'<b style="color: {colour};">{html.escape(title)}</b>{body_html}</div>'
    )
