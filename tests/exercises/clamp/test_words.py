"""The words of "Check your Clamp01": the hint ladder, and every "read more" names a section
that exists and covers the idea."""

import re
from pathlib import Path

import nbformat
import pytest

from lessons_lib.exercises.base import ExerciseCheck
from lessons_lib.exercises.clamp.edges import check_edge_test
from lessons_lib.exercises.clamp.suite import check_my_checks
from lessons_lib.exercises.clamp.words import (
    EDGE_BUGS,
    EDGE_READ,
    EDGE_READ_FOR_BUG,
    READ,
    READ_FOR_BUG,
    UNEVEN,
)
from tests.exercises.clamp.learners import (
    KEYS,
    case,
    edge_starter,
    forward_only,
    gradcheck_inside_and_sum_at_the_edges,
)


def test_hints_come_in_three_steps_ending_with_the_answers_source():
    check = check_my_checks(forward_only)
    assert [h.label for h in check.hints] == ["the idea", "the PyTorch calls", "the answer"]
    assert "def reference_checks(Clamp01Candidate" not in str(check.hint(2))
    third = str(check.hint(3))
    assert "Hint 3 of 3 (the answer)" in third and "def reference_checks(Clamp01Candidate" in third
    assert isinstance(check.hint(1), ExerciseCheck) and "Also missed" in str(check.hint(1))


# --- every "read more" names a section that exists and covers the idea ------------------------

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"

POINTED_AT = {
    "This notebook, Part 1": ("exercises/check-your-clamp01.ipynb", "## Part 1", "## Part 2"),
    "This notebook, Part 2": ("exercises/check-your-clamp01.ipynb", "## Part 2", "## Remember"),
    "Lesson 1 beginner track": ("01-custom-function/1-beginner.ipynb", "", ""),
    "Lesson 1 developer track": ("01-custom-function/2-developer.ipynb", "", ""),
    "Lesson 2 developer track": ("02-checking-gradients/2-developer.ipynb", "", ""),
}


def headings(notebook: str, start: str, stop: str) -> list[str]:
    """The markdown headings of a notebook, between the headings starting start and stop."""
    cells = nbformat.read(NOTEBOOKS / notebook, as_version=4).cells
    lines = [
        line
        for cell in cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("#")
    ]
    if start:
        lines = lines[next(i for i, h in enumerate(lines) if h.startswith(start)) :]
    if stop:
        lines = lines[: next(i for i, h in enumerate(lines) if h.startswith(stop))]
    return [line.lstrip("#").strip() for line in lines]


POINTERS = sorted({*READ.values(), *EDGE_READ.values()})


@pytest.mark.parametrize("pointer", POINTERS)
def test_every_pointer_names_a_heading_of_the_notebook_and_part_it_names(pointer):
    where, heading = re.fullmatch(r"(.+), “(.+)”", pointer).groups()
    assert heading in headings(*POINTED_AT[where])


def test_each_bug_and_case_points_where_its_idea_is_taught():
    assert set(READ_FOR_BUG) == set(KEYS) and set(READ_FOR_BUG.values()) <= set(READ.values())
    assert [EDGE_READ_FOR_BUG[make] for make, _, _ in EDGE_BUGS] == [
        EDGE_READ["clamp"],  # points outside 0 to 1: shown in the section on Clamp01
        EDGE_READ["choose"],  # an upstream gradient other than 1
        EDGE_READ["clamp"],
        EDGE_READ["clamp"],
        EDGE_READ["clamp"],
    ]
    assert not any("beginner" in pointer for pointer in READ.values())  # Part 2: developers
    uneven = case(check_my_checks(gradcheck_inside_and_sum_at_the_edges), UNEVEN)
    assert uneven.read == "This notebook, Part 1, “Choosing the upstream gradient yourself”"
    first = check_edge_test(edge_starter).first_failure
    assert first.read == "This notebook, Part 1, “Clamp01: keep numbers between 0 and 1”"
