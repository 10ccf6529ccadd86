"""Derivatives beyond one backward: double backward and forward mode (jvp)."""

import torch

from lessons_lib import CubeWithSetupContext
from lessons_lib.research import CubeDetachedBackward
from tests.learner_functions import cube, function, save_and, saved


def numpy_cube_backward(ctx, g):
    (x,) = ctx.saved_tensors
    slope = torch.from_numpy(3 * x.detach().numpy() ** 2)  # NumPy is invisible to autograd
    return g * slope


def save_slope(ctx, x):
    ctx.save_for_backward(3 * x**2)  # made inside forward, where nothing is recorded
    return x**3


def numpy_without_detach(ctx, g):
    (x,) = ctx.saved_tensors
    return g * torch.from_numpy(3 * x.numpy() ** 2)  # raises once x carries a graph


class CubeWrongJvp(CubeWithSetupContext):
    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        return 2 * x**2 * x_tangent  # should be 3 x^2


class CubeJvpRaises(CubeWithSetupContext):
    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors  # setup_context saved it for forward mode too, but...
        return x_tangent @ x  # a matrix product of two vectors gives the wrong shape


# name, Function, reference, grad_reference, expected codes[, inputs]
WRONG = [
    # double-backward
    (
        "backward detaches x",
        CubeDetachedBackward,
        cube,
        None,
        ["double-backward"],
    ),
    (
        "backward reads x.data",
        function("CubeDataBackward", save_and(cube), lambda ctx, g: g * 3 * saved(ctx).data ** 2),
        cube,
        None,
        ["double-backward"],
    ),
    (
        "backward goes through NumPy",
        function("CubeNumpyBackward", save_and(cube), numpy_cube_backward),
        cube,
        None,
        ["double-backward"],
    ),
    (
        "backward uses an intermediate saved in forward",
        function("CubeSavesSlope", save_slope, lambda ctx, g: g * saved(ctx)),
        cube,
        None,
        ["double-backward"],
    ),
    # jvp
    (
        "setup_context Cube with a wrong jvp",
        CubeWrongJvp,
        cube,
        None,
        ["jvp"],
    ),
    (
        "jvp that raises",
        CubeJvpRaises,
        cube,
        None,
        ["jvp"],
    ),
    # double-backward that raises
    (
        "backward calls x.numpy() without detach",
        function("CubeNumpyNoDetach", save_and(cube), numpy_without_detach),
        cube,
        None,
        ["double-backward"],
    ),
]
