"""A grad_out a simple test never sends: not contiguous, or None."""

import torch

from tests.doctor_catalogue.shared import (
    LINE,
    cube_1d_only,
    cube_backward,
    lazy_cube,
    lazy_square_and_cube,
    square_and_cube,
)
from tests.learner_functions import cube, function, save_and, saved


def view_grad_out_flat(ctx, g):
    (x,) = ctx.saved_tensors
    return (g.view(-1) * 3 * x.reshape(-1) ** 2).view(x.shape)  # view needs a compatible layout


def read_grad_out_as_contiguous(ctx, g):
    (x,) = ctx.saved_tensors
    flat = torch.as_strided(g, g.shape, (1,))  # as a C kernel reading g.data_ptr() would
    return flat * 3 * x**2


def both_or_nothing(ctx, g2, g3):
    if g2 is None and g3 is None:
        return None
    x = saved(ctx)
    return g2 * 2 * x + g3 * 3 * x**2  # raises when only one of them is None


# name, Function, reference, grad_reference, expected codes[, inputs]
WRONG = [
    # non-contiguous-grad-out
    (
        "backward views grad_out flat",
        function("CubeViewsGradOut", save_and(cube), view_grad_out_flat),
        cube,
        None,
        ["non-contiguous-grad-out"],
    ),
    (
        "a 1-D Function reading grad_out's memory as contiguous",
        function("Cube1DKernel", cube_1d_only, read_grad_out_as_contiguous),
        cube,
        None,
        ["non-contiguous-grad-out"],
        (LINE,),
    ),
    # undefined-grad-out: materialization off, grad_out used without a None check
    (
        "set_materialize_grads(False), no None check",
        function("CubeLazy", lazy_cube, cube_backward),
        cube,
        None,
        ["undefined-grad-out"],
    ),
    (
        "two outputs, materialization off, one None not handled",
        function("SquareAndCubeLazy", lazy_square_and_cube, both_or_nothing),
        square_and_cube,
        None,
        ["undefined-grad-out"],
    ),
]
