"""Forwards, backwards, references and inputs that entries of several families share."""

import torch

from tests.learner_functions import saved


def clamp01(x):
    return torch.clamp(x, 0, 1)


def save_mask(mask):
    def forward(ctx, x):
        ctx.save_for_backward(mask(x))
        return x.clamp(0, 1)

    return forward


def inside(x):
    return (x >= 0) & (x <= 1)


def stash_on_ctx(ctx, x):
    ctx.x = x
    return x**3


def cube_backward(ctx, g):
    return g * 3 * saved(ctx) ** 2


def round_forward(compute):
    return lambda ctx, x: compute(x)


def clamp_lo_hi(x, lo, hi):
    return x.clamp(lo, hi)


LINE = torch.linspace(-2, 2, 7, dtype=torch.float64)


def cube_1d_only(ctx, x):
    if x.dim() != 1:
        raise ValueError("a 1-D kernel: x must have one dimension")
    ctx.save_for_backward(x)
    return x**3


def square_and_cube(x):
    return x**2, x**3


def save_square_and_cube(ctx, x):
    ctx.save_for_backward(x)
    return square_and_cube(x)


def lazy_cube(ctx, x):
    ctx.set_materialize_grads(False)  # backward may now receive None
    ctx.save_for_backward(x)
    return x**3


def lazy_square_and_cube(ctx, x):
    ctx.set_materialize_grads(False)
    return save_square_and_cube(ctx, x)
