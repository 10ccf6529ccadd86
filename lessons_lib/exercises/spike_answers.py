"""The course's answer to "Choose your surrogate", Part 1: a spike with a fast-sigmoid lie."""

import torch

from lessons_lib.surrogate_gradients import surrogate_slope


class SpikeAnswer(torch.autograd.Function):
    """The step at `threshold` forwards; grad_out times the fast-sigmoid bump backwards."""

    @staticmethod
    def forward(ctx, x, threshold, width):
        ctx.save_for_backward(x)
        ctx.threshold, ctx.width = threshold, width  # plain numbers: kept on ctx as they are
        return (x >= threshold).to(x.dtype)  # the step, in x's kind of numbers

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        slope = surrogate_slope(x, "fast-sigmoid", ctx.threshold, ctx.width)
        return grad_out * slope, None, None  # None: no gradient for the two numbers
