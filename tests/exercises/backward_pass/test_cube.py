"""Part 1, check_cube: the beginner's self-check on their fixed Cube; one test per wrong
backward a beginner writes, in the beginner track's words."""

import warnings

import pytest

from lessons_lib import Cube
from lessons_lib.exercises.backward_pass.cube import check_cube
from tests.exercises.backward_pass.learners import (
    PART_1_UNTAUGHT,
    STARTER_CUBE,
    beginners_cube,
    cell,
)

CUBE_CASES = [
    "forward computes x³",
    "backward gives back one tensor, shaped like x",
    "backward multiplies grad_out by the slope 3·x²",
    "the gradient doctor finds no problems",
]


@pytest.mark.parametrize(
    "last_line",
    ["return grad_out * 3 * x**2", "return 3 * x**2 * grad_out", "return grad_out * 3 * x * x"],
)
def test_check_cube_passes_a_fixed_cube(last_line):
    check = check_cube(beginners_cube(last_line))
    assert check.ok and [c.name for c in check.cases] == CUBE_CASES
    assert str(check).splitlines()[0] == "Cube: all 4 checks passed. Well done!"


def test_check_cube_passes_the_course_cube_and_fails_the_starter():
    assert check_cube(Cube).ok
    check = check_cube(cell(STARTER_CUBE)["Cube"])
    assert [c.passed for c in check.cases] == [True, True, False, False]
    first = check.first_failure
    assert first.expected == (
        "[120, 6, -0.75, 13.5]  (grad_out times 3·x², with grad_out = [10, 2, -1, 0.5])"
    )
    assert first.got == "[12, 3, 0.75, 27]"
    assert first.fix.startswith("backward gave back the slope 3·x² alone, whatever arrived.")
    assert [c.checked for c in check.cases] == [True, True, True, False]
    assert str(check).splitlines()[0] == "Cube: 2 of 4 checks passed, 1 not checked yet"
    assert check.cases[3].line == (
        f"○ {CUBE_CASES[3]} (not checked yet: fix the first problem, then run the check again)"
    )


@pytest.mark.parametrize(
    ("last_line", "case", "says"),
    [
        ("return grad_out", 2, "that is MyRound's white lie"),
        ("return grad_out + 3 * x**2", 2, "backward added grad_out and the slope"),
        (
            "return 10 * 3 * x**2",
            2,
            "backward multiplied the slope by the same number, 10, at every point",
        ),
        ("return grad_out * x**2", 2, "the 3 is missing"),
        ("return grad_out * 3 * x", 2, "with x squared"),
        ("return grad_out * x**3", 2, "backward multiplied grad_out by x³, forward's result"),
        ("return -grad_out * 3 * x**2", 2, "The sign is flipped"),
        ("grad_out * 3 * x**2", 1, "Did the word return go missing"),
        ("return grad_out * 3 * x**2, grad_out", 1, "backward gave back 2 things"),
        ("return (grad_out * 3 * x**2).sum()", 1, "no .sum()"),
        ("return grad_output * 3 * x**2", 1, "the upstream gradient is called grad_out"),
        ("grad_out *= 3 * x**2\n        return grad_out", 3, "backward changed grad_out itself"),
        ("return grad_out * 3 * x * 2", 2, "in Python * multiplies, and 'squared' is written **"),
        ("return 3 * x.pow_(2) * grad_out", 3, "backward changed x itself"),
    ],
    ids=[
        "white-lie",
        "added",
        "hard-coded-10",
        "no-3",
        "3x",
        "x-cubed",
        "sign",
        "no-return",
        "two-things",
        "summed",
        "name-error",
        "in-place",
        "times-two",
        "saved-x-changed",
    ],
)
def test_check_cube_names_each_wrong_backward_a_beginner_writes(last_line, case, says):
    check = check_cube(beginners_cube(last_line))
    assert not check.ok and check.first_failure.name == CUBE_CASES[case]
    assert says in check.first_failure.fix
    assert [c.passed for c in check.cases][:case] == [True] * case


def test_check_cube_names_a_tuple_from_the_notepad_and_a_stashed_x():
    tuple_x = check_cube(
        beginners_cube("return grad_out * 3 * x**2", saved="x = ctx.saved_tensors")
    )
    assert tuple_x.first_failure.fix == (
        "The error names a tuple. ctx.saved_tensors is a tuple (a group) of the saved tensors, "
        "even when it holds one: take x out of it with the starter's line "
        "(x,) = ctx.saved_tensors."
    )
    stashed = check_cube(
        beginners_cube("return grad_out * 3 * ctx.x**2", saved="pass", forward="ctx.x = x")
    )
    assert stashed.first_failure.name == CUBE_CASES[3]
    assert stashed.first_failure.got.startswith("[ctx-tensor]")
    assert "ctx.save_for_backward(x) in forward" in stashed.first_failure.fix


def test_check_cube_cannot_be_passed_by_a_backward_right_only_at_its_own_points():
    """Right at the four points the check writes out, wrong for |x| >= 5: the doctor sees it."""
    check = check_cube(beginners_cube("return grad_out * 3 * x**2 * (x.abs() < 5)"))
    assert [c.passed for c in check.cases] == [True, True, True, False]
    assert check.first_failure.got.startswith("[gradient]")
    assert (
        "check_function(Cube, lambda x: x**3, inputs=(torch.tensor([2.0," in check.first_failure.fix
    )


def test_check_cube_refuses_what_is_not_a_class_and_never_raises():
    # One policy across the course: Cube.apply means Cube.
    assert str(check_cube(Cube.apply)) == str(check_cube(Cube)) and check_cube(Cube.apply).ok
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # instantiating a Function warns; that is the point
        instance = check_cube(Cube())
    assert not instance.ok and not instance.cases and instance.first_failure is None
    assert str(instance) == (
        "check_cube: you passed an instance of Cube, Cube(); check_cube wants your Cube class, "
        "as in check_cube(Cube)."
    )
    nothing = check_cube(None)
    assert not nothing.ok and str(nothing) == (
        "check_cube: you passed None; check_cube wants your Cube class, as in check_cube(Cube)."
    )
    broken_forward = cell(STARTER_CUBE.replace("return x**3", "return undefined_name"))["Cube"]
    first = check_cube(broken_forward).first_failure
    assert first.name == CUBE_CASES[0] and "NameError" in first.got


def test_check_cube_hints_go_idea_then_where_then_the_line():
    starter = cell(STARTER_CUBE)["Cube"]
    assert str(check_cube(starter)).splitlines()[-1] == (
        "Stuck? check_cube(Cube, hint=1) shows the idea (hint=2 where it lives, then hint=3 "
        "the answer)."
    )
    idea = str(check_cube(starter, hint=1))
    assert (
        "Hint 1 of 3 (the idea): Remember the kitchen line" in idea
        and "return" not in idea.split("Hint 1")[1]
    )
    answer = str(check_cube(starter, hint=3))
    assert answer.splitlines()[-1] == "    return grad_out * 3 * x**2"


def test_check_cube_speaks_only_the_beginner_tracks_words():
    """Every fix, hint and case name of Part 1's check avoids words the beginner track never
    taught (the doctor's own code, printed as evidence, is the one exception)."""
    from lessons_lib.exercises.backward_pass import cube_words

    texts = [h.text for h in cube_words.CUBE_HINTS] + CUBE_CASES
    texts += list(cube_words.DOCTOR_FIXES.values())
    for source in [
        "return grad_out",
        "return 10 * 3 * x**2",
        "grad_out * 3 * x**2",
        "return 3 * x**2",
    ]:
        check = check_cube(beginners_cube(source))
        texts += [check.first_failure.fix, check.first_failure.expected]
    for text in texts:
        for word in PART_1_UNTAUGHT:
            assert word not in text, (word, text)
