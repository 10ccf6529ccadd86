"""What a learner passed, in words: every helper's refusal names the value it was given."""

import warnings

import pytest
import torch

from lessons_lib import Cube
from lessons_lib.running.arguments import (
    MISSING,
    is_plain_function,
    what_was_passed,
    wrong_argument,
)


def _learners_function(x):
    return x


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (lambda: 5, "the number 5"),
        (lambda: 2.5, "the number 2.5"),
        (lambda: True, "the value True"),
        (lambda: "Cube", "the string 'Cube'"),
        (lambda: None, "None"),
        (lambda: MISSING, "nothing"),
        (lambda: torch.tensor([1.0, 2.0]), "a tensor, tensor([1., 2.])"),
        (lambda: [1, 2, 3], "a list of 3 things"),
        (lambda: (1,), "a tuple of 1 thing"),
        (lambda: Cube, "the Function class Cube"),
        (lambda: Cube.apply, "Cube.apply"),
        (lambda: Cube(), "an instance of Cube, Cube()"),
        (lambda: torch.round, "the built-in function torch.round"),
        (lambda: len, "the built-in function len"),
        (lambda: lambda x: x, "a lambda function"),
        (lambda: _learners_function, "the function _learners_function"),
        (lambda: torch, "the module torch"),
        (lambda: int, "the class int"),
        (lambda: object(), "an object of type object"),
    ],
)
def test_what_was_passed_names_the_value_itself(value, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # instantiating a Function warns; that is the point
        assert what_was_passed(value()) == words


def test_only_a_function_a_learner_writes_is_a_plain_function():
    assert is_plain_function(_learners_function) and is_plain_function(lambda x: x)
    for other in (len, torch.round, Cube, Cube.apply, 5, int):
        assert not is_plain_function(other)


def test_a_refusal_is_one_line_naming_what_was_passed_and_what_is_wanted():
    line = wrong_argument("check_cube", 5, "your Cube class", "check_cube(Cube)")
    assert line == (
        "check_cube: you passed the number 5; check_cube wants your Cube class, "
        "as in check_cube(Cube)."
    )
