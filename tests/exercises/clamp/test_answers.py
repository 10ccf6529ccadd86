"""The course's answers to "Check your Clamp01": reference_checks passes every correct
Clamp01 (either gradient at exactly 0 and 1) and catches every bug."""

import pytest
import torch

from lessons_lib import Clamp01
from lessons_lib.broken_clamps import CORRECT, EXERCISE_BUGS
from lessons_lib.exercises.clamp.answers import reference_checks
from lessons_lib.exercises.clamp.suite import run_my_checks
from tests.exercises.clamp.learners import KEYS
from tests.learner_functions import masked_clamp01


def test_the_answer_passes_every_correct_clamp01():
    reference_checks(Clamp01)
    for correct in CORRECT:
        reference_checks(correct.make())


@pytest.mark.parametrize("bug", EXERCISE_BUGS, ids=KEYS)
def test_the_answer_catches_every_bug_in_the_catalogue(bug):
    with pytest.raises((AssertionError, RuntimeError)):
        reference_checks(bug.make())


@pytest.mark.parametrize(
    "mask",
    [lambda x: (x >= 0) & (x <= 1), lambda x: (x > 0) & (x < 1)],
    ids=["edges-included", "strict"],
)
def test_lesson_ones_solutions_in_both_conventions_pass_the_answer(mask):
    fn = masked_clamp01(mask)
    reference_checks(fn)
    said = run_my_checks(reference_checks, fn)
    assert said == "reference_checks found nothing wrong with YourClamp01"


def one_off_clamp(grad_rule):
    """A Clamp01 with a right forward and the backward grad_rule(x, grad_out)."""

    class OneOff(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_rule(x, grad_out)

    return OneOff


@pytest.mark.parametrize(
    "grad_rule",
    [
        lambda x, g: g * ((x >= 0) & (x <= 1)) + g * (x == 0),  # 2 * grad_out at exactly 0
        lambda x, g: -g * (x == 1) + g * ((x > 0) & (x < 1)),  # -grad_out at exactly 1
        lambda x, g: g * ((x > 0.01) & (x < 1)),  # blocks grad_out just inside 0
        lambda x, g: g * ((x >= 0) & (x <= 1.01)),  # lets it through just outside 1
    ],
    ids=["twice-at-0", "negated-at-1", "blocks-just-inside", "leaks-just-outside"],
)
def test_the_answer_still_demands_grad_out_inside_zero_outside_and_a_between_value_on_edges(
    grad_rule,
):
    with pytest.raises(AssertionError):
        reference_checks(one_off_clamp(grad_rule))
