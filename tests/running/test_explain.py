"""PyTorch's errors learners meet most get one plain-English sentence; any other gets none."""

import warnings

import pytest
import torch

from lessons_lib import Cube
from lessons_lib.running.explain import plain_english


def _raised(action) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            action()
        except Exception as error:
            return error
    raise AssertionError("nothing was raised")


@pytest.mark.parametrize(
    ("action", "says"),
    [
        (lambda: torch.tensor([1, 2], requires_grad=True), "only to tensors of floating-point"),
        (lambda: torch.tensor([1.0, 2.0]).sum().backward(), "no tensor with requires_grad=True"),
        (
            lambda: torch.ones(3, requires_grad=True).mul(2).backward(),
            "needs an output of one number",
        ),
        (lambda: bool(torch.ones(2) > 0), "a tensor of several numbers for one True or False"),
        (lambda: Cube(torch.ones(1)) - Cube(torch.ones(1)), "Run it with Cube.apply(...)"),
    ],
    ids=["integers", "no-grad", "not-scalar", "bool", "no-apply"],
)
def test_each_explained_error_gets_its_sentence(action, says):
    assert says in plain_english(_raised(action))


def test_an_error_the_course_cannot_explain_gets_no_sentence():
    assert plain_english(ZeroDivisionError("division by zero")) == ""
    assert plain_english(TypeError("unsupported operand type(s) for -: 'str' and 'int'")) == ""
