"""A NaN or an infinity in the gradient: from an overflow, a fractional power, 0 / 0."""

import torch

from tests.learner_functions import cube, function, save_and


def naive_sigmoid_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * torch.exp(-x) / (1 + torch.exp(-x)) ** 2  # inf / inf = NaN for x << 0


def save_output(ctx, x):
    y = x**3
    ctx.save_for_backward(y)
    return y


def cube_slope_from_output(ctx, g):
    (y,) = ctx.saved_tensors
    return 3 * (y ** (2 / 3)) * g  # x**2 as y**(2/3): NaN wherever y < 0


def cube_slope_divided(ctx, g):
    (x,) = ctx.saved_tensors
    return g * 3 * x**3 / x  # 0 / 0 at x = 0


# name, Function, reference, grad_reference, expected codes[, inputs]
WRONG = [
    # non-finite
    (
        "naive sigmoid backward overflows at x = -1000",
        function("NaiveSigmoid", save_and(torch.sigmoid), naive_sigmoid_backward),
        torch.sigmoid,
        None,
        ["non-finite"],
    ),
    # non-finite, and not from an overflow
    (
        "x**2 as y**(2/3): NaN for negative y",
        function("CubeFractionalPower", save_output, cube_slope_from_output),
        cube,
        None,
        ["non-finite"],
    ),
    (
        "0 / 0 at x = 0",
        function("CubeDivides", save_and(cube), cube_slope_divided),
        cube,
        None,
        ["non-finite"],
    ),
]
