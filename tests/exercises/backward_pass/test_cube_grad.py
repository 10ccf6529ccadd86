"""Part 2, check_cube_grad: its cases pass the reference answer and a learner's own; the
learner's own Cube must do the work (and is left as it was); nothing a candidate does escapes
the check."""

import functools
import inspect

import pytest
import torch

from lessons_lib import Cube, cube_grad
from lessons_lib.exercises.backward_pass.cube_grad import check_cube_grad
from tests.exercises.backward_pass.learners import (
    CASE_NAMES,
    FLOATS_ONLY,
    NO_GRAD,
    STARTER_CUBE,
    cell,
    failed,
    first_draft,
    learner,
    problem,
)

FIRST_DRAFT = """
def cube_grad(x):
    x.requires_grad_(True)
    Cube.apply(x).sum().backward()
    return x.grad
"""


def on_a_copy(x):
    """Right numbers and no side effects, but integers fail deep inside torch."""
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf).sum().backward()
    return leaf.grad


def test_the_reference_answer_passes_every_case():
    check = check_cube_grad(cube_grad)
    assert check.ok and [c.name for c in check.cases] == CASE_NAMES
    assert str(check).splitlines()[0] == "cube_grad: all 12 checks passed. Well done!"
    assert check.first_failure is None
    assert "Stuck?" not in str(check)  # no hint offered to a finished answer


def test_a_learners_own_right_answer_passes_in_its_own_namespace():
    source = STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2")
    namespace = cell(source)
    answer = cell(inspect.getsource(cube_grad), Cube=namespace["Cube"])["cube_grad"]
    assert check_cube_grad(answer).ok


# The two answers that fooled all nine checks before: right numbers, no Cube involved.
FORMULA = f"""
def cube_grad(x):
    {FLOATS_ONLY}
    return 3 * x**2
"""

AUTOGRAD_OF_X_CUBED = f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad((leaf**3).sum(), leaf)
    return grad
"""


@pytest.mark.parametrize(
    ("source", "also"),
    [(FORMULA, []), (AUTOGRAD_OF_X_CUBED, [NO_GRAD])],  # autograd of x**3 needs recording on
    ids=["formula", "x**3"],
)
def test_right_numbers_without_the_learners_cube_are_caught(source, also):
    check = check_cube_grad(learner(source))
    assert failed(check) == ["your Cube's backward did the work", *also]
    first = check.first_failure
    assert (
        first.got == "calls of Cube.apply: 0, of Cube.forward by hand: 0; runs of your backward: 0"
    )
    assert first.fix.startswith("cube_grad got the right numbers without running your Cube at all")
    assert first.fix.count(". ") == 0  # one sentence
    assert first.read == "Lesson 1 developer track, “A complete custom operation”"


def test_wrong_numbers_without_the_learners_cube_are_not_called_right():
    check = check_cube_grad(lambda x: x * 0)
    uses_cube = next(c for c in check.cases if c.name == "your Cube's backward did the work")
    assert not uses_cube.passed and "right numbers" not in uses_cube.fix
    assert uses_cube.fix.startswith("cube_grad never ran your Cube")


def test_the_course_cube_is_not_the_learners_cube():
    """Calling lessons_lib's Cube from a notebook whose own Cube is different is caught."""
    import lessons_lib

    namespace = cell(STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2"))
    source = inspect.getsource(cube_grad).replace("Cube.apply", "lessons_lib.Cube.apply")
    answer = learner(source, Cube=namespace["Cube"], lessons_lib=lessons_lib)
    assert failed(check_cube_grad(answer)) == ["your Cube's backward did the work"]


def test_applying_cube_but_differentiating_something_else_is_caught():
    first = problem(
        f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf)
    (grad,) = torch.autograd.grad((leaf**3).sum(), leaf)
    return grad
"""
    )
    assert first.name == "your Cube's backward did the work"
    assert "called Cube.apply, but your Cube's backward never ran" in first.fix


def test_cube_forward_called_by_hand_with_a_fake_ctx_is_caught():
    first = problem(
        f"""
from types import SimpleNamespace

def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    ctx = SimpleNamespace(save_for_backward=lambda *tensors: None)
    (grad,) = torch.autograd.grad(Cube.forward(ctx, leaf).sum(), leaf)
    return grad
"""
    )
    assert first.name == "your Cube's backward did the work"
    assert "called Cube.forward(...) itself" in first.fix and "Cube.apply" in first.fix
    assert first.read == "Lesson 1 developer track, “apply, never forward”"


@pytest.mark.parametrize("call", ["Cube.forward(leaf)", "Cube.forward(None, leaf)"])
def test_cube_forward_instead_of_apply_is_named(call):
    first = problem(
        f"""
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad({call}.sum(), leaf)
    return grad
"""
    )
    assert first.name == "1-d values" and first.got.startswith("it raised")
    assert first.fix.startswith("cube_grad called Cube.forward(...) itself. Call Cube.apply")
    assert first.read == "Lesson 1 developer track, “apply, never forward”"


def test_the_learners_cube_is_restored_exactly_even_when_cube_grad_raises():
    namespace = cell(STARTER_CUBE)
    cube = namespace["Cube"]
    before = dict(vars(cube))
    check_cube_grad(learner(FIRST_DRAFT, Cube=cube))
    check_cube_grad(
        learner("def cube_grad(x):\n    Cube.apply(x.detach()).sum().backward()", Cube=cube)
    )
    assert dict(vars(cube)) == before  # same objects: nothing added, nothing left wrapped
    assert "apply" not in vars(cube) and inspect.getattr_static(
        cube, "apply"
    ) is inspect.getattr_static(torch.autograd.Function, "apply")


def test_a_learners_cube_that_drops_grad_out_is_caught_although_sum_hides_it():
    answer = cell(inspect.getsource(cube_grad), Cube=cell(STARTER_CUBE)["Cube"])["cube_grad"]
    check = check_cube_grad(answer)
    assert failed(check) == ["your Cube's backward multiplies by grad_out"]
    first = check.first_failure
    assert first.expected == (
        "tensor([ 6.0000, 6.0000, 0.0000, -0.7500, 40.5000]) (the course's Cube, for "
        "grad_out = tensor([ 0.5000, 2.0000, 3.0000, -1.0000, 1.5000]))"
    )
    assert first.got == "tensor([12.0000, 3.0000, 0.0000, 0.7500, 27.0000])"
    assert "ignores grad_out" in first.fix and "all ones" in first.fix
    assert first.read == "Lesson 1 developer track, “Mistake 4: breaking the chain”"


def test_a_missing_cube_is_reported_not_raised():
    check = check_cube_grad(learner(FORMULA, Cube=None))
    assert failed(check) == CASE_NAMES[1:3]
    assert "run the cell that defines class Cube" in check.first_failure.fix


def test_the_first_draft_is_told_to_work_on_a_copy():
    check = check_cube_grad(first_draft)
    assert not check.ok and failed(check) == [n for n in CASE_NAMES if "Cube" not in n]
    first = check.first_failure
    assert first.name == "1-d values"
    assert (first.expected, first.got) == ("x.requires_grad stays False", "x.requires_grad = True")
    assert "x.detach()" in first.fix and "never for x" in first.fix


def test_backward_on_a_detached_copy_really_raises_inside_a_callers_no_grad():
    """The fact the no_grad check rests on, on torch itself; the course's answer is immune."""
    x = torch.tensor([1.0, 2.0])
    with torch.no_grad(), pytest.raises(RuntimeError, match="does not require grad"):
        on_a_copy(x)
    with torch.no_grad():
        assert cube_grad(x).tolist() == [3.0, 12.0]


def test_a_caller_who_switched_recording_off_gets_the_gradient_or_a_specific_fix():
    """A .backward() on a detached copy, with a dtype check, passed all 11 checks before."""
    check = check_cube_grad(
        learner(f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf).sum().backward()
    return leaf.grad
""")
    )
    assert failed(check) == [NO_GRAD]
    first = check.first_failure
    assert first.got == (
        "it raised RuntimeError: element 0 of tensors does not require grad and does not have "
        "a grad_fn"
    )
    assert first.fix.startswith("The caller switched recording off with torch.no_grad()")
    assert first.fix.endswith("put them inside `with torch.enable_grad():`.")
    fixed = learner(f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():
        Cube.apply(leaf).sum().backward()
    return leaf.grad
""")
    assert check_cube_grad(fixed).ok


def test_a_copy_without_a_dtype_check_fails_the_integer_case_and_the_callers_no_grad():
    check = check_cube_grad(on_a_copy)
    assert failed(check) == ["an integer tensor is refused with a clear error", NO_GRAD]
    first = check.first_failure
    assert first.got.startswith("it raised RuntimeError") and "is_floating_point" in first.fix


def test_an_answer_that_accepts_integers_fails_the_integer_case():
    def floats_anything(x):
        return cube_grad(x.double() if not x.is_floating_point() else x)

    check = check_cube_grad(floats_anything)
    assert failed(check) == ["an integer tensor is refused with a clear error"]
    assert check.first_failure.got.startswith("no error; it returned tensor([ 3., 12., 27.]")


def test_errors_and_non_functions_never_escape_the_check():
    def unfinished(x):
        raise NotImplementedError

    check = check_cube_grad(unfinished)
    # NotImplementedError is no refusal of integers; the Cube's own check still passes.
    assert failed(check) == [
        n for n in CASE_NAMES if n != "your Cube's backward multiplies by grad_out"
    ]
    assert check.first_failure.got == "it raised NotImplementedError: (no message)"
    assert "still raises NotImplementedError" in check.first_failure.fix

    called = check_cube_grad(cube_grad(torch.tensor([1.0])))
    assert not called.ok and not called.cases and called.first_failure is None
    assert str(called) == (
        "check_cube_grad: you passed a tensor, tensor([3.]); check_cube_grad wants your "
        "function cube_grad, as in check_cube_grad(cube_grad)."
    )

    class BadRepr:
        def __repr__(self):
            raise ValueError("no")

    assert "a BadRepr" in check_cube_grad(lambda x: BadRepr()).first_failure.got
    assert not check_cube_grad(functools.partial(cube_grad)).ok  # no __globals__: no Cube found
    assert not check_cube_grad(learner("def cube_grad(x):\n    return Kube.apply(x)")).ok


def test_a_name_error_says_which_cell_to_run():
    first = problem("def cube_grad(x):\n    return Kube.apply(x)")
    assert first.fix.startswith("Kube does not exist where cube_grad was written")


def test_a_candidate_that_switches_grad_mode_off_does_not_leak_into_later_cases():
    def switches_off(x):
        torch.set_grad_enabled(False)
        return cube_grad(x)

    assert check_cube_grad(switches_off).ok
    assert torch.is_grad_enabled()


def test_the_html_view_shows_the_first_problem_escaped():
    check = check_cube_grad(first_draft)
    page = check._repr_html_()
    assert "First problem: 1-d values" in page and "✗" in page
    assert "x.detach()" in page and "Stuck?" in page
    assert "<b" in page and "&lt;" not in check_cube_grad(cube_grad)._repr_html_()
    assert "&lt;lambda&gt;" in check_cube_grad(lambda x: x)._repr_html_()
    assert (
        "Read more:</i> Lesson 1 developer track" in check_cube_grad(learner(FORMULA))._repr_html_()
    )


def test_a_cube_passed_for_cube_grad_is_named_in_one_line_that_asks_for_the_function():
    from lessons_lib import Cube

    wants = "check_cube_grad wants your function cube_grad, as in check_cube_grad(cube_grad)."
    for passed, named in ((Cube, "the Function class Cube"), (Cube.apply, "Cube.apply")):
        check = check_cube_grad(passed)
        assert not check.ok and not check.cases and check.first_failure is None
        assert str(check) == f"check_cube_grad: you passed {named}; {wants}"
    assert str(check_cube_grad(3)) == f"check_cube_grad: you passed the number 3; {wants}"


UPCAST = """
def cube_grad(x):
    if not x.is_floating_point():
        raise TypeError("cube_grad needs a floating-point tensor")
    copy = x.detach().double().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(Cube.apply(copy).sum(), copy)
    return grad
"""


def test_a_changed_dtype_fails_the_dtype_line_not_the_lines_about_other_properties():
    """A cube_grad that gives back float64 for float32 leaves the caller's tensor alone, works
    on a non-leaf and inside torch.no_grad(): only the line about float32 fails, for its dtype."""
    check = check_cube_grad(learner(UPCAST))
    assert failed(check) == ["a float32 tensor"]
    for name in (
        "a tensor that requires grad is left alone",
        "a non-leaf (the result of other steps)",
        NO_GRAD,
        "1-d values",
    ):
        assert next(c for c in check.cases if c.name == name).mark == "✓"
    first = check.first_failure
    assert "dtype=torch.float64" in first.got
    assert first.fix.startswith("Keep the dtype of x (torch.float32)")
