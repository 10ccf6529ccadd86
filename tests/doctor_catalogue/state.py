"""What a Function changes in place or keeps: its input, grad_out, saved tensors, ctx, and
which inputs it believes frozen."""

import torch

from tests.doctor_catalogue.shared import (
    clamp01,
    cube_backward,
    inside,
    round_forward,
    stash_on_ctx,
)
from tests.learner_functions import cube, function, save_and, saved


def mutate_input(ctx, x):
    ctx.save_for_backward(x)
    x.add_(0)  # values unchanged, version bumped: still a bug
    return x**3


def mutate_input_behind_autograd(ctx, x):
    y = 2 * x
    x.data.add_(1)  # .data: the version counter never sees this
    return y


def scale_in_place(ctx, g):
    g *= 2
    return g


def square_saved_in_place(ctx, g):
    (x,) = ctx.saved_tensors
    return 3 * x.pow_(2) * g  # right gradient, but the caller's x is now x**2


def square_saved_through_data(ctx, g):
    (x,) = ctx.saved_tensors
    return 3 * x.data.pow_(2) * g  # the same, hidden from the version counter


def save_cube_and_input(ctx, x):
    y = x**3
    ctx.save_for_backward(x, y)
    return y


def zero_saved_output(ctx, g):
    x, y = ctx.saved_tensors
    y.zero_()  # the caller's output, zeroed
    return g * 3 * x**2


def save_square(ctx, x):
    ctx.save_for_backward(x * x)  # made in forward: only the Function holds it
    return x**3


def scale_saved_square(ctx, g):
    (square,) = ctx.saved_tensors
    return g * square.mul_(3)


def mul_forward(ctx, x, w):
    ctx.save_for_backward(x, w)
    return x * w


def swapped_needs_backward(ctx, g):
    """Right while every input requires grad; wrong once one of them is frozen."""
    x, w = ctx.saved_tensors
    grad_x = g * w if ctx.needs_input_grad[1] else None
    grad_w = g * x if ctx.needs_input_grad[0] else None
    return grad_x, grad_w


PAIR = (torch.linspace(-2, 2, 6, dtype=torch.float64), torch.linspace(0.5, 3, 6).double())


# name, Function, reference, grad_reference, expected codes[, inputs]
WRONG = [
    # the notepad and the inputs
    (
        "tensor stashed on ctx",
        function("CubeStash", stash_on_ctx, lambda ctx, g: g * 3 * ctx.x**2),
        cube,
        None,
        ["ctx-tensor"],
    ),
    (
        "Clamp01 stashes its mask",
        function(
            "ClampStash",
            lambda ctx, x: (setattr(ctx, "mask", inside(x)), x.clamp(0, 1))[1],
            lambda ctx, g: g * ctx.mask,
        ),
        clamp01,
        None,
        ["ctx-tensor"],
    ),
    (
        "forward changes its input in place",
        function("CubeInPlace", mutate_input, cube_backward),
        cube,
        None,
        ["mutates-input"],
    ),
    # forward changes its input behind autograd's back
    (
        "forward changes its input through .data",
        function("DoubleData", mutate_input_behind_autograd, lambda ctx, g: 2 * g),
        lambda x: 2 * x,
        None,
        ["mutates-input"],
    ),
    # mutates-grad-out
    (
        "backward multiplies grad_out in place",
        function("CubeMulInPlace", save_and(cube), lambda ctx, g: g.mul_(3 * saved(ctx) ** 2)),
        cube,
        None,
        ["mutates-grad-out"],
    ),
    (
        "backward scales grad_out with *=",
        function("RoundTimesEquals", round_forward(torch.round), scale_in_place),
        torch.round,
        lambda x, g: 2 * g,
        ["mutates-grad-out"],
    ),
    # mutates-saved: backward changes a saved tensor in place
    (
        "backward squares the saved x in place",
        function("CubeSquaresSavedX", save_and(cube), square_saved_in_place),
        cube,
        None,
        ["mutates-saved"],
    ),
    (
        "backward squares the saved x through .data",
        function("CubeSquaresSavedData", save_and(cube), square_saved_through_data),
        cube,
        None,
        ["mutates-saved"],
    ),
    (
        "backward zeroes the saved output",
        function("CubeZeroesOutput", save_cube_and_input, zero_saved_output),
        cube,
        None,
        ["mutates-saved"],
    ),
    (
        "backward scales a tensor saved in forward in place",
        function("CubeScalesSquare", save_square, scale_saved_square),
        cube,
        None,
        ["mutates-saved"],
    ),
    # frozen-input: each gradient under the other input's needs_input_grad index
    (
        "needs_input_grad indices swapped",
        function("MulSwappedNeeds", mul_forward, swapped_needs_backward),
        torch.mul,
        None,
        ["frozen-input"],
        PAIR,
    ),
]
