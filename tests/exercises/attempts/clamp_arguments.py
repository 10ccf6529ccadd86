"""Wrong arguments for a check that wants the learner's test function: the ones every check
is tried with (arguments.common_wrong_arguments) and the ones a Clamp01 test invites (the
Function class, its apply, an instance, the test's own result, ...). How the check must name
each ("the number 5", "an instance of YourClamp01, YourClamp01()", ...) is arguments.what_it_is,
the words every check's "you passed <what>" is verified against."""

import warnings
from dataclasses import dataclass

from lessons_lib import Clamp01
from tests.exercises.attempts.arguments import common_wrong_arguments, what_it_is
from tests.exercises.attempts.clamp_modules import load_module

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

    @property
    def what(self) -> str:
        """The words after "you passed"."""
        return what_it_is(self.value)


def wrong_arguments() -> list[WrongArgument]:
    """Every kind of wrong argument, in a fixed order."""
    module = load_module(YOUR_CLAMP01)
    your = module.YourClamp01
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        instance = your()
    return [WrongArgument(label, value) for label, value in common_wrong_arguments()] + [
        WrongArgument("False", False),
        WrongArgument("the string 'my_edge_test'", "my_edge_test"),
        WrongArgument("a tuple", (1, 2)),
        WrongArgument("Clamp01", Clamp01),
        WrongArgument("YourClamp01", your),
        WrongArgument("Clamp01.apply", Clamp01.apply),
        WrongArgument("YourClamp01.apply", your.apply),
        WrongArgument("YourClamp01()", instance),
        WrongArgument("print", print),
        WrongArgument("my_edge_test(Clamp01)", module.my_edge_test(Clamp01)),
        WrongArgument("the class Foo", module.Foo),
        WrongArgument("Foo()", module.Foo()),
    ]
