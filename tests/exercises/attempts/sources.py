"""Where attempts start: the notebooks' starter cells and the course's answers (answers.py and
the hint ladders' "the answer" steps)."""

import json
from collections.abc import Sequence
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"


def starter(notebook: str, *needles: str) -> str:
    """The first code cell of `notebook` (relative to notebooks/) holding every needle."""
    cells = json.loads((NOTEBOOKS / notebook).read_text())["cells"]
    for cell in cells:
        text = "".join(cell["source"])
        if cell["cell_type"] == "code" and all(n in text for n in needles):
            return text + "\n"
    raise LookupError(f"no cell of {notebook} holds {needles}")


def answer_step(hints: Sequence) -> str:
    """The code of a hint ladder's "the answer" step."""
    return next(h.code for h in hints if h.label == "the answer")


def fill_todo(source: str, line: str) -> str:
    """The starter with its TODO line replaced by `line`, at the same indentation."""
    out = []
    for old in source.splitlines():
        if "TODO" in old and not old.lstrip().startswith("#"):
            indent = old[: len(old) - len(old.lstrip())]
            out.append(indent + line)
        else:
            out.append(old)
    return "\n".join(out) + "\n"
