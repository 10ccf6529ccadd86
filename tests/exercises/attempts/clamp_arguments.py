"""Wrong arguments for a check that wants the learner's test function, each with how the
check must name it ("the number 5", "an instance of YourClamp01, YourClamp01()", ...)."""

import warnings
from dataclasses import dataclass

import torch

from lessons_lib import Clamp01
from tests.exercises.attempts.clamp_modules import load_module

MISSING = object()  # the check called with no argument

# The notebook's Part 2 starter Clamp01, as a learner has it in their kernel.
YOUR_CLAMP01 = """\
class YourClamp01(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward((x >= 0) & (x <= 1))
        return x.clamp(0, 1)

    @staticmethod
    def backward(ctx, grad_out):
        (inside,) = ctx.saved_tensors
        return inside.to(grad_out.dtype)


class Foo:
    pass


def my_edge_test(Clamp01Candidate):
    x = torch.tensor([-0.5, 0.001, 0.999, 1.5], requires_grad=True)
    grad_out = torch.tensor([10.0, 20.0, 30.0, 40.0])
    Clamp01Candidate.apply(x).backward(grad_out)
    return torch.equal(x.grad, torch.tensor([0.0, 20.0, 30.0, 0.0]))
"""


@dataclass(frozen=True)
class WrongArgument:
    """A value that is not a test function, and how the check's verdict must name it."""

    label: str
    value: object
    what: str  # the words after "you passed"


def wrong_arguments() -> list[WrongArgument]:
    """Every kind of wrong argument, in a fixed order."""
    module = load_module(YOUR_CLAMP01)
    your = module.YourClamp01
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        instance = your()
    return [
        WrongArgument("5", 5, "the number 5"),
        WrongArgument("2.5", 2.5, "the number 2.5"),
        WrongArgument("True", True, "the value True"),
        WrongArgument("False", False, "the value False"),
        WrongArgument("'abc'", "abc", "the string 'abc'"),
        WrongArgument("'my_edge_test'", "my_edge_test", "the string 'my_edge_test'"),
        WrongArgument("None", None, "None"),
        WrongArgument("nothing", MISSING, "nothing"),
        WrongArgument("a tensor", torch.tensor([1.0, 2.0]), "a tensor, tensor([1., 2.])"),
        WrongArgument("a list", [1, 2, 3], "a list of 3 things"),
        WrongArgument("a tuple", (1, 2), "a tuple of 2 things"),
        WrongArgument("a dict", {"a": 1}, "a dict of 1 thing"),
        WrongArgument("Clamp01", Clamp01, "the Function class Clamp01"),
        WrongArgument("YourClamp01", your, "the Function class YourClamp01"),
        WrongArgument("Clamp01.apply", Clamp01.apply, "Clamp01.apply"),
        WrongArgument("YourClamp01.apply", your.apply, "YourClamp01.apply"),
        WrongArgument("YourClamp01()", instance, "an instance of YourClamp01, YourClamp01()"),
        WrongArgument("torch.round", torch.round, "the built-in function torch.round"),
        WrongArgument("len", len, "the built-in function len"),
        WrongArgument("print", print, "the built-in function print"),
        WrongArgument("my_edge_test(Clamp01)", module.my_edge_test(Clamp01), "the value True"),
        WrongArgument("the class Foo", module.Foo, "the class Foo"),
        WrongArgument("Foo()", module.Foo(), "an object of type Foo"),
        WrongArgument("torch", torch, "the module torch"),
    ]
