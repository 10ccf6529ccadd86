"""steps/explore: explore_steps, the front door: what it takes, and plain words for bad input."""

import pytest
import torch

from lessons_lib import Cube, RoundSTE
from lessons_lib.explorers.steps.explore import explore_steps
from lessons_lib.running import InputError, NotAFunctionError
from tests.learner_functions import cube, function, save_and, saved

MyCube = function("MyCube", save_and(cube), lambda ctx, g: g * 3 * saved(ctx) ** 2)


def only_positive(ctx, x):
    if (x < 0).any():
        raise ValueError("negative input")
    ctx.save_for_backward(x)
    return x**3


OnlyPositive = function("OnlyPositive", only_positive, lambda ctx, g: g * 3 * saved(ctx) ** 2)


def test_the_learners_own_function_a_plain_function_and_apply_are_accepted():
    assert explore_steps(MyCube, 2.0).curves.slope == 12.0
    sin = explore_steps(torch.sin, 1.0)
    assert sin.setup.slope_label == "autograd of sin" and sin.curves.failure is None
    assert explore_steps(Cube.apply, 2.0).setup.name == "Cube"
    given = explore_steps(RoundSTE, 0.3, derivative=lambda t: torch.zeros_like(t))
    assert given.setup.slope_label == "the derivative given" and given.curves.slope == 0.0


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize(
    ("fn", "words"),
    [
        (lambda: Cube(), "pass the class Cube itself"),
        (lambda: 3, "not a torch.autograd.Function subclass"),
        (lambda: torch.nn.ReLU, "nn.Module"),
        (lambda: torch.autograd.Function, "your subclass"),
    ],
)
def test_what_is_not_a_function_is_named(fn, words):
    """fn is made inside the test: torch warns as soon as a Function is instantiated."""
    with pytest.raises(NotAFunctionError, match=words):
        explore_steps(fn())


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"x": float("nan")}, "x must be a finite number"),
        ({"x": "two"}, "x must be a number"),
        ({"h": 0.0}, "h must be between 1e-15 and 1"),
        ({"h": 2.0}, "h must be between 1e-15 and 1"),
        ({"x": 5.0, "x_range": (-1, 1)}, "outside x_range"),
        ({"x_range": (1, -1)}, "low < high"),
        ({"derivative": 3}, "derivative must be a function"),
    ],
)
def test_bad_arguments_get_a_plain_message(kwargs, words):
    with pytest.raises(InputError, match=words):
        explore_steps(Cube, **kwargs)
