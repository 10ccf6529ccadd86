"""check_straight_through: the beginner track's MyRound task, one test per wrong answer."""

import warnings

import pytest
import torch

from lessons_lib import RoundSTE
from lessons_lib.exercises.straight_through import check_straight_through

ROUND_CASES = [
    "forward rounds every number",
    "backward gives back one thing",
    "backward passes grad_out on",
    "nothing else changes: x, grad_out, the kind of numbers; ctx keeps no tensor",
]


def my_round(backward, forward=torch.round, saves=False):
    """A learner's MyRound: the given forward, and backward(ctx, grad_out) as written."""

    class MyRound(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if saves:
                ctx.save_for_backward(x)
            return forward(x)

        @staticmethod
        def backward(ctx, grad_out):
            return backward(ctx, grad_out)

    return MyRound


def round_problem(fn):
    """The first failing case of check_straight_through(fn), which must exist."""
    check = check_straight_through(fn)
    assert not check.ok
    return check.first_failure


def test_the_straight_through_answer_passes():
    check = check_straight_through(my_round(lambda ctx, grad_out: grad_out))
    assert check.ok and [c.name for c in check.cases] == ROUND_CASES
    assert str(check).splitlines()[0] == "MyRound: all 4 checks passed. Well done!"


def test_the_course_roundste_passes_the_beginner_check():
    assert check_straight_through(RoundSTE).ok


def test_straight_through_placeholder_ellipsis_is_named():
    first = round_problem(my_round(lambda ctx, grad_out: ...))
    assert first.name == "backward gives back one thing"
    assert first.got == "... (the placeholder)"
    assert "Replace the ..." in first.fix
    assert "return grad_out" not in first.fix  # the answer waits in the hint ladder


def test_straight_through_none_asks_about_the_missing_return():
    first = round_problem(my_round(lambda ctx, grad_out: None))
    assert first.got == "None" and "forget the word return" in first.fix


def test_straight_through_zeros_are_honest_but_nothing_learns():
    first = round_problem(my_round(lambda ctx, grad_out: torch.zeros_like(grad_out)))
    assert first.name == "backward passes grad_out on"
    assert "all zeros" in first.fix and "honest" in first.fix and "nothing learns" in first.fix


def test_straight_through_ones_ignore_what_arrived():
    first = round_problem(my_round(lambda ctx, grad_out: torch.ones_like(grad_out)))
    assert "1 for every number, whatever arrived" in first.fix
    assert "This time grad_out was [0.5, 2, -1, 3]" in first.fix
    assert (first.expected, first.got) == (
        "[0.5, 2, -1, 3]  (grad_out, exactly as it arrived)",
        "[1, 1, 1, 1]",
    )


def test_straight_through_returning_x_is_not_a_gradient():
    fn = my_round(lambda ctx, grad_out: ctx.saved_tensors[0], saves=True)
    first = round_problem(fn)
    assert first.got == "[0.4, 1.6, 2.5, -1.2]"
    assert "gave back x, the numbers that went into forward" in first.fix


@pytest.mark.parametrize(
    ("backward", "says"),
    [
        (lambda ctx, grad_out: 2 * grad_out, "multiplied grad_out by 2"),
        (lambda ctx, grad_out: -grad_out, "flipped the sign of grad_out"),
    ],
    ids=["doubled", "negated"],
)
def test_straight_through_scaled_grad_out_is_named(backward, says):
    first = round_problem(my_round(backward))
    assert first.name == "backward passes grad_out on" and says in first.fix


@pytest.mark.parametrize(
    "returned", [lambda g: (None, g), lambda g: (g, g), lambda g: ()], ids=["none-first", "2", "0"]
)
def test_straight_through_wrong_number_of_things_is_counted(returned):
    first = round_problem(my_round(lambda ctx, grad_out: returned(grad_out)))
    count = len(returned(torch.ones(1)))
    assert first.name == "backward gives back one thing"
    assert f"gave back {count} things, but forward takes one input" in first.fix


def test_straight_through_backward_that_raises_shows_the_error():
    def backward(ctx, grad_out):
        return grad  # noqa: F821  (a learner's typo)

    check = check_straight_through(my_round(backward))
    first = check.first_failure
    assert [c.passed for c in check.cases] == [True, False, False, False]
    assert [c.checked for c in check.cases] == [True, True, False, False]
    assert first.got == "backward stopped with an error: NameError: name 'grad' is not defined"
    assert "return grad_out" not in first.fix


def test_straight_through_forward_that_does_not_round_is_named():
    first = round_problem(my_round(lambda ctx, grad_out: grad_out, forward=lambda x: x * 1))
    assert first.name == "forward rounds every number"
    assert "without rounding" in first.fix and "torch.round(x)" in first.fix


def test_straight_through_rounding_half_up_is_explained():
    fn = my_round(lambda ctx, grad_out: grad_out, forward=lambda x: torch.floor(x + 0.5))
    first = round_problem(fn)
    assert first.expected == "[0, 2, 2, -1]  (torch.round(x) for x = [0.4, 1.6, 2.5, -1.2])"
    assert first.got == "[0, 2, 3, -1]"
    assert "rounded 2.5 up to 3" in first.fix and "2.5 becomes 2" in first.fix


def test_straight_through_forward_that_raises_stops_before_backward():
    def forward(x):
        raise ValueError("oops")

    check = check_straight_through(my_round(lambda ctx, grad_out: grad_out, forward=forward))
    assert [c.passed for c in check.cases] == [False, False, False, False]
    assert [c.checked for c in check.cases] == [True, False, False, False]
    assert check.first_failure.got == "forward stopped with an error: ValueError: oops"


@pytest.mark.parametrize(
    ("passed", "named"),
    [
        (lambda cls: cls(), "an instance of MyRound, MyRound()"),
        (lambda cls: torch.round, "the built-in function torch.round"),
        (lambda cls: 3, "the number 3"),
        (lambda cls: None, "None"),
        (lambda cls: "MyRound", "the string 'MyRound'"),
    ],
    ids=["instance", "built-in-function", "number", "none", "name-in-quotes"],
)
def test_straight_through_non_functions_say_what_was_passed(passed, named):
    cls = my_round(lambda ctx, grad_out: grad_out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # instantiating a Function warns; that is the point
        check = check_straight_through(passed(cls))
    assert not check.ok and not check.cases and check.first_failure is None
    assert str(check) == (
        f"check_straight_through: you passed {named}; check_straight_through wants your "
        "MyRound class, as in check_straight_through(MyRound)."
    )


def test_straight_through_takes_the_apply_of_a_function_as_the_function():
    """One policy across the course: MyRound.apply means MyRound, so the verdict is the same."""
    cls = my_round(lambda ctx, grad_out: grad_out)
    assert str(check_straight_through(cls.apply)) == str(check_straight_through(cls))
    wrong = my_round(lambda ctx, grad_out: grad_out * 2)
    assert str(check_straight_through(wrong.apply, hint=2)) == str(
        check_straight_through(wrong, hint=2)
    )


WRONG_ROUNDS = [
    lambda ctx, grad_out: 1 / 0,
    lambda ctx, grad_out: "grad_out",
    lambda ctx, grad_out: grad_out.sum(),
    lambda ctx, grad_out: grad_out.long(),
    lambda ctx, grad_out: grad_out.to(torch.complex64),
    lambda ctx, grad_out: grad_out * float("nan"),
    lambda ctx, grad_out: torch.set_grad_enabled(False),
]


@pytest.mark.parametrize("backward", WRONG_ROUNDS)
def test_check_straight_through_never_raises_and_restores_torch(backward):
    check = check_straight_through(my_round(backward))
    assert not check.ok and check.first_failure.fix  # always a next step to take
    assert torch.is_grad_enabled()
    str(check), check._repr_html_()  # both views render


def test_no_fix_hands_out_the_answer_but_the_third_hint_does():
    starter = my_round(lambda ctx, grad_out: ...)
    text = str(check_straight_through(starter))
    assert "return grad_out" not in text
    assert "Stuck? check_straight_through(MyRound, hint=1) shows the idea" in text
    assert "return grad_out" not in str(check_straight_through(starter, hint=2))
    assert "return grad_out" in str(check_straight_through(starter, hint=3))


def test_a_hint_level_that_is_not_a_number_shows_no_hint_and_does_not_raise():
    starter = my_round(lambda ctx, grad_out: ...)
    assert "Hint 1" not in str(check_straight_through(starter, hint="two"))


def notebook_round(line, **notebook_globals):
    """MyRound as a notebook cell defines it: its backward sees the notebook's globals."""
    namespace = {"torch": torch, **notebook_globals}
    source = (
        "class MyRound(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return torch.round(x)\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_out):\n"
        f"        return {line}\n"
    )
    exec(source, namespace)  # a learner's cell, written out
    return namespace["MyRound"]


# The notebook's x when a learner reaches the task: the three numbers of the white-lie cells.
NOTEBOOK_X = torch.tensor([0.4, 1.6, 2.5], requires_grad=True)
NOT_GIVEN = (
    "backward receives only ctx and grad_out; x is not given to it (Cube saved x on the "
    "notepad in forward; MyRound needs no x: the white lie passes grad_out back unchanged)"
)


def test_returning_the_notebooks_x_names_it_as_a_tensor_from_outside_backward():
    """A fresh reader's `return x`: the numbers shown are the notebook's x, and it says so."""
    first = round_problem(notebook_round("x", x=NOTEBOOK_X))
    assert first.name == "backward gives back one thing"
    assert first.got == "[0.4, 1.6, 2.5]  (the notebook's own x)"
    assert "backward used x, a tensor from outside it: the notebook's own x" in first.fix
    assert NOT_GIVEN in first.fix and "build its answer from grad_out" in first.fix
    assert "Pass grad_out back whole" not in first.fix


@pytest.mark.parametrize(
    "notebook_x", [NOTEBOOK_X, torch.tensor([2.0])], ids=["three-numbers", "one-number"]
)
def test_copying_cubes_line_says_backward_is_not_given_x(notebook_x):
    """Cube's return line with the notebook's x: a size error, or (one number) a wrong value."""
    first = round_problem(notebook_round("grad_out * 3 * x**2", x=notebook_x))
    assert NOT_GIVEN in first.fix and "the notebook's own x" in first.fix
    assert "Read the error" not in first.fix


def test_copying_cubes_line_in_a_fresh_kernel_names_the_missing_x():
    first = round_problem(notebook_round("grad_out * 3 * x**2"))
    assert first.got == "backward stopped with an error: NameError: name 'x' is not defined"
    assert NOT_GIVEN in first.fix and "Read the error" not in first.fix
    assert "return grad_out" not in first.fix  # the answer waits in the hint ladder


def test_returning_x_in_a_fresh_kernel_names_the_missing_x():
    first = round_problem(notebook_round("x"))
    assert NOT_GIVEN in first.fix


def test_a_correct_backward_beside_a_notebook_x_still_passes():
    assert check_straight_through(notebook_round("grad_out", x=NOTEBOOK_X)).ok


def test_a_forward_that_saves_x_is_not_told_ctx_keeps_no_tensor():
    """MyRound's backward needs nothing from forward: x saved with ctx.save_for_backward is a
    tensor ctx keeps, and the check says so from what forward saved."""
    check = check_straight_through(my_round(lambda ctx, grad_out: grad_out, saves=True))
    assert not check.ok
    assert [c.mark for c in check.cases] == ["✓", "✓", "✓", "✗"]
    first = check.first_failure
    assert first.name == ROUND_CASES[3]
    assert first.got == "forward saved x with ctx.save_for_backward"
    assert "needs nothing from forward" in first.fix and "ctx.save_for_backward" in first.fix


def test_a_forward_that_saves_another_tensor_is_told_how_many_it_saved():
    class SavesTwo(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x * 1, x * 2)
            return torch.round(x)

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out

    first = round_problem(SavesTwo)
    assert first.got == "forward saved 2 tensors with ctx.save_for_backward"


def test_an_extra_trailing_none_is_forgiven_as_autograd_forgives_it():
    assert check_straight_through(my_round(lambda ctx, grad_out: (grad_out, None))).ok
