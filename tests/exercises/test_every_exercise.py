"""What every exercise's check shares through the harness (exercises/base.py): a learner's
code leaves nothing behind, a Function means the same as its apply, and only the exercises
that run property tests (Clamp01, and Part 2 of the surrogate) load hypothesis."""

import subprocess
import sys
import warnings

import pytest
import torch

from lessons_lib import (
    Cube,
    check_cube,
    check_cube_grad,
    check_edge_test,
    check_my_checks,
    check_my_surrogate_tests,
    check_nudge,
    check_spike,
    check_straight_through,
)


def _leak() -> None:
    """What careless learner code does to torch's global state and the warnings."""
    torch.set_grad_enabled(False)
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(1234)
    warnings.warn("a warning from the learner's code", stacklevel=2)


class LeakyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        _leak()
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x**2


def leaky_cube_grad(x):
    _leak()
    return 3 * x**2


def leaky_nudge(f, x, h):
    _leak()
    return (f(x + h) - f(x - h)) / (2 * h)


def leaky_test(Clamp01Candidate):
    _leak()
    raise AssertionError("found nothing, on purpose")


LEAKY = {
    "check_cube": (check_cube, LeakyCube),
    "check_straight_through": (check_straight_through, LeakyCube),
    "check_spike": (check_spike, LeakyCube),
    "check_cube_grad": (check_cube_grad, leaky_cube_grad),
    "check_nudge": (check_nudge, leaky_nudge),
    "check_edge_test": (check_edge_test, leaky_test),
    "check_my_checks": (check_my_checks, leaky_test),
    "check_my_surrogate_tests": (check_my_surrogate_tests, leaky_test),
}


@pytest.mark.parametrize("name", LEAKY)
def test_learner_code_leaves_nothing_behind(name):
    check, answer = LEAKY[name]
    rng = torch.get_rng_state()
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        verdict = check(answer)
    assert str(verdict)  # a verdict, not an exception
    assert torch.is_grad_enabled()
    assert torch.get_default_dtype() == torch.float32
    assert torch.equal(torch.get_rng_state(), rng)
    assert not [w for w in shown if "learner's code" in str(w.message)]


@pytest.mark.parametrize("check", [check_cube, check_straight_through])
def test_a_check_of_a_function_takes_its_apply_as_the_function(check):
    assert str(check(Cube.apply)) == str(check(Cube))
    assert check(Cube.apply)._repr_html_() == check(Cube)._repr_html_()


@pytest.mark.parametrize(
    ("check", "argument"),
    [
        (check_cube_grad, "cube_grad"),
        (check_nudge, "my_nudge"),
        (check_edge_test, "my_edge_test"),
        (check_my_checks, "my_checks"),
        (check_my_surrogate_tests, "my_surrogate_tests"),
    ],
    ids=[
        "check_cube_grad",
        "check_nudge",
        "check_edge_test",
        "check_my_checks",
        "check_my_surrogate_tests",
    ],
)
@pytest.mark.parametrize(
    ("passed", "named"),
    [(Cube, "the Function class Cube"), (Cube.apply, "Cube.apply")],
    ids=["class", "apply"],
)
def test_a_check_of_a_plain_function_names_a_function_in_either_form(
    check, argument, passed, named
):
    verdict = check(passed)
    assert not verdict.ok and not verdict.cases and verdict.first_failure is None
    name = check.__name__
    assert str(verdict) == (
        f"{name}: you passed {named}; {name} wants your function {argument}, "
        f"as in {name}({argument})."
    )


def test_only_the_clamp01_exercise_loads_hypothesis():
    code = (
        "import sys; import lessons_lib; assert 'hypothesis' not in sys.modules; "
        "from lessons_lib import check_cube, check_cube_grad, check_nudge, cube_grad, "
        "check_straight_through, check_spike; assert 'hypothesis' not in sys.modules; "
        "from lessons_lib import check_edge_test; assert 'hypothesis' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


def test_every_check_the_package_exports_is_in_the_leak_table():
    """A new exercise joins LEAKY (and the policy tests above) or this fails."""
    import lessons_lib.exercises

    exported = {name for name in lessons_lib.exercises.__all__ if name.startswith("check_")}
    assert exported == set(LEAKY)
