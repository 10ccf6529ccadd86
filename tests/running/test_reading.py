"""Stories told from the learner's own source: an alias that is no copy, a copy that reuses
the name x, a None gradient's real cause, and an integer tensor's error (PyTorch's, or the
learner's own check) named with the line that raised it."""

import pytest
import torch

from lessons_lib import Cube, cube_grad
from lessons_lib.exercises.backward_pass.cube_grad import check_cube_grad
from tests.exercises.backward_pass.learners import (
    CASE_NAMES,
    NO_GRAD,
    STARTER_CUBE,
    cell,
    failed,
    learner,
    problem,
)


def test_copy_equals_x_is_named_as_a_second_name_not_a_copy():
    namespace = cell(
        STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2")
        + """
def cube_grad(x):
    copy = x
    copy.requires_grad_(True)
    Cube.apply(copy).sum().backward()
    return copy.grad
"""
    )
    fix = check_cube_grad(namespace["cube_grad"]).first_failure.fix
    assert "`copy = x` gives the same tensor a second name; it does not copy it" in fix


def test_an_error_that_does_not_say_what_to_pass_fails_the_integer_case():
    namespace = cell(
        STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2")
        + """
def cube_grad(x):
    if not x.is_floating_point():
        raise TypeError("wrong type")
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
"""
    )
    check = check_cube_grad(namespace["cube_grad"])
    assert check.first_failure.name == "an integer tensor is refused with a clear error"
    assert "does not say what to pass instead" in check.first_failure.fix


def test_a_dtype_equals_int_check_that_never_fires_is_explained():
    namespace = cell(
        STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2")
        + """
def cube_grad(x):
    if x.dtype == int:
        raise TypeError("cube_grad needs a floating-point tensor")
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
"""
    )
    fix = check_cube_grad(namespace["cube_grad"]).first_failure.fix
    assert "Your own check did not fire" in fix and "x.is_floating_point()" in fix


# --- a copy that reuses the name x: the story must match where the gradient went --------

RENAMED_CLONE = """
def cube_grad(x):
    x = x.clone().requires_grad_(True)
    Cube.apply(x).sum().backward()
    return x.grad
"""


def test_a_clone_named_x_really_sends_the_gradient_to_the_callers_tensor():
    """The fact the check reports, on torch itself: the caller's leaf gets it, the clone not."""
    answer = learner(RENAMED_CLONE)
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="not a leaf Tensor"):  # reading the clone's .grad
        assert answer(x) is None
    assert x.grad.tolist() == [3.0, 12.0]


def test_a_clone_named_x_is_told_the_callers_tensor_got_the_gradient():
    check = check_cube_grad(learner(RENAMED_CLONE))
    assert failed(check) == [
        *CASE_NAMES[8:10],
        "an integer tensor is refused with a clear error",
        NO_GRAD,
    ]
    leaf, non_leaf = (c for c in check.cases[8:10] if not c.passed)
    assert leaf.got == "None"
    assert leaf.fix.startswith(
        "`x = x.clone().requires_grad_(True)` gives the name x to your copy, so `return x.grad` "
        "returned the copy's .grad, which is None, and the gradient went into the caller's "
        "x.grad instead: a copy made with x.clone() stays connected to the caller's tensor"
    )
    assert "went to your copy" not in leaf.fix and "x.detach()" in leaf.fix
    assert "the gradient went into the caller's w.grad instead" in non_leaf.fix
    assert "through it on to w, which x was made from" in non_leaf.fix


def test_a_non_clone_copy_is_not_said_to_be_made_with_clone():
    first = problem(RENAMED_CLONE.replace("x.clone()", "(x * 1)"))
    assert "x.clone() stays connected" not in first.fix
    assert "a copy made with a PyTorch step on x" in first.fix


def test_the_callers_own_non_leaf_x_is_told_that_w_got_the_gradient():
    def straight_on_x(x):
        if not x.is_floating_point():
            raise TypeError("need floats")
        if not x.requires_grad:
            return cube_grad(x)
        Cube.apply(x).sum().backward()
        return x.grad

    non_leaf = check_cube_grad(straight_on_x).cases[9]
    assert not non_leaf.passed
    assert "fills .grad only for leaf tensors" in non_leaf.fix
    assert "passed the gradient on into w.grad" in non_leaf.fix


@pytest.mark.parametrize(
    ("source", "starts"),
    [
        (
            """
def cube_grad(x):
    x = x.detach().requires_grad_(True)
    torch.autograd.grad(Cube.apply(x).sum(), x)
    return x.grad
""",
            "`x = x.detach().requires_grad_(True)` gives the name x to your copy, so "
            "`return x.grad` returned the copy's .grad, which is None: torch.autograd.grad "
            "gives the gradient back and stores it in no .grad",
        ),
        (
            """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return leaf.grad
""",
            "cube_grad returned leaf.grad, which is None: torch.autograd.grad gives the "
            "gradient back and stores it in no .grad",
        ),
        (
            """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    total = Cube.apply(leaf).sum()
    return leaf.grad
""",
            "cube_grad returned leaf.grad, which is None because nothing asked autograd for a "
            "gradient",
        ),
    ],
    ids=["renamed-autograd-grad", "autograd-grad-then-grad", "no-backward"],
)
def test_a_none_gradient_names_its_real_cause(source, starts):
    first = problem(source)
    assert first.name == "1-d values" and first.got == "None"
    assert first.fix.startswith(starts)
    assert "the caller's own .grad" not in first.fix


def test_a_clone_that_keeps_its_grad_says_the_clone_passed_it_on():
    check = check_cube_grad(
        learner(
            """
def cube_grad(x):
    x = x.clone().requires_grad_(True)
    x.retain_grad()
    Cube.apply(x).sum().backward()
    return x.grad
"""
        )
    )
    leaf = check.cases[CASE_NAMES.index("a tensor that requires grad is left alone")]
    assert leaf.got == "x.grad = tensor([ 3., 12.])"
    assert "A copy made with x.clone() stays connected to the caller's tensor" in leaf.fix


# --- an integer tensor: where the error came from, and what to raise instead -------------

COPY_BODY = """
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
"""


def integer_case(check):
    return check.cases[CASE_NAMES.index("an integer tensor is refused with a clear error")]


def test_pytorchs_own_error_is_not_called_yours_and_names_the_line():
    case = integer_case(check_cube_grad(learner("def cube_grad(x):" + COPY_BODY)))
    assert case.got == (
        "it raised RuntimeError: only Tensors of floating point dtype can require gradients, "
        "raised by PyTorch in your line `leaf = x.detach().requires_grad_(True)`"
    )
    assert case.fix.startswith(
        "PyTorch's RuntimeError says what went wrong inside PyTorch, not what the caller of "
        "cube_grad should pass."
    )
    assert "raise TypeError('cube_grad needs a floating-point tensor" in case.fix


@pytest.mark.parametrize(
    ("check_line", "says"),
    [
        (
            "assert x.is_floating_point(), 'cube_grad needs a floating-point tensor'",
            "Your own check fired, but as an assert, which raises AssertionError.",
        ),
        (
            "if not x.is_floating_point():\n        raise RuntimeError('cube_grad needs floats')",
            "Your own check fired, but it raised RuntimeError.",
        ),
    ],
    ids=["assert", "runtime-error"],
)
def test_the_learners_own_refusal_is_not_blamed_on_pytorch(check_line, says):
    case = integer_case(
        check_cube_grad(learner(f"def cube_grad(x):\n    {check_line}" + COPY_BODY))
    )
    assert not case.passed
    assert "PyTorch" not in case.got and "deep inside" not in case.got
    assert case.fix.startswith(says) and "raise TypeError(" in case.fix


@pytest.mark.parametrize(
    ("condition", "says"),
    [
        ("x.dtype == torch.int", "torch.int is torch.int32, but this tensor is torch.int64"),
        ("x.dtype == int", "int and float are Python's types"),
        ("isinstance(x, int)", "`isinstance(x, int)` asks whether x is a Python number"),
    ],
    ids=["torch.int", "python-int", "isinstance"],
)
def test_an_own_check_that_never_fires_is_told_why(condition, says):
    source = f"def cube_grad(x):\n    if {condition}:\n        raise TypeError('needs float')"
    case = integer_case(check_cube_grad(learner(source + COPY_BODY)))
    assert case.fix.startswith("Your own check did not fire") and says in case.fix
    assert "never Python's int or float" not in case.fix or "Python" in condition


def test_a_refusal_that_does_not_name_floats_is_told_what_to_add():
    source = "def cube_grad(x):\n    if not x.is_floating_point():\n        raise TypeError('no')"
    case = integer_case(check_cube_grad(learner(source + COPY_BODY)))
    assert case.fix.startswith("Right kind of error, but its message does not say what to pass")
    assert "(the check looks for the word float)" in case.expected
