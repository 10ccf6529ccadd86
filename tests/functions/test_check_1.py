"""Lesson 1 developer, "Try it yourself": the notebook's Check 1 judges a YourClamp01."""

import contextlib
import io
from pathlib import Path

import nbformat
import pytest
import torch

from lessons_lib import Clamp01
from tests.learner_functions import masked_clamp01

LESSON1_DEVELOPER = Path(__file__).parents[2] / "notebooks/01-custom-function/2-developer.ipynb"


def check_1(your_clamp01) -> list[bool]:
    """Run the notebook's Check 1 cell on a YourClamp01; the verdicts it prints, in order."""
    cells = nbformat.read(LESSON1_DEVELOPER, as_version=4).cells
    heading = next(i for i, c in enumerate(cells) if c.source.startswith("**Check 1:**"))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(cells[heading + 1].source, {"torch": torch, "YourClamp01": your_clamp01})
    return [
        line.rstrip().endswith("True")
        for line in printed.getvalue().splitlines()
        if line.rstrip().endswith(("True", "False"))
    ]


@pytest.mark.parametrize(
    "fn",
    [Clamp01, masked_clamp01(lambda x: (x > 0) & (x < 1))],
    ids=["Clamp01", "strict-mask"],
)
def test_check_1_passes_a_correct_clamp01_with_or_without_the_edges(fn):
    assert check_1(fn) == [True, True]


@pytest.mark.parametrize(
    ("fn", "verdicts"),
    [
        (masked_clamp01(lambda x: torch.zeros_like(x, dtype=torch.bool)), [True, False]),
        (
            masked_clamp01(lambda x: (x >= 0) & (x <= 1), lambda g: torch.ones_like(g)),
            [True, False],
        ),
        (masked_clamp01(lambda x: torch.ones_like(x, dtype=torch.bool)), [False, True]),
    ],
    ids=["zeroes-everything", "ignores-grad-out", "passes-everything"],
)
def test_check_1_refuses_a_backward_that_blocks_or_drops_grad_out_inside(fn, verdicts):
    """A backward of zeros reads zero where the clamp blocks; only the inside check catches it."""
    assert check_1(fn) == verdicts
