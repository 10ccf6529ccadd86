"""No answer's code in plain view: every answer and its passing check are folded away.

The notebooks as JupyterLab opens them; the site's pages and the decks are checked with
the same reading (tests/answer_leaks.py) in tests/site/test_pages.py and tests/test_slides.py.
Each rule is also shown failing on a leak planted on purpose.
"""

import copy

import nbformat
import pytest

from tests.answer_leaks import (
    answer_code,
    code_lines,
    deck_leaks,
    is_answer,
    notebook_leaks,
    page_leaks,
    unfolded_answers,
)
from tools.notebooks import NOTEBOOKS as NOTEBOOKS_DIR
from tools.notebooks import notebook_paths

NOTEBOOKS = notebook_paths()
BY_PATH = {"ids": lambda p: str(p.relative_to(NOTEBOOKS_DIR))}
EXERCISE = NOTEBOOKS_DIR / "exercises" / "your-own-backward-pass.ipynb"
PART_1 = "return grad_out * 3 * x**2"  # the one line Part 1 asks for


def read(path=EXERCISE) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def with_markdown(nb: nbformat.NotebookNode, index: int, text: str) -> nbformat.NotebookNode:
    planted = copy.deepcopy(nb)
    planted.cells.insert(index, nbformat.v4.new_markdown_cell(text))
    return planted


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_no_answer_code_shows_as_the_notebook_opens(path):
    assert notebook_leaks(read(path)) == []


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_every_answer_cell_folds_what_it_holds(path):
    assert unfolded_answers(read(path)) == []


def test_the_answer_code_is_read_from_the_answers_themselves():
    code = answer_code(read())
    assert {PART_1, "leaf = x.detach().requires_grad_(True)", "with torch.enable_grad():"} <= (
        code.lines
    )
    assert "grad_out * 3 * x**2" in code.expressions
    # What the starter gives the learner is no secret, nor is a bare call of a test.
    assert "ctx.save_for_backward(x)" not in code.lines
    surrogate = answer_code(read(NOTEBOOKS_DIR / "exercises" / "choose-your-surrogate.ipynb"))
    assert "linear_and_peaks_at_threshold()" not in surrogate.lines
    assert "return grad_out * slope, None, None" in surrogate.lines


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_every_notebook_with_a_task_has_its_answers_read(path):
    nb = read(path)
    if any(is_answer(cell) and "show_source" in cell.source for cell in nb.cells):
        assert answer_code(nb).lines


def test_an_answer_line_in_the_introduction_is_caught():
    """Part 1's introduction once gave the line away in plain view."""
    nb = read()
    intro = next(i for i, c in enumerate(nb.cells) if c.source.startswith("## Part 1"))
    planted = with_markdown(nb, intro + 1, f"Cube's backward gave back `{PART_1}`.")
    assert notebook_leaks(planted) == [f"cell {intro + 1}: {PART_1!r}"]
    planted = with_markdown(nb, intro + 1, "It gave back `grad_out * 3 * x**2`.")
    assert notebook_leaks(planted) == [f"cell {intro + 1}: 'grad_out * 3 * x**2'"]


def test_an_unfolded_answer_is_caught_by_the_code_it_prints():
    nb = read()
    answer = next(c for c in nb.cells if is_answer(c) and "lessons_lib.Cube" in c.source)
    answer.metadata["jupyter"]["outputs_hidden"] = False
    assert f"{PART_1!r}" in " ".join(notebook_leaks(nb))
    assert unfolded_answers(nb) == [
        f"cell {nb.cells.index(answer)}: {answer.source.splitlines()[0]!r}"
    ]


def test_an_answer_in_a_code_cell_after_the_task_is_caught():
    nb = read()
    after = next(
        i for i, c in enumerate(nb.cells) if c.source.startswith("### The answer to Part 1")
    )
    nb.cells.insert(after, nbformat.v4.new_code_cell(f"def backward(ctx, grad_out):\n    {PART_1}"))
    assert notebook_leaks(nb) == [f"cell {after}: {PART_1!r}"]


def test_a_folded_markdown_answer_shows_its_first_line():
    """JupyterLab's placeholder for a folded cell shows the first line of its source."""
    nb = read()
    folded = next(c for c in nb.cells if is_answer(c) and c.cell_type == "markdown")
    folded.source = f"`{PART_1}` is the line.\n\n" + folded.source
    assert [leak.split(": ", 1)[1] for leak in notebook_leaks(nb)] == [repr(PART_1)]


def test_code_lines_leave_out_comments_docstrings_and_blank_lines():
    source = 'def f(x):\n    """Doc,\n    two lines."""\n\n    return  x  # why\n'
    assert code_lines(source) == ["def f(x):", "return x"]


CODE = answer_code(read())


def test_a_page_shows_code_outside_its_folds_only():
    page = (
        f"<p>Text <code>{PART_1}</code></p>"
        f'<details class="hide"><summary>Show</summary><pre>{PART_1}</pre></details>'
        f'<div class="cell tag_answer"><pre>  {PART_1}  # the answer</pre></div>'
        f"<pre>x = 1\n    {PART_1}\n</pre>"
    )
    assert page_leaks(page, CODE) == [repr(PART_1)] * 3


def test_a_deck_shows_answers_only_from_its_answers_slide_on():
    deck = f'<section><pre>x = 1</pre></section><h2 id="Answers">Answers</h2><pre>{PART_1}</pre>'
    assert deck_leaks(deck, CODE, "Answers") == []
    leaked = deck.replace("x = 1", PART_1)
    assert deck_leaks(leaked, CODE, "Answers") == [repr(PART_1)]
