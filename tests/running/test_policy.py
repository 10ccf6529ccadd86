"""policy: `Cube` and `Cube.apply` name the same Function; anything else gets one sentence."""

import pytest
import torch

from lessons_lib import Cube
from lessons_lib.running import as_function, describe_non_function, is_function


def test_is_function_accepts_only_function_subclasses():
    assert is_function(Cube)
    with pytest.warns(DeprecationWarning):  # torch itself discourages instances
        assert not is_function(Cube())
    assert not is_function(torch.autograd.Function)
    assert not is_function(lambda x: x)
    assert not is_function(torch.nn.Linear(1, 1))


def test_the_class_and_its_apply_mean_the_same_function_and_nothing_else_does():
    assert as_function(Cube) is Cube
    assert as_function(Cube.apply) is Cube
    assert as_function(torch.autograd.Function.apply) is None  # the base class is no Function
    assert as_function(torch.round) is None
    assert as_function(lambda x: x) is None
    assert as_function(3) is None


def test_describe_non_function_names_what_was_passed_and_the_right_call():
    usage = "explore({})"
    with pytest.warns(DeprecationWarning):
        instance = Cube()
    assert "pass the class Cube itself: explore(Cube)" in describe_non_function(instance, usage)
    assert "nn.Module" in describe_non_function(torch.nn.Linear(1, 1), usage)
    assert "You passed the built-in function torch.round, not" in describe_non_function(
        torch.round, usage
    )
    assert describe_non_function(3, usage).startswith("You passed the number 3, not")
