"""Correct Functions, written in the ways a learner may rightly write them: the doctor must
find nothing wrong with any."""

import torch

from lessons_lib import Clamp, Clamp01, Cube, CubeWithSetupContext, RoundSTE, Square
from lessons_lib.research import CubeOnceDifferentiable, Sort
from tests.doctor_catalogue.shared import (
    LINE,
    clamp01,
    clamp_lo_hi,
    cube_1d_only,
    cube_backward,
    lazy_cube,
    lazy_square_and_cube,
    save_mask,
    save_square_and_cube,
    square_and_cube,
)
from tests.learner_functions import cube, function, save_and, saved


def needs_input_grad_forward(ctx, x):
    ctx.save_for_backward(x)
    return x**3


def needs_input_grad_backward(ctx, g):
    if not ctx.needs_input_grad[0]:
        return None
    (x,) = ctx.saved_tensors
    return g * 3 * x * x


def in_place_marked_dirty(ctx, x):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


def relu_forward(ctx, x):
    ctx.save_for_backward(x)
    return x.clamp(min=0)


def relu_passes_one_at_zero(ctx, g):
    (x,) = ctx.saved_tensors
    return g * (x >= 0)  # torch.relu passes 0 at x = 0; any value in [0, 1] is a subgradient


def sqrt_forward(ctx, x):
    y = torch.sqrt(x)
    ctx.save_for_backward(y)
    return y


def sqrt_backward(ctx, g):
    (y,) = ctx.saved_tensors
    return g / (2 * y)  # NaN for x < 0 and inf at 0, exactly where sqrt's own gradient is


def broadcast_mul_forward(ctx, x, y):
    ctx.save_for_backward(x, y)
    return x * y


def broadcast_mul_backward(ctx, g):
    x, y = ctx.saved_tensors
    return g * y, g * x  # shaped like the output: the engine sums each to its input's shape


def reshape_grad_out_flat(ctx, g):
    (x,) = ctx.saved_tensors
    return (g.reshape(-1) * 3 * x.reshape(-1) ** 2).reshape(x.shape)  # copies when it must


BROADCAST = (
    torch.tensor([0.5, -1.0, 2.0, 1.5], dtype=torch.float64),
    torch.linspace(-2, 2, 12, dtype=torch.float64).reshape(3, 4),
)


def lazy_cube_backward(ctx, g):
    if g is None:
        return None
    return cube_backward(ctx, g)


def lazy_both(ctx, g2, g3):
    x, grad = saved(ctx), None
    if g2 is not None:
        grad = g2 * 2 * x
    if g3 is not None:
        grad = g3 * 3 * x**2 if grad is None else grad + g3 * 3 * x**2
    return grad


# name, Function, reference, grad_reference, inputs
CORRECT = [
    ("Cube", Cube, cube, None, None),
    ("Square", Square, lambda x: x**2, None, None),
    ("setup_context form", CubeWithSetupContext, cube, None, None),
    (
        "needs_input_grad",
        function("CubeNeeds", needs_input_grad_forward, needs_input_grad_backward),
        cube,
        None,
        None,
    ),
    ("Clamp01 against torch.clamp", Clamp01, clamp01, None, None),
    ("RoundSTE as a surrogate", RoundSTE, torch.round, lambda x, g: g, None),
    (
        "Clamp with non-tensor inputs",
        Clamp,
        clamp_lo_hi,
        None,
        (torch.linspace(-2, 2, 9, dtype=torch.float64), -1.0, 1.0),
    ),
    (
        "in place, marked dirty",
        function("DoubleDirty", in_place_marked_dirty, lambda ctx, g: 2 * g),
        lambda x: 2 * x,
        None,
        None,
    ),
    (
        "Clamp01 with an open interval: a valid subgradient at 0 and 1",
        function(
            "ClampOpen", save_mask(lambda x: (x > 0) & (x < 1)), lambda ctx, g: g * saved(ctx)
        ),
        clamp01,
        None,
        None,
    ),
    (
        "ReLU passing 1 at its kink",
        function("Relu", relu_forward, relu_passes_one_at_zero),
        torch.relu,
        None,
        None,
    ),
    (
        "sqrt, undefined for x < 0",
        function("Sqrt", sqrt_forward, sqrt_backward),
        torch.sqrt,
        None,
        None,
    ),
    (
        "an extra trailing None",
        function("CubeTrailingNone", save_and(cube), lambda ctx, g: (cube_backward(ctx, g), None)),
        cube,
        None,
        None,
    ),
    (
        "broadcast inputs, gradients left for the engine to sum",
        function("BroadcastMul", broadcast_mul_forward, broadcast_mul_backward),
        torch.mul,
        None,
        BROADCAST,
    ),
    ("two outputs, integer indices", Sort, lambda x: torch.sort(x, dim=-1), None, None),
    ("once differentiable, declared", CubeOnceDifferentiable, cube, None, None),
    ("float32 inputs", Cube, cube, None, (torch.tensor([-1.5, 0.5, 2.0]),)),
    (
        "grad_out reshaped, not viewed",
        function("CubeReshapesGradOut", save_and(cube), reshape_grad_out_flat),
        cube,
        None,
        None,
    ),
    (
        "set_materialize_grads(False), None handled",
        function("CubeLazyChecked", lazy_cube, lazy_cube_backward),
        cube,
        None,
        None,
    ),
    (
        "two outputs, materialization off, each None handled",
        function("SquareAndCubeLazyChecked", lazy_square_and_cube, lazy_both),
        square_and_cube,
        None,
        None,
    ),
    (
        "two outputs, both grad_outs used",
        function(
            "SquareAndCubeBoth",
            save_square_and_cube,
            lambda ctx, g2, g3: g2 * 2 * saved(ctx) + g3 * 3 * saved(ctx) ** 2,
        ),
        square_and_cube,
        None,
        None,
    ),
    (
        "a 1-D Function, its grad_out used as given",
        function("Cube1DOnly", cube_1d_only, cube_backward),
        cube,
        None,
        (LINE,),
    ),
]
