"""check_nudge: lesson 2's beginner task, one test per wrong answer learners write."""

import functools

import pytest
import torch

from lessons_lib import Cube
from lessons_lib.exercises.nudge import check_nudge
from lessons_lib.finite_differences import central_difference

NUDGE_CASES = [
    "my_nudge runs and gives back one number",
    "x³ at x = 3, nudge h = 0.1",
    "x² at x = -1, nudge h = 0.25",
    "x³ at x = 3, nudge h = 1",
]


def named(body):
    """A learner's my_nudge: body(f, x, h) under the name the notebook gives it."""

    def my_nudge(f, x, h):
        return body(f, x, h)

    return my_nudge


def first_problem(fn):
    """The first failing case of check_nudge(fn), which must exist."""
    check = check_nudge(fn)
    assert not check.ok
    return check.first_failure


def test_the_one_line_answer_passes():
    check = check_nudge(named(lambda f, x, h: (f(x + h) - f(x - h)) / (2 * h)))
    assert check.ok and [c.name for c in check.cases] == NUDGE_CASES
    assert str(check).splitlines()[0] == "my_nudge: all 4 checks passed. Well done!"


def test_the_course_central_difference_passes_the_beginner_check():
    assert check_nudge(central_difference).ok


@pytest.mark.parametrize(
    "body",
    [
        lambda f, x, h: ((f(x + h) - f(x - h)) / (2 * h)).item(),  # a plain Python number
        lambda f, x, h: (f(x + h) - f(x - h)) / h / 2,  # the same, divided in two steps
        lambda f, x, h: (f(x + h) - f(x - h))[0] / (2 * h),  # a 0-d tensor
    ],
    ids=["item", "divided-twice", "0-d"],
)
def test_equivalent_right_answers_pass(body):
    assert check_nudge(named(body)).ok


def test_the_starter_placeholder_is_named_and_the_answer_waits_in_the_hints():
    check = check_nudge(named(lambda f, x, h: ...))
    first = check.first_failure
    assert [c.passed for c in check.cases] == [False, False, False, False]
    assert first.got == "... (the placeholder)" and "Replace the ..." in first.fix
    assert "(2 * h)" not in str(check)  # the line itself is hint 3, not the first verdict
    assert "return (f(x + h) - f(x - h)) / (2 * h)" in str(check.hint(3))


def test_a_missing_return_is_asked_about():
    first = first_problem(named(lambda f, x, h: None))
    assert first.got == "None" and "forget the word return" in first.fix


@pytest.mark.parametrize(
    ("body", "got", "says"),
    [
        (lambda f, x, h: (f(x + h) - f(x)) / h, "27.91", "upwards only"),
        (lambda f, x, h: (f(x) - f(x - h)) / h, "26.11", "downwards only"),
        (lambda f, x, h: (f(x + h) - f(x - h)) / h, "54.02", "2 * h apart"),
        (lambda f, x, h: (f(x + h) - f(x - h)) / 2 * h, "0.2701", "read '/ 2 * h'"),
        (lambda f, x, h: f(x + h) - f(x - h) / (2 * h), "-92.154", "only f(x - h) was divided"),
        (lambda f, x, h: f(x + h) - f(x - h) / 2 * h, "28.57155", "and then multiplied by h"),
        (lambda f, x, h: f(x + h) - f(x - h), "5.402", "not per unit of nudge"),
        (lambda f, x, h: (f(x + h) - f(x - h)) / 2, "2.701", "divided by 2 but not by h"),
        (lambda f, x, h: (f(x + h) - f(x - h)) * (2 * h), "1.0804", "multiplied by the distance"),
        (lambda f, x, h: (f(x - h) - f(x + h)) / (2 * h), "-27.01", "sign is flipped"),
        (lambda f, x, h: ((f(x) + h) - (f(x) - h)) / (2 * h), "1", "f(x + h), not f(x) + h"),
        (lambda f, x, h: 3 * x**2, "27", "slope from calculus"),
        (
            lambda f, x, h: (f(x + 1e-4) - f(x - 1e-4)) / 2e-4,
            "27.00000001",
            "nudge size of your own",
        ),
    ],
    ids=[
        "up-only",
        "down-only",
        "forgot-the-2",
        "divide-by-2-times-h",
        "no-brackets-around-the-difference",
        "no-brackets-at-all",
        "no-division",
        "divided-by-2-only",
        "multiplied",
        "sign-flipped",
        "nudged-the-output",
        "calculus-not-a-nudge",
        "own-step",
    ],
)
def test_each_usual_slip_on_the_cube_example_gets_its_own_fix(body, got, says):
    first = first_problem(named(body))
    assert first.name == "x³ at x = 3, nudge h = 0.1"
    assert first.got == got and says in first.fix
    assert first.expected.startswith("27.01  (f(3.1) = 29.791 and f(2.9) = 24.389")


def test_an_unrecognised_wrong_number_gets_the_idea_in_words():
    first = first_problem(named(lambda f, x, h: (f(x + h) - f(x - h)) / (3 * h)))
    assert first.got == "18.00666667"
    assert "how far f moves between x - h and x + h" in first.fix


def test_a_hard_coded_answer_passes_the_cube_but_not_the_square():
    check = check_nudge(named(lambda f, x, h: 27.01))
    assert [c.passed for c in check.cases] == [True, True, False, False]
    first = check.first_failure
    assert first.got == "27.01" and "write the answer in as a number" in first.fix
    assert first.expected.startswith("-2  ")


def test_nudging_cube_instead_of_f_is_caught_on_the_square():
    body = lambda f, x, h: (Cube.apply(x + h) - Cube.apply(x - h)) / (2 * h)  # noqa: E731
    first = first_problem(named(body))
    assert first.name == "x² at x = -1, nudge h = 0.25"
    assert first.got == "3.0625" and "this time f was x²" in first.fix


def test_an_answer_with_numbers_of_its_own_is_caught_on_the_square():
    body = lambda f, x, h: (f(x + h) - f(x - h)) / (2 * h) if x.item() > 0 else 0.0  # noqa: E731
    first = first_problem(named(body))
    assert first.name == "x² at x = -1, nudge h = 0.25"
    assert "no numbers of your own" in first.fix


def test_an_error_on_the_square_only_is_reported_under_the_square():
    def body(f, x, h):
        if x.item() < 0:
            raise ValueError("negative")
        return (f(x + h) - f(x - h)) / (2 * h)

    check = check_nudge(named(body))
    assert [c.passed for c in check.cases] == [True, True, False, True]
    assert check.first_failure.got == "my_nudge stopped with an error: ValueError: negative"


def test_a_typo_shows_the_error_without_the_answer():
    def my_nudge(f, x, h):
        return (f(x + h) - f(x - hh)) / (2 * h)  # noqa: F821  (a learner's typo)

    check = check_nudge(my_nudge)
    first = check.first_failure
    assert [c.passed for c in check.cases] == [False, False, False, False]
    assert first.got == "my_nudge stopped with an error: NameError: name 'hh' is not defined"
    assert "(2 * h)" not in first.fix


def test_a_function_with_two_parameters_is_told_the_first_line():
    def my_nudge(f, x):
        return f(x)

    first = first_problem(my_nudge)
    assert first.got == "def my_nudge(f, x):"
    assert "def my_nudge(f, x, h):" in first.fix and "three things" in first.fix


def test_giving_back_two_values_asks_for_one_number():
    first = first_problem(named(lambda f, x, h: (f(x + h), f(x - h))))
    assert first.got == "a tuple of 2 things" and "Combine them into one number" in first.fix


def test_giving_back_several_numbers_is_counted():
    first = first_problem(named(lambda f, x, h: torch.cat([f(x + h), f(x - h)])))
    assert first.got == "a tensor holding 2 numbers"


def test_giving_back_text_is_not_a_number():
    first = first_problem(named(lambda f, x, h: "27.01"))
    assert first.got == "a str" and "not a number" in first.fix


def test_dividing_by_zero_is_named():
    first = first_problem(named(lambda f, x, h: (f(x + h) - f(x - h)) / (h - h)))
    assert first.got == "inf" and "h - h" in first.fix


@pytest.mark.parametrize(
    ("passed", "named"),
    [
        (torch.tensor([27.01]), "a tensor, tensor([27.0100])"),
        (27.01, "the number 27.01"),
        ("my_nudge", "the string 'my_nudge'"),
    ],
    ids=["tensor", "number", "text"],
)
def test_passing_something_other_than_the_function_says_what_was_passed_and_what_to_pass(
    passed, named
):
    check = check_nudge(passed)
    assert not check.ok and not check.cases and check.first_failure is None
    assert str(check) == (
        f"check_nudge: you passed {named}; check_nudge wants your function my_nudge, "
        "as in check_nudge(my_nudge)."
    )


def test_a_partial_or_lambda_is_called_my_nudge():
    fn = functools.partial(lambda f, x, h: (f(x + h) - f(x - h)) / (2 * h))
    assert str(check_nudge(fn)).startswith("my_nudge: all 4 checks passed")


@pytest.mark.parametrize("level", [0, 1, 2, 3, 7, -1, "two", True])
def test_the_hint_ladder_never_raises_and_reveals_in_order(level):
    text = str(check_nudge(named(lambda f, x, h: ...), hint=level))
    shown = [n for n in (1, 2, 3) if f"Hint {n} of 3" in text]
    assert shown == list(range(1, len(shown) + 1))


def test_the_check_leaves_torch_as_it_found_it():
    def body(f, x, h):
        torch.set_grad_enabled(False)
        torch.set_default_dtype(torch.float64)
        return (f(x + h) - f(x - h)) / (2 * h)

    before = (torch.is_grad_enabled(), torch.get_default_dtype())
    assert check_nudge(named(body)).ok
    assert (torch.is_grad_enabled(), torch.get_default_dtype()) == before


def test_the_verdict_has_html_for_the_notebook():
    html = check_nudge(named(lambda f, x, h: (f(x + h) - f(x)) / h))._repr_html_()
    assert "upwards only" in html and "27.91" in html


def test_numbers_left_over_from_earlier_cells_are_named_not_a_size_of_its_own():
    """A fresh reader's first try: the up and down of the notebook's cell, in float32."""
    up, down = torch.tensor([29.791]), torch.tensor([24.389])
    check = check_nudge(lambda f, x, h: (up - down) / (2 * h))
    assert "never called f" in check.first_failure.fix


def test_f_dot_apply_is_explained_as_f_already_being_the_step():
    check = check_nudge(lambda f, x, h: (f.apply(x + h) - f.apply(x - h)) / (2 * h))
    assert "f is already a step you can call" in check.first_failure.fix


def test_missing_brackets_fail_both_examples_not_one_by_coincidence():
    check = check_nudge(lambda f, x, h: f(x + h) - f(x - h) / (2 * h))
    assert [c.passed for c in check.cases] == [True, False, False, False]


def test_a_stray_comma_after_the_return_line_is_named():
    """`return (...) / (2 * h),` gives back a 1-tuple: say which comma to remove."""
    first = first_problem(named(lambda f, x, h: ((f(x + h) - f(x - h)) / (2 * h),)))
    assert first.got == "a tuple of 1 thing"
    assert "remove the comma at the end of the return line" in first.fix
    assert "1 things" not in first.fix and "Combine them" not in first.fix


def test_one_number_in_square_brackets_is_asked_for_alone():
    first = first_problem(named(lambda f, x, h: [(f(x + h) - f(x - h)) / (2 * h)]))
    assert first.got == "a list of 1 thing" and "square brackets" in first.fix


def test_an_h_written_in_is_caught_where_the_size_of_the_nudge_matters():
    """For x² the both-ways nudge is exact at any h, so a my_nudge that uses 0.1 whatever h
    it is given passes x² and x³ with h = 0.1; x³ with h = 1 (28, not 27.01) tells them apart,
    and the verdict says what the two calls gave back."""
    check = check_nudge(named(lambda f, x, h: (f(x + 0.1) - f(x - 0.1)) / (2 * 0.1)))
    assert not check.ok
    assert [(c.name, c.mark) for c in check.cases][1:] == [
        ("x³ at x = 3, nudge h = 0.1", "✓"),
        ("x² at x = -1, nudge h = 0.25", "✓"),
        ("x³ at x = 3, nudge h = 1", "✗"),
    ]
    first = check.first_failure
    assert first.expected.startswith("28  ") and first.got == "27.01"
    assert first.fix.startswith(
        "my_nudge gave back the same number, 27.01, for h = 0.1 and for h = 1:"
    )
