"""arguments: one policy for what both explorers take, and x ranges checked in plain words."""

import pytest
import torch

from lessons_lib import Cube, explore, explore_steps
from lessons_lib.explorers.arguments import checked_range, function_to_explore
from lessons_lib.running import InputError, NotAFunctionError, describe_non_function
from tests.learner_functions import cube, function, save_and, saved

MyCube = function("MyCube", save_and(cube), lambda ctx, g: g * 3 * saved(ctx) ** 2)
EXPLORERS = {"explore": explore, "explore_steps": explore_steps}


def test_a_function_is_taken_as_the_class_or_as_its_apply():
    assert function_to_explore(Cube, "explore({})") is Cube
    assert function_to_explore(Cube.apply, "explore({})") is Cube
    assert function_to_explore(MyCube.apply, "explore({})") is MyCube


@pytest.mark.parametrize("name", EXPLORERS)
@pytest.mark.parametrize("fn", [Cube, MyCube])
def test_both_explorers_take_cube_and_cube_apply_as_the_same_function(name, fn):
    explorer = EXPLORERS[name]
    by_class, by_apply = explorer(fn), explorer(fn.apply)
    assert by_apply.setup.name == by_class.setup.name == fn.__name__
    assert by_apply.picture.samples == by_class.picture.samples
    assert by_apply.picture.picture_style == by_class.picture.picture_style


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", EXPLORERS)
@pytest.mark.parametrize(
    "make", [lambda: Cube(), lambda: torch.autograd.Function, lambda: torch.nn.ReLU, lambda: 3]
)
def test_both_explorers_refuse_what_is_not_a_function_with_the_same_sentence(name, make):
    """make is called inside the test: torch warns as soon as a Function is instantiated."""
    fn = make()
    with pytest.raises(NotAFunctionError) as refused:
        EXPLORERS[name](fn)
    assert str(refused.value).startswith(describe_non_function(fn, name + "({})"))


def test_only_the_step_explorer_also_takes_a_plain_function():
    with pytest.raises(
        NotAFunctionError, match=r"You passed the built-in function torch\.sin, not"
    ):
        explore(torch.sin)
    assert explore_steps(torch.sin).setup.name == "sin"
    with pytest.raises(NotAFunctionError, match="also takes a plain function such as torch"):
        explore_steps(3)


@pytest.mark.parametrize(
    ("x_range", "says"),
    [((2, 1), "low < high"), ((0, float("inf")), "finite"), ("wide", "two numbers"), (3, "two")],
)
def test_a_range_that_cannot_be_one_is_refused(x_range, says):
    with pytest.raises(InputError, match=says):
        checked_range(x_range)


def test_a_range_is_two_floats():
    assert checked_range((-1, 2)) == (-1.0, 2.0)
    assert all(type(v) is float for v in checked_range((torch.tensor(0), 1)))
