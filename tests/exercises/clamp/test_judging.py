"""What both parts judge alike: a suite that fails a correct Clamp01 (at a kink, in float32,
at exactly 0 and 1) has nothing more checked and is told why; the slips that stop any test;
anything but a test function gets one line."""

import pytest
import torch

from lessons_lib import Clamp01
from lessons_lib.broken_clamps import CORRECT
from lessons_lib.exercises.clamp.suite import check_my_checks
from lessons_lib.exercises.clamp.words import READ
from tests.exercises.clamp.learners import (
    CORRECT_NAMES,
    random_points_through_gradcheck,
)


def gradcheck_at_the_kinks(Clamp01Candidate):
    x = torch.tensor([-0.5, 0.0, 0.5, 1.0, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(Clamp01Candidate.apply, (x,))


def gradcheck_in_float32(Clamp01Candidate):
    x = torch.tensor([-1.5, 0.25, 0.75, 1.5], requires_grad=True)
    torch.autograd.gradcheck(Clamp01Candidate.apply, (x,))


def test_a_suite_that_fails_correct_code_has_nothing_more_checked_and_names_the_kink():
    check = check_my_checks(gradcheck_at_the_kinks)
    assert not check.ok and check.first_failure.name == CORRECT_NAMES[0]
    assert "gradcheck met a kink" in check.first_failure.fix
    assert check.first_failure.read == READ["kinks"]
    assert "with respect to input 0, at the line `torch.autograd.gradcheck(" in str(check)
    assert str(check).splitlines()[0] == (
        "gradcheck_at_the_kinks: 0 of 15 checks passed, 12 not checked yet"
    )
    assert not any(c.checked for c in check.cases[3:])
    assert [c.line for c in check.cases[3:]] == [
        f"○ {c.name} (not checked yet: your checks fail a correct Clamp01 (see above), so a "
        "catch would prove nothing)"
        for c in check.cases[3:]
    ]
    assert "Also missed" not in str(check)


def test_float32_in_gradcheck_is_named_as_the_reason_a_correct_clamp01_failed():
    first = check_my_checks(gradcheck_in_float32).first_failure
    assert first.name == CORRECT_NAMES[0]
    assert "float32" in first.fix and first.read == READ["float64"]


def test_a_property_that_draws_points_on_the_kinks_shows_hypothesis_s_example():
    first = check_my_checks(random_points_through_gradcheck).first_failure
    assert "gradcheck met a kink" in first.fix
    assert "values=[" in first.got and "at the line `torch.autograd.gradcheck(" in first.got


def test_a_suite_that_checks_the_learners_own_clamp_instead_of_the_candidate_is_told_so():
    def own_clamp(Clamp01Candidate):
        x = torch.tensor([-1.5, 0.25, 1.5], dtype=torch.float64, requires_grad=True)
        torch.autograd.gradcheck(Clamp01.apply, (x,))

    first = check_my_checks(own_clamp).first_failure
    assert "never called Clamp01Candidate.apply" in first.got
    assert "clamp = Clamp01Candidate.apply" in first.fix


def test_a_suite_that_calls_forward_by_hand_is_told_to_use_apply():
    def by_hand(Clamp01Candidate):
        x = torch.tensor([-0.5, 0.5])
        Clamp01Candidate.forward(None, x)

    first = check_my_checks(by_hand).first_failure
    assert "forward by hand" in first.got and "Clamp01Candidate.apply(x)" in first.fix


def test_returning_false_counts_as_finding_a_bug():
    def says_false(Clamp01Candidate):
        x = torch.tensor([-0.5, 0.5], dtype=torch.float64)
        return torch.equal(Clamp01Candidate.apply(x), x.clamp(0, 1)) and False

    check = check_my_checks(says_false)
    assert check.first_failure.got == "says_false returned False"  # the suite's own name


def test_backward_on_a_vector_without_a_sum_is_explained():
    def no_sum(Clamp01Candidate):
        x = torch.tensor([0.25, 0.5], requires_grad=True)
        Clamp01Candidate.apply(x).backward()

    assert "y.sum().backward()" in check_my_checks(no_sum).first_failure.fix


def test_an_assert_on_a_whole_tensor_is_explained():
    def ambiguous(Clamp01Candidate):
        x = torch.tensor([0.25, 0.5])
        assert Clamp01Candidate.apply(x) == x

    assert "torch.equal(a, b)" in check_my_checks(ambiguous).first_failure.fix


def test_a_name_error_and_a_wrong_signature_are_explained():
    def misspelt(Clamp01Candidate):
        Clamp01Candidate.apply(torch.tensor([0.5]))
        return undefined_helper()  # noqa: F821

    def no_argument():
        pass

    assert "undefined_helper does not exist" in check_my_checks(misspelt).first_failure.fix
    assert "exactly one argument" in check_my_checks(no_argument).first_failure.fix


@pytest.mark.parametrize(
    ("given_instead", "named"),
    [
        (Clamp01, "the Function class Clamp01"),
        (Clamp01.apply, "Clamp01.apply"),
        (3, "the number 3"),
        (None, "None"),
    ],
    ids=["Clamp01", "apply", "3", "None"],
)
def test_something_other_than_a_checks_function_gets_one_line(given_instead, named):
    check = check_my_checks(given_instead)
    assert not check.ok and not check.cases and check.first_failure is None
    assert str(check) == (
        f"check_my_checks: you passed {named}; check_my_checks wants your function my_checks, "
        "as in check_my_checks(my_checks)."
    )


# --- the edges: either gradient at exactly 0 and 1 is correct ------------------------------


def demands_grad_out_on_the_edges(Clamp01Candidate):
    """The old answer's edge check: exactly 0 and 1 must let grad_out through."""
    edges = torch.tensor([-0.001, 0.0, 0.001, 0.999, 1.0, 1.001], dtype=torch.float64)
    edges.requires_grad_()
    grad_out = torch.tensor([0.5, 2.0, -1.0, 3.0, 0.25, 4.0], dtype=torch.float64)
    (grad,) = torch.autograd.grad(Clamp01Candidate.apply(edges), edges, grad_out)
    assert grad.tolist() == [0.0, 2.0, -1.0, 3.0, 0.25, 0.0]


def demands_zero_on_the_edges(Clamp01Candidate):
    edges = torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64, requires_grad=True)
    grad_out = torch.tensor([2.0, 3.0, 4.0], dtype=torch.float64)
    (grad,) = torch.autograd.grad(Clamp01Candidate.apply(edges), edges, grad_out)
    assert grad.tolist() == [0.0, 3.0, 0.0]


def test_a_suite_that_rejects_the_strict_mask_is_told_it_fails_correct_code_at_a_kink():
    check = check_my_checks(demands_grad_out_on_the_edges)
    strict = CORRECT[2]
    assert strict.at_edges == "0"
    first = check.first_failure
    assert first.name == f"passes {strict.label}"
    assert [c.passed for c in check.cases[:3]] == [True, True, False]
    assert "the derivative does not exist there" in first.fix
    assert "between 0 and grad_out" in first.fix
    assert "(grad_out.clamp(max=0) <= grad) & (grad <= grad_out.clamp(min=0))" in first.fix
    assert first.read == READ["kinks"]


def test_a_suite_that_demands_zero_on_the_edges_is_told_the_same():
    check = check_my_checks(demands_zero_on_the_edges)
    first = check.first_failure
    assert first.name == CORRECT_NAMES[0]
    assert first.fix.startswith("This Clamp01 is correct: at exactly 0 and 1 it gives grad_out")
    assert "another correct one that gives 0 there" in first.fix
