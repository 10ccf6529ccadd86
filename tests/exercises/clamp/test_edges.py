"""Part 1, check_edge_test: the answer passes; the starter and learners' edge tests are told
which broken Clamp01s they miss and what to add; slips are explained; it never raises."""

import pytest
import torch

from lessons_lib import Clamp01
from lessons_lib.exercises.base import ExerciseCheck
from lessons_lib.exercises.clamp.answers import edge_test
from lessons_lib.exercises.clamp.edges import check_edge_test
from lessons_lib.exercises.clamp.words import EDGE_BUGS
from tests.exercises.clamp.learners import edge_starter

EDGE_NAMES = [
    "my_edge_test gives back True or False",
    "passes the course's Clamp01 (correct)",
    "passes a Clamp01 that gives back 0 at exactly 0 and 1 (also correct)",
    *[f"catches {wrong}" for _, wrong, _ in EDGE_BUGS],
    "sends each point its own upstream gradient",
]


def edge_test_with(points, grad_out, expected, compare=torch.equal):
    """A learner's edge test with these numbers."""

    def my_edge_test(Clamp01Candidate):
        x = torch.tensor(points, requires_grad=True)
        Clamp01Candidate.apply(x).backward(torch.tensor(grad_out))
        return compare(x.grad, torch.tensor(expected))

    return my_edge_test


def edge_caught(check: ExerciseCheck) -> list[str]:
    return [c.name.removeprefix("catches ") for c in check.cases[3:8] if c.passed]


def test_the_part_1_answer_passes_every_case():
    check = check_edge_test(edge_test)
    assert check.ok, str(check)
    assert [c.name for c in check.cases] == [
        n.replace("my_edge_test", "edge_test") for n in EDGE_NAMES
    ]
    assert edge_test(Clamp01) is True


def test_the_part_1_starter_catches_only_the_inverted_mask_and_says_what_to_add():
    check = check_edge_test(edge_starter)
    assert [c.passed for c in check.cases[:3]] == [True, True, True]
    assert edge_caught(check) == [EDGE_BUGS[2][1]]
    first = check.first_failure
    assert first.name == f"catches {EDGE_BUGS[0][1]}" and "below 0 or above 1" in first.fix
    assert "edge_starter gave back True" in first.got  # the name of the test that ran
    uneven = check.cases[-1]
    assert uneven.got == "backward got grad_out = [1], a single number"
    text = str(check)
    assert "Add a point above 1, such as 1.5" in text and "Add a point just below 0" in text


def test_a_grad_out_of_ones_misses_the_forgotten_grad_out_and_is_told_to_vary_it():
    ones = edge_test_with([-0.5, 0.25, 0.75, 1.5], [1.0] * 4, [0.0, 1.0, 1.0, 0.0])
    check = check_edge_test(ones)
    assert "a backward that forgets grad_out" not in edge_caught(check)
    assert len(edge_caught(check)) == 4
    uneven = check.cases[-1]
    assert (
        not uneven.passed
        and uneven.got == "backward got grad_out = [1, 1, 1, 1], one number repeated"
    )
    assert "torch.tensor([10.0, 20.0, 30.0, 40.0])" in uneven.fix


def test_an_even_grad_out_other_than_one_catches_every_bug_and_still_fails_the_uneven_case():
    twos = edge_test_with([-0.5, 0.25, 0.75, 1.5], [2.0] * 4, [0.0, 2.0, 2.0, 0.0])
    check = check_edge_test(twos)
    assert len(edge_caught(check)) == 5 and not check.ok
    assert check.first_failure.name == "sends each point its own upstream gradient"


def test_points_only_around_zero_miss_the_forgotten_edge_at_one():
    low = edge_test_with([-0.5, 0.5], [10.0, 20.0], [0.0, 20.0])
    check = check_edge_test(low)
    assert [c.name for c in check.cases if not c.passed] == [
        "catches a backward that forgets the edge at 1"
    ]


def test_demanding_grad_out_at_exactly_0_and_1_fails_a_correct_clamp_and_names_the_corner():
    on_edges = edge_test_with(
        [-0.5, 0.0, 0.5, 1.0, 1.5], [10.0, 20.0, 30.0, 40.0, 50.0], [0.0, 20.0, 30.0, 40.0, 0.0]
    )
    check = check_edge_test(on_edges)
    first = check.first_failure
    assert first.name == EDGE_NAMES[2]
    assert first.fix.startswith("This Clamp01 is correct too. At exactly 0 and 1 it gives back 0")
    assert "no single slope" in first.fix and "-0.001 and 0.001" in first.fix
    assert first.read == "This notebook, Part 1, “The corners at 0 and 1”"
    # No catch counts from a test that fails correct code; the grad_out it sent is still judged.
    assert not any(c.checked for c in check.cases[3:8])
    assert [c.line for c in check.cases[3:8]] == [
        f"○ {name} (not checked yet: your test fails a correct Clamp01 (see above), so a "
        "catch would prove nothing)"
        for name in EDGE_NAMES[3:8]
    ]
    assert check.cases[8].line == f"✓ {EDGE_NAMES[8]}" and len(check.cases) == 9
    assert str(check).splitlines()[0] == "my_edge_test: 3 of 9 checks passed, 5 not checked yet"


def test_a_wrong_expected_is_shown_what_a_correct_clamp_gave_back():
    wrong = edge_test_with(
        [-0.5, 0.25, 0.75, 1.5], [10.0, 20.0, 30.0, 40.0], [0.0, 10.0, 20.0, 0.0]
    )
    first = check_edge_test(wrong).first_failure
    assert first.name == EDGE_NAMES[1] and first.got == "my_edge_test returned False"
    assert "x = [-0.5, 0.25, 0.75, 1.5] and grad_out = [10, 20, 30, 40]" in first.fix
    assert "the Clamp01's backward gave back [0, 20, 30, 0]" in first.fix
    assert "from outside it" not in first.fix  # its x and grad_out are its own


@pytest.mark.parametrize(
    ("compare", "words"),
    [
        (lambda a, b: a == b, "torch.equal(x.grad, expected), which gives back one True or False"),
        (lambda a, b: None, "End my_edge_test with a return line"),
    ],
    ids=["elementwise", "no-return"],
)
def test_a_test_that_does_not_give_back_true_or_false_is_told_how_and_nothing_else_is_checked(
    compare, words
):
    test = edge_test_with(
        [-0.5, 0.25, 0.75, 1.5], [10.0, 20.0, 30.0, 40.0], [0, 20, 30, 0], compare
    )
    check = check_edge_test(test)
    assert check.first_failure.name == EDGE_NAMES[0] and words in check.first_failure.fix
    assert not any(c.checked for c in check.cases[1:])
    assert [c.line for c in check.cases[1:]] == [
        f"○ {name} (not checked yet: fix the first problem, then run the check again)"
        for name in EDGE_NAMES[1:]
    ]


def test_slips_that_stop_an_edge_test_are_explained():
    def no_requires_grad(Clamp01Candidate):
        x = torch.tensor([-0.5, 0.5])
        Clamp01Candidate.apply(x).backward(torch.tensor([1.0, 2.0]))
        return torch.equal(x.grad, torch.tensor([0.0, 2.0]))

    def always_true(Clamp01Candidate):
        return True

    def always_false(Clamp01Candidate):
        return False

    assert "requires_grad=True" in check_edge_test(no_requires_grad).first_failure.fix
    short_grad_out = edge_test_with([-0.5, 0.5, 1.5], [1.0, 2.0], [0.0, 2.0, 0.0])
    assert "one number for each number of x" in check_edge_test(short_grad_out).first_failure.fix
    assert "never called Clamp01Candidate.apply" in check_edge_test(always_true).first_failure.got
    assert not check_edge_test(always_false).ok


@pytest.mark.parametrize(
    ("given_instead", "named"),
    [
        (Clamp01, "the Function class Clamp01"),
        (Clamp01.apply, "Clamp01.apply"),
        (edge_test(Clamp01), "the value True"),
        (None, "None"),
    ],
    ids=["Clamp01", "apply", "True", "None"],
)
def test_something_other_than_an_edge_test_gets_one_line(given_instead, named):
    check = check_edge_test(given_instead)
    assert not check.ok and not check.cases and check.first_failure is None
    assert str(check) == (
        f"check_edge_test: you passed {named}; check_edge_test wants your function "
        "my_edge_test, as in check_edge_test(my_edge_test)."
    )


def test_the_edge_check_never_raises_and_its_hints_end_with_the_answer():
    def exits(Clamp01Candidate):
        raise SystemExit(1)

    assert not check_edge_test(exits).ok
    check = check_edge_test(edge_starter)
    assert [h.label for h in check.hints] == ["the idea", "the PyTorch calls", "the answer"]
    assert "def edge_test(Clamp01Candidate" not in str(check.hint(2))
    assert "def edge_test(Clamp01Candidate" in str(check.hint(3))
    assert str(check).endswith(
        "check_edge_test(my_edge_test, hint=1) shows the idea "
        "(hint=2 the PyTorch calls, then hint=3 the answer)."
    )


def test_integer_points_in_part_1_are_told_to_write_a_decimal_point():
    whole = edge_test_with([-1, 0, 1, 2], [10.0, 20.0, 30.0, 40.0], [0.0, 20.0, 30.0, 0.0])
    first = check_edge_test(whole).first_failure
    assert first.name == EDGE_NAMES[1]
    assert "Only Tensors of floating point" in first.got
    assert "write -1.0, not -1 (or torch.tensor([...], dtype=torch.float32))" in first.fix


@pytest.mark.parametrize(
    ("grad_out", "got"),
    [
        (
            [10.0, 20.0, 20.0, 10.0],
            "backward got grad_out = [10, 20, 20, 10], in which 10 and 20 are repeated",
        ),
        ([1.0, 1.0, 1.0, 5.0], "backward got grad_out = [1, 1, 1, 5], in which 1 is repeated"),
    ],
    ids=["two-repeated", "one-repeated"],
)
def test_a_grad_out_with_a_repeated_number_is_not_one_of_its_own_for_each_point(grad_out, got):
    """Each point gets its own upstream gradient only when every number differs: a repeated
    one is named, as backward received it."""
    points = [-0.5, 0.001, 0.999, 1.5]
    expected = [g * (0 < p < 1) for p, g in zip(points, grad_out, strict=True)]
    uneven = check_edge_test(edge_test_with(points, grad_out, expected)).cases[-1]
    assert uneven.name == "sends each point its own upstream gradient"
    assert (uneven.mark, uneven.got) == ("✗", got)
    assert uneven.expected == "an upstream gradient with a different number for each point"
