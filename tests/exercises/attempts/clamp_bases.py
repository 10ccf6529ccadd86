"""The sources every attempt is mutated from: the course's answers (which the hint ladders'
"the answer" steps show), and the notebook's starters and worked example suites."""

import ast
import inspect
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

from lessons_lib.exercises.clamp import answers, words

NOTEBOOK = Path(__file__).parents[3] / "notebooks/exercises/check-your-clamp01.ipynb"

# The notebook's cells define Part 1's test by this name; every other function taking a
# Clamp01Candidate is a Part 2 suite.
PART_1_NAME = "my_edge_test"


@dataclass(frozen=True)
class Base:
    """One source to mutate: where it comes from, the function's name, its source."""

    origin: str
    name: str
    source: str


def _functions(source: str) -> list[tuple[str, str]]:
    """(name, source) of every top-level def in `source` that takes a Clamp01Candidate."""
    tree = ast.parse(source)
    return [
        (node.name, ast.get_source_segment(source, node))
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and [a.arg for a in node.args.args] == ["Clamp01Candidate"]
    ]


def notebook_functions() -> list[tuple[str, str]]:
    """(name, source) of the notebook's tests and suites, in notebook order."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    found = []
    for cell in cells:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            try:
                found += _functions(source)
            except SyntaxError:  # a cell with IPython magic: never a test
                continue
    return found


def _answer_step(hint_ladder: tuple) -> str:
    """The source the hint ladder's "the answer" step shows."""
    return textwrap.dedent(next(h.code for h in hint_ladder if h.label == "the answer"))


def edge_bases() -> list[Base]:
    """Part 1's sources: the answer (as the hint shows it) and the notebook's starter."""
    bases = [
        Base("answer edge_test", "edge_test", textwrap.dedent(inspect.getsource(answers.edge_test)))
    ]
    hinted = _answer_step(words.edge_hints())
    if hinted != bases[0].source:
        bases.append(Base("hint ladder's answer", "edge_test", hinted))
    bases += [Base(f"notebook {n}", n, s) for n, s in notebook_functions() if n == PART_1_NAME]
    return bases


def suite_bases() -> list[Base]:
    """Part 2's sources: the answer, the notebook's starter and its worked example suites."""
    answer = textwrap.dedent(inspect.getsource(answers.reference_checks))
    bases = [Base("answer reference_checks", "reference_checks", answer)]
    hinted = _answer_step(words.hints())
    if hinted != answer:
        bases.append(Base("hint ladder's answer", "reference_checks", hinted))
    bases += [Base(f"notebook {n}", n, s) for n, s in notebook_functions() if n != PART_1_NAME]
    return bases
