"""Writing surrogate gradients well: four mistakes, and three patterns from public projects.

Lesson 3's developer track shows each mistake to the doctor next to the right version, then
writes three surrogates real projects use, from their mathematics: a learned step size
quantizer, a gradient reversal layer and a leaky integrate-and-fire neuron.
"""

from collections.abc import Callable

import torch
from torch.autograd import Function

from lessons_lib.surrogate_gradients import smoothed_step, step, surrogate_slope

WIDTH = 0.5  # every spike below: a fast-sigmoid bump half a unit wide


def spike_rule(x: torch.Tensor, grad_out: torch.Tensor, threshold: float = 1.0) -> torch.Tensor:
    """The intended gradient of a spike at `threshold`: grad_out times a bump peaking there."""
    return grad_out * surrogate_slope(x, "fast-sigmoid", threshold, WIDTH)


class Spike(Function):
    """A neuron fires (1) when x reaches 1: a step forwards, a fast-sigmoid bump backwards."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return step(x, 1.0)  # (x >= 1) in x's dtype

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * surrogate_slope(x, "fast-sigmoid", threshold=1.0, width=WIDTH)


class OffCentreSpike(Function):
    """Mistake: fires at 1, but the bump is centred at 0, where nothing happens."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return step(x, 1.0)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * surrogate_slope(x, "fast-sigmoid", threshold=0.0, width=WIDTH)  # wrong


class FloatSpike(Function):
    """Mistake: (x >= 1).float() gives a float32 output whatever x's dtype."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x >= 1).float()  # wrong: float32 even for float64 x

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * surrogate_slope(x, "fast-sigmoid", threshold=1.0, width=WIDTH)


class ClippedGradSpike(Function):
    """Mistake: clamps grad_out's values before the bump, so the gradient stops scaling."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return step(x, 1.0)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        slope = surrogate_slope(x, "fast-sigmoid", threshold=1.0, width=WIDTH)
        return grad_out.clamp(-1, 1) * slope  # wrong: a large grad_out is cut down


class ThresholdSpike(Function):
    """A spike at a threshold passed in: a number gets None, a tensor its own gradient.

    x fires where x >= threshold, so moving the threshold up is moving x down: the
    threshold's surrogate gradient is minus x's. A tensor threshold of x's shape (one per
    neuron) gets one per element; a smaller one that broadcast gets the sum over the rest.
    """

    @staticmethod
    def forward(ctx, x, threshold):
        ctx.save_for_backward(x, threshold if torch.is_tensor(threshold) else None)
        ctx.number = None if torch.is_tensor(threshold) else threshold
        return (x >= threshold).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        x, threshold = ctx.saved_tensors
        at = ctx.number if threshold is None else threshold
        grad_x = grad_out * surrogate_slope(x - at, "fast-sigmoid", 0.0, WIDTH)
        grad_threshold = None  # a number, or a tensor that does not require grad
        if ctx.needs_input_grad[1]:
            grad_threshold = (-grad_x).sum_to_size(threshold.shape)
        return grad_x, grad_threshold


class NumberThresholdGrad(Function):
    """Mistake: returns a gradient for a threshold passed as a plain number."""

    @staticmethod
    def forward(ctx, x, threshold):
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return (x >= threshold).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        grad_x = grad_out * surrogate_slope(x, "fast-sigmoid", ctx.threshold, WIDTH)
        return grad_x, -grad_x.sum()  # wrong: a number has no gradient; return None


# Learned step size quantization, LSQ (Esser et al., 2020, "Learned Step Size Quantization",
# arXiv:1902.08153): q = round(clamp(x / s, lo, hi)) * s, with a gradient for the step s.
class LearnedStepQuantize(Function):
    """Quantise x to the grid s * {lo, ..., hi}; straight-through for x, LSQ's rule for s."""

    @staticmethod
    def forward(x, s, lo, hi):
        return torch.round(torch.clamp(x / s, lo, hi)) * s

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, s, lo, hi = inputs
        ctx.save_for_backward(x, s)
        ctx.lo, ctx.hi = lo, hi

    @staticmethod
    def backward(ctx, grad_out):
        x, s = ctx.saved_tensors
        v = x / s
        # The grid's ends count as inside, as torch.clamp's gradient and PyTorch's learnable
        # fake quantize count them (the LSQ paper's cases put them with the clipped values).
        inside = (v >= ctx.lo) & (v <= ctx.hi)
        grad_x = grad_out * inside  # straight through inside the grid, zero where clipped
        # d q / d s: round(v) - v inside (the rounding error), lo or hi where clipped
        local = torch.where(inside, torch.round(v) - v, v.clamp(ctx.lo, ctx.hi))
        grad_s = (grad_out * local).sum_to_size(s.shape)  # s is one number for all of x
        return grad_x, grad_s, None, None


def lsq_rule(x, s, lo, hi, grad_out):
    """LSQ's declared gradients, for the doctor: (for x, for s)."""
    v = x / s
    inside = (v >= lo) & (v <= hi)
    local = torch.where(inside, torch.round(v) - v, v.clamp(lo, hi))
    return grad_out * inside, (grad_out * local).sum_to_size(s.shape)


# The gradient reversal layer of DANN (Ganin & Lempitsky, 2015, "Unsupervised Domain
# Adaptation by Backpropagation", arXiv:1409.7495): the identity forwards, backward flips the
# sign (times a strength lambda), so the layers before it learn to fool what comes after.
class GradientReversal(Function):
    """The identity forwards; backward returns -strength * grad_out."""

    @staticmethod
    def forward(ctx, x, strength):
        ctx.strength = strength  # a number: an attribute, and None as its gradient
        return x.clone()  # a new tensor, not x itself: this node's output

    @staticmethod
    def backward(ctx, grad_out):
        return -ctx.strength * grad_out, None


# A leaky integrate-and-fire neuron over time, the neuron of snnTorch's Leaky and of Zenke's
# SpyTorch tutorials: the membrane leaks (beta), adds the input, fires through Spike at 1, and
# loses 1 after each spike (reset by subtraction, snnTorch's default; SpyTorch resets to 0).
# As both do, the reset is detached: the gradient flows through the membrane, not the reset.
def lif_run(
    currents: torch.Tensor, beta: float = 0.8, spike: Callable = Spike.apply
) -> torch.Tensor:
    """Spikes of one neuron per column, for currents of shape (time steps, neurons)."""
    membrane = torch.zeros_like(currents[0])
    spikes = []
    for current in currents:
        membrane = beta * membrane + current
        fired = spike(membrane)
        membrane = membrane - fired.detach()  # reset by subtraction of the threshold, 1
        spikes.append(fired)
    return torch.stack(spikes)


def spike_by_detach(x: torch.Tensor) -> torch.Tensor:
    """Spike without a Function: the step's value, the smoothed step's gradient, via detach."""
    smooth = smoothed_step(x, "fast-sigmoid", 1.0, WIDTH)  # its slope is Spike's bump
    return smooth + (step(x, 1.0) - smooth).detach()


def spike_properties(spike: type[Function], examples: int = 200) -> None:
    """A hypothesis property test: the gradient is grad_out times a bump >= 0 peaking at 1.

    Raises AssertionError, naming the property, on the first example that breaks one.
    """
    from hypothesis import Verbosity, given, settings, strategies  # only this test needs it

    floats = strategies.floats

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        verbosity=Verbosity.quiet,
    )
    @given(floats(-10, 10), floats(-1e4, 1e4).filter(lambda c: abs(c) > 1e-3))
    def gradient_is_grad_out_times_a_bump(x: float, c: float) -> None:
        points = torch.tensor([x, 1.0], dtype=torch.float64, requires_grad=True)
        (bump,) = torch.autograd.grad(spike.apply(points), points, torch.ones(2).double())
        (scaled,) = torch.autograd.grad(spike.apply(points), points, torch.full((2,), c).double())
        assert torch.allclose(scaled, c * bump), f"not linear in grad_out at x={x:g}, c={c:g}"
        assert bool((bump >= 0).all()), f"a negative bump at x={x:g}"
        assert bump[1] >= bump[0], f"the bump is higher at x={x:g} than at the threshold, 1"

    gradient_is_grad_out_times_a_bump()
