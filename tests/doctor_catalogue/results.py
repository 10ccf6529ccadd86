"""What a Function runs and returns: a wrong forward, gradients of the wrong count, shape,
kind or dtype, and errors."""

import torch
from torch.autograd import Function

from lessons_lib import Clamp
from lessons_lib.research import Sort
from tests.doctor_catalogue.shared import (
    clamp01,
    clamp_lo_hi,
    cube_backward,
    round_forward,
    save_mask,
)
from tests.learner_functions import cube, function, save_and, saved


def typo_in_forward(ctx, x):
    ctx.save_for_backward(x)
    return x**3 + undefined_name  # noqa: F821


def forward_without_ctx(x):
    return x**3


def sort_with_flipped_indices(ctx, x):
    values, indices = torch.sort(x, dim=-1)
    ctx.mark_non_differentiable(indices)
    ctx.save_for_backward(indices)
    return values, indices.flip(-1)  # wrong: the indices no longer say where values came from


def refuse_negative_grad_out(ctx, g):
    if (g < 0).any():
        raise ValueError("grad_out must be positive")
    return g * 3 * saved(ctx) ** 2


BOUNDED = (torch.linspace(-2, 2, 9, dtype=torch.float64), -1.0, 1.0)


# name, Function, reference, grad_reference, expected codes[, inputs]
WRONG = [
    # forward
    (
        "Cube computes a square",
        function("CubeSquares", save_and(lambda x: x**2), cube_backward),
        cube,
        None,
        ["forward"],
    ),
    (
        "rounds half up, not half to even",
        function("RoundHalfUp", round_forward(lambda x: torch.floor(x + 0.5)), lambda ctx, g: g),
        torch.round,
        lambda x, g: g,
        ["forward"],
    ),
    (
        "Clamp01 clamps to [0, 2]",
        function(
            "ClampTwo",
            lambda ctx, x: (ctx.save_for_backward((x >= 0) & (x <= 2)), x.clamp(0, 2))[1],
            lambda ctx, g: g * saved(ctx),
        ),
        clamp01,
        None,
        ["forward", "gradient"],
    ),
    # several outputs
    (
        "a one-output reference for a two-output forward",
        Sort,
        lambda x: torch.sort(x, dim=-1).values,
        None,
        ["forward"],
    ),
    (
        "sorted values right, integer indices wrong",
        function("SortFlippedIndices", sort_with_flipped_indices, Sort.backward),
        lambda x: torch.sort(x, dim=-1),
        None,
        ["forward"],
    ),
    # counts, shapes, None
    (
        "gradient summed to a scalar",
        function("CubeSummed", save_and(cube), lambda ctx, g: cube_backward(ctx, g).sum()),
        cube,
        None,
        ["grad-shape"],
    ),
    (
        "gradient returned as a number",
        function("CubeNumber", save_and(cube), lambda ctx, g: 12.0),
        cube,
        None,
        ["grad-shape"],
    ),
    (
        "None for a tensor input",
        function("CubeNone", save_and(cube), lambda ctx, g: None),
        cube,
        None,
        ["no-gradient"],
    ),
    # grad-count and non-tensor-grad
    (
        "one gradient for three inputs",
        function("ClampOnlyX", Clamp.forward, lambda ctx, g: Clamp.backward(ctx, g)[0]),
        clamp_lo_hi,
        None,
        ["grad-count"],
        BOUNDED,
    ),
    (
        "a gradient for the float bound lo",
        function("ClampGradLo", Clamp.forward, lambda ctx, g: (g, g, None)),
        clamp_lo_hi,
        None,
        ["non-tensor-grad"],
        BOUNDED,
    ),
    # output-dtype: a step as spiking code writes it, (x > 0).float(), from float64 inputs
    (
        "float32 output for a float64 input",
        function("CubeFloat32Output", lambda ctx, x: save_and(cube)(ctx, x).float(), cube_backward),
        cube,
        None,
        ["output-dtype"],
    ),
    # grad-dtype
    (
        "float32 gradient for a float64 input",
        function("CubeFloat32Grad", save_and(cube), lambda ctx, g: cube_backward(ctx, g).float()),
        cube,
        None,
        ["grad-dtype"],
    ),
    # errors
    (
        "typo in forward",
        function("CubeTypo", typo_in_forward, cube_backward),
        cube,
        None,
        ["error"],
    ),
    (
        "forward without ctx",
        function("CubeNoCtx", forward_without_ctx, cube_backward),
        cube,
        None,
        ["error"],
    ),
    (
        "backward raises",
        function("CubeBadBackward", save_and(cube), lambda ctx, g: g @ torch.ones(5)),
        cube,
        None,
        ["error"],
    ),
    (
        "no backward defined",
        type("CubeNoBackward", (Function,), {"forward": staticmethod(save_and(cube))}),
        cube,
        None,
        ["error"],
    ),
    (
        "Python's and on a mask of several numbers",
        function("ClampPythonAnd", save_mask(lambda x: (x >= 0) and (x <= 1)), lambda ctx, g: g),
        clamp01,
        None,
        ["error"],
    ),
    (
        "& before the comparisons: x >= 0 & x <= 1",
        function("ClampPrecedence", save_mask(lambda x: x >= 0 & x <= 1), lambda ctx, g: g),
        clamp01,
        None,
        ["error"],
    ),
    # error: backward raises only for a negative grad_out
    (
        "backward refuses a negative grad_out",
        function("CubePositiveOnly", save_and(cube), refuse_negative_grad_out),
        cube,
        None,
        ["error"],
    ),
]
