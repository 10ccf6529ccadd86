"""Broken Clamp01s, each wrong in one named way: the specimens of lesson 2.

The developer track runs gradcheck and the gradient doctor on each of them; the exercise
"Check your Clamp01" runs a learner's checks on each, and on the correct ones, to see
which bugs the checks catch. Correct means: forward is torch.clamp(x, 0, 1); the gradient
is grad_out where 0 < x < 1 and 0 where x < 0 or x > 1; at exactly 0 and 1, where the slope
jumps, any value between 0 and grad_out (torch 2.13's clamp(0, 1) passes grad_out, 2.14.1's
and a strict mask 0).

Every specimen is made by a factory that returns a fresh class on each call, so that
nothing a test does to one class (a patched method, an attribute) can leak into the next
run, and so that no deliberately broken Function sits in this module as a class of its
own. Two custom operators at the end are each wrong in a way only one of gradcheck and
torch.library.opcheck can see.
"""

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.autograd import Function

from lessons_lib.functions import Clamp01


@dataclass(frozen=True)
class BrokenClamp:
    """One broken Clamp01: its key, what is wrong with it, which check catches it, a factory."""

    key: str  # short and stable, e.g. "hardtanh-mask"
    wrong: str  # what is wrong, in one line
    catch: str  # what kind of check catches it: the exercise's hint when a suite misses it
    make: Callable[[], type[Function]]  # a fresh class on every call


def passes_everything() -> type[Function]:
    """Backward lets every gradient through: lesson 1's starter, never finished."""

    class PassesEverything(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out  # wrong: below 0 and above 1 the clamp blocks the gradient

    return PassesEverything


def drops_grad_out() -> type[Function]:
    """Backward returns the local derivative alone, without grad_out."""

    class DropsGradOut(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward((x >= 0) & (x <= 1))
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (inside,) = ctx.saved_tensors
            return inside.to(grad_out.dtype)  # wrong: the chain rule needs grad_out * inside

    return DropsGradOut


def inverted_mask() -> type[Function]:
    """The mask marks where the clamp acted, so backward lets through exactly what it blocks."""

    class InvertedMask(Function):
        @staticmethod
        def forward(ctx, x):
            clamped = (x < 0) | (x > 1)  # wrong: the gradient flows where x was NOT clamped
            ctx.save_for_backward(clamped)
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (clamped,) = ctx.saved_tensors
            return grad_out * clamped

    return InvertedMask


def hardtanh_mask() -> type[Function]:
    """The mask is ClippedSTE's |x| <= 1, so the gradient leaks through on [-1, 0)."""

    class HardtanhMask(Function):
        @staticmethod
        def forward(ctx, x):
            inside = x.abs() <= 1  # wrong: the range of hardtanh, [-1, 1], not [0, 1]
            ctx.save_for_backward(inside)
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (inside,) = ctx.saved_tensors
            return grad_out * inside

    return HardtanhMask


def relu_mask() -> type[Function]:
    """The mask is ReLU's x >= 0, so the gradient leaks through above 1."""

    class ReluMask(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x >= 0)  # wrong: forgets the edge at 1
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (inside,) = ctx.saved_tensors
            return grad_out * inside

    return ReluMask


def no_lower_bound() -> type[Function]:
    """Forward clamps only from above, and backward is right for that wrong forward."""

    class NoLowerBound(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x <= 1)
            return x.clamp(max=1)  # wrong: nothing stops x below 0

        @staticmethod
        def backward(ctx, grad_out):
            (below_one,) = ctx.saved_tensors
            return grad_out * below_one  # the derivative of this forward: one mistake, made twice

    return NoLowerBound


def zero_at_one() -> type[Function]:
    """Forward, built from masks, gives 0 instead of 1 at exactly x = 1."""

    class ZeroAtOne(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward((x >= 0) & (x <= 1))
            # wrong at x = 1: strict < and > leave it out of both pieces, so it gets 0
            return x * ((x > 0) & (x < 1)) + (x > 1)

        @staticmethod
        def backward(ctx, grad_out):
            (inside,) = ctx.saved_tensors
            return grad_out * inside

    return ZeroAtOne


def writes_grad_out() -> type[Function]:
    """Backward multiplies grad_out in place instead of returning a new tensor."""

    class WritesGradOut(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward((x >= 0) & (x <= 1))
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (inside,) = ctx.saved_tensors
            return grad_out.mul_(inside)  # wrong: writes into autograd's tensor

    return WritesGradOut


def python_and() -> type[Function]:
    """The mask uses Python's `and`: right for one number, an error for several."""

    class PythonAnd(Function):
        @staticmethod
        def forward(ctx, x):
            inside = (x >= 0) and (x <= 1)  # wrong: `and` asks for one True/False; use &
            ctx.save_for_backward(inside)
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (inside,) = ctx.saved_tensors
            return grad_out * inside

    return PythonAnd


def abs_grad_out() -> type[Function]:
    """Backward drops grad_out's sign: right for every grad_out of 0 or more."""

    class AbsGradOut(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward((x >= 0) & (x <= 1))
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (inside,) = ctx.saved_tensors
            return grad_out.abs() * inside  # wrong: a negative grad_out comes back positive

    return AbsGradOut


def wrong_while_hypothesis_draws() -> type[Function]:
    """Backward lets the gradient through where it should block it and blocks it where it
    should pass, but only inside a hypothesis example: right for every hand-picked input."""

    class WrongWhileHypothesisDraws(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward((x >= 0) & (x <= 1))
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            from hypothesis import currently_in_test_context  # only the exercise needs it

            (inside,) = ctx.saved_tensors
            if currently_in_test_context():
                return grad_out * ~inside  # wrong, but only on inputs hypothesis drew
            return grad_out * inside

    return WrongWhileHypothesisDraws


CATALOGUE = (
    BrokenClamp(
        "passes-everything",
        "backward lets every gradient through, also where the clamp blocked it",
        "Check the gradient outside [0, 1], where it must be 0: gradcheck at points below 0 "
        "and above 1 does it, and so does comparing with grad_out * ((x > 0) & (x < 1)) away "
        "from 0 and 1.",
        passes_everything,
    ),
    BrokenClamp(
        "drops-grad-out",
        "backward returns the mask alone and ignores grad_out",
        "Backward with an uneven grad_out, torch.autograd.grad(y, x, grad_out), not only "
        "y.sum().backward(), whose grad_out is all ones. gradcheck catches it too: it sends "
        "one grad_out per output element, 1 there and 0 elsewhere, and gets the same mask "
        "back every time; and it sends a grad_out of zeros and wants zeros back, which "
        "catches it even on a single element.",
        drops_grad_out,
    ),
    BrokenClamp(
        "inverted-mask",
        "backward lets the gradient through where the clamp acted, and blocks it inside",
        "Check the gradient inside (0, 1) as well: there it must equal grad_out.",
        inverted_mask,
    ),
    BrokenClamp(
        "hardtanh-mask",
        "the mask is |x| <= 1, so the gradient leaks through between -1 and 0",
        "Use inputs between -1 and 0 as well, where the gradient must be 0: spread your points "
        "over every stretch of the line, not one point per side.",
        hardtanh_mask,
    ),
    BrokenClamp(
        "no-lower-bound",
        "forward clamps only from above (and backward matches that wrong forward)",
        "Compare forward with torch.clamp(x, 0, 1) below 0. gradcheck cannot see this one: "
        "it checks backward against this Function's own forward, and the two agree.",
        no_lower_bound,
    ),
    BrokenClamp(
        "zero-at-one",
        "forward gives 0 instead of 1 at exactly x = 1",
        "Compare forward with torch.clamp(x, 0, 1) at exactly 0 and 1. gradcheck cannot see "
        "this one: its differences use forward only at x ± eps, and it never compares "
        "forward's own value with anything.",
        zero_at_one,
    ),
    BrokenClamp(
        "writes-grad-out",
        "backward multiplies grad_out in place instead of returning a new tensor",
        "Keep a copy of the grad_out you pass to torch.autograd.grad and check it is "
        "unchanged afterwards (or backward a .sum() of several elements, and PyTorch refuses "
        "the write). gradcheck cannot see this one: the gradient's values are right, and it "
        "never looks at the grad_outs it sent once backward has returned.",
        writes_grad_out,
    ),
    BrokenClamp(
        "python-and",
        "the mask uses Python's `and`, which works for one number and raises for several",
        "Run your checks on tensors of several elements, not one number at a time.",
        python_and,
    ),
)

# Two more bugs for the exercise, kept out of CATALOGUE (whose eight entries lesson 2's
# developer track tabulates). This one is wrong only above 1, so a suite must test both edges.
RELU_MASK = BrokenClamp(
    "relu-mask",
    "the mask is x >= 0, ReLU's, so the gradient leaks through above 1",
    "Use inputs above 1 as well, where the gradient must be 0: a point on each side of "
    "each edge, not only around 0.",
    relu_mask,
)
# And one that only an assertion on the gradient for a grad_out with negative values sees:
# with gradcheck's default switches every grad_out it sends is 0 or more (one-hot rows and
# zeros; in fast mode, random non-negative numbers), and for those grad_out.abs() is
# grad_out. check_batched_grad=True sends randn ones too, but compares backward with itself.
ABS_GRAD_OUT = BrokenClamp(
    "abs-grad-out",
    "backward returns grad_out.abs() * mask, so a negative grad_out comes back positive",
    "Send a grad_out of your own with negative values as well as positive ones, such as "
    "torch.tensor([0.5, 2.0, -1.0, 3.0]) with the -1.0 at a point inside (0, 1), and "
    "assert every number of the gradient that comes back against the rule. gradcheck cannot "
    "see this one: with its default switches every grad_out it sends is 0 or more, and for "
    "those grad_out.abs() is grad_out itself; check_batched_grad=True sends negative ones "
    "too, but compares what backward gives back only with what the same backward gives "
    "back under vmap; gradgradcheck sends negative ones as well, and differentiates this "
    "backward against itself.",
    abs_grad_out,
)
EXERCISE_BUGS = (*CATALOGUE, RELU_MASK, ABS_GRAD_OUT)


# --- correct Clamp01s: a suite must pass these ------------------------------------------


def course_clamp01() -> type[Function]:
    """A fresh copy of the course's Clamp01 (a subclass that changes nothing)."""
    return type("Clamp01", (Clamp01,), {})


def saves_input() -> type[Function]:
    """A correct Clamp01 written another way: the setup_context form, saving x, not a mask."""

    class SavesInput(Function):
        @staticmethod
        def forward(x):
            return x.clamp(0, 1)

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * ((x >= 0) & (x <= 1))

    return SavesInput


def strict_mask() -> type[Function]:
    """A correct Clamp01 that gives 0 at exactly 0 and 1: at a kink any value between the
    one-sided slopes (here between 0 and grad_out) is a valid gradient."""

    class StrictMask(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward((x > 0) & (x < 1))  # the edges left out: also correct
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (inside,) = ctx.saved_tensors
            return grad_out * inside

    return StrictMask


@dataclass(frozen=True)
class CorrectClamp:
    """One correct Clamp01: how to name it, what it gives at exactly 0 and 1, a factory."""

    label: str
    at_edges: str  # its gradient at exactly 0 and 1: "grad_out" or "0"
    make: Callable[[], type[Function]]  # a fresh class on every call


CORRECT = (
    CorrectClamp("the course's Clamp01", "grad_out", course_clamp01),
    CorrectClamp(
        "a correct Clamp01 written another way (it saves x, not a mask)", "grad_out", saves_input
    ),
    CorrectClamp(
        "a correct Clamp01 that gives 0 at exactly 0 and 1 (a strict mask)", "0", strict_mask
    ),
)


# --- custom operators: one wrong in its maths, one in its registration -----------------


@torch.library.custom_op("lessons::clamp01_leaky", mutates_args=())
def clamp01_leaky(x: torch.Tensor) -> torch.Tensor:
    """Clamp to [0, 1] as a custom operator whose backward lets every gradient through."""
    return x.clamp(0, 1)


@clamp01_leaky.register_fake
def _clamp01_leaky_fake(x):
    return torch.empty_like(x)


def _clamp01_leaky_backward(ctx, grad_out):
    return grad_out  # wrong: passes_everything's mistake, as an operator


clamp01_leaky.register_autograd(_clamp01_leaky_backward)


@torch.library.custom_op("lessons::clamp01_wrong_fake", mutates_args=())
def clamp01_wrong_fake(x: torch.Tensor) -> torch.Tensor:
    """Clamp to [0, 1] as a custom operator with a right backward and a wrong fake."""
    return x.clamp(0, 1)


@clamp01_wrong_fake.register_fake
def _clamp01_wrong_fake_fake(x):
    return x.new_empty(x.shape[0] + 1)  # wrong: the real output has exactly x's shape


def _save_inside(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward((x >= 0) & (x <= 1))


def _masked_backward(ctx, grad_out):
    (inside,) = ctx.saved_tensors
    return grad_out * inside


clamp01_wrong_fake.register_autograd(_masked_backward, setup_context=_save_inside)
