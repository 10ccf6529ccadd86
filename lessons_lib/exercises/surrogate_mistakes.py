"""The spikes "Choose your surrogate", Part 2 runs a learner's tests on: the right one, the
developer track's four mistakes in Part 1's shape (`apply(x, threshold, width)`), and one
that is wrong only while hypothesis draws, which only a property test of the gradient sees.
"""

from dataclasses import dataclass

import torch
from hypothesis import currently_in_test_context
from torch.autograd import Function

from lessons_lib.exercises.spike_answers import SpikeAnswer
from lessons_lib.surrogate_gradients import surrogate_slope


class OffCentreBump(SpikeAnswer):
    """Mistake: fires at the threshold, but the bump is centred at 0."""

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * surrogate_slope(x, "fast-sigmoid", 0.0, ctx.width), None, None


class FloatOutput(SpikeAnswer):
    """Mistake: (x >= threshold).float() is float32 whatever x holds."""

    @staticmethod
    def forward(ctx, x, threshold, width):
        ctx.save_for_backward(x)
        ctx.threshold, ctx.width = threshold, width
        return (x >= threshold).float()


class ClippedGradOut(SpikeAnswer):
    """Mistake: grad_out is clipped to [-1, 1] before the bump, so a large one is cut down."""

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        slope = surrogate_slope(x, "fast-sigmoid", ctx.threshold, ctx.width)
        return grad_out.clamp(-1, 1) * slope, None, None


class GradientForNumber(SpikeAnswer):
    """Mistake: a gradient for the threshold, a plain number (autograd refuses it)."""

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        grad = grad_out * surrogate_slope(x, "fast-sigmoid", ctx.threshold, ctx.width)
        return grad, -grad.sum(), None


class WrongWhileDrawing(SpikeAnswer):
    """Right, except inside hypothesis's examples: there the bump sits 3 widths above the
    threshold and grad_out is clipped, so only a property test of the gradient catches it."""

    @staticmethod
    def backward(ctx, grad_out):
        if not currently_in_test_context():
            return SpikeAnswer.backward(ctx, grad_out)
        (x,) = ctx.saved_tensors
        centre = ctx.threshold + 3 * ctx.width
        slope = surrogate_slope(x, "fast-sigmoid", centre, ctx.width)
        return grad_out.clamp(-1, 1) * slope, None, None


@dataclass(frozen=True)
class Mistake:
    """One wrong spike of the catalogue: its key, the mistake in words, and its Function."""

    key: str
    wrong: str
    fn: type[Function]


MISTAKES = (
    Mistake("off-centre", "the bump is centred at 0, not at the threshold", OffCentreBump),
    Mistake("float-output", "forward gives float32 for float64 x (.float())", FloatOutput),
    Mistake("clipped-grad-out", "backward clips grad_out to [-1, 1]", ClippedGradOut),
    Mistake("number-gradient", "backward gives a gradient for the threshold", GradientForNumber),
)


def declared_rule(x: torch.Tensor, threshold: float, width: float, grad_out: torch.Tensor):
    """The rule the spike declares, as the doctor's grad_reference: grad_out times the bump."""
    return grad_out * surrogate_slope(x, "fast-sigmoid", threshold, width), None, None
