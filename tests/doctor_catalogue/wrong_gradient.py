"""Wrong gradients: grad_out misused (chain-rule) or a wrong derivative (gradient)."""

import torch

from tests.doctor_catalogue.shared import (
    clamp01,
    inside,
    round_forward,
    save_mask,
    save_square_and_cube,
    square_and_cube,
    stash_on_ctx,
)
from tests.learner_functions import cube, function, save_and, saved


def wrong_above_three(ctx, g):
    (x,) = ctx.saved_tensors
    return torch.where(x > 3, g * 3 * x, g * 3 * x**2)  # the sample stops at 2.5


# name, Function, reference, grad_reference, expected codes[, inputs]
WRONG = [
    # chain-rule: several ways to forget grad_out
    (
        "exercise starter",
        function("CubeStarter", save_and(cube), lambda ctx, g: 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "ones instead of grad_out",
        function(
            "CubeOnes", save_and(cube), lambda ctx, g: torch.ones_like(g) * 3 * saved(ctx) ** 2
        ),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "sign of grad_out",
        function("CubeSign", save_and(cube), lambda ctx, g: g.sign() * 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "grad_out added, not multiplied",
        function("CubeAdd", save_and(cube), lambda ctx, g: g + 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "Clamp01 returns the bare mask",
        function("ClampMaskOnly", save_mask(inside), lambda ctx, g: saved(ctx).to(g.dtype)),
        clamp01,
        None,
        ["chain-rule"],
    ),
    (
        "RoundSTE returns ones",
        function("RoundOnes", round_forward(torch.round), lambda ctx, g: torch.ones_like(g)),
        torch.round,
        lambda x, g: g,
        ["chain-rule"],
    ),
    # gradient: several ways to get the derivative wrong
    (
        "Cube: forgot the square",
        function("CubeLinear", save_and(cube), lambda ctx, g: g * 3 * saved(ctx)),
        cube,
        None,
        ["gradient"],
    ),
    (
        "Cube: forgot the 3",
        function("CubeNoThree", save_and(cube), lambda ctx, g: g * saved(ctx) ** 2),
        cube,
        None,
        ["gradient"],
    ),
    (
        "Cube: wrong sign",
        function("CubeMinus", save_and(cube), lambda ctx, g: -g * 3 * saved(ctx) ** 2),
        cube,
        None,
        ["gradient"],
    ),
    (
        "Cube: off by 1e-4 relative",
        function("CubeSlightlyOff", save_and(cube), lambda ctx, g: g * 3.0003 * saved(ctx) ** 2),
        cube,
        None,
        ["gradient"],
    ),
    (
        "Clamp01: mask inverted",
        function("ClampInverted", save_mask(lambda x: ~inside(x)), lambda ctx, g: g * saved(ctx)),
        clamp01,
        None,
        ["gradient"],
    ),
    (
        "Clamp01: no mask at all",
        function("ClampPassAll", save_mask(inside), lambda ctx, g: g),
        clamp01,
        None,
        ["gradient"],
    ),
    (
        "RoundSTE: honest zero gradient",
        function("RoundHonest", round_forward(torch.round), lambda ctx, g: torch.zeros_like(g)),
        torch.round,
        lambda x, g: g,
        ["gradient"],
    ),
    (
        "RoundSTE: doubled",
        function("RoundDouble", round_forward(torch.round), lambda ctx, g: 2 * g),
        torch.round,
        lambda x, g: g,
        ["gradient"],
    ),
    # chain-rule, said precisely
    (
        "grad_out plus the derivative",
        function("CubePlus", save_and(cube), lambda ctx, g: g + 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    # gradient wrong only outside the hand-picked sample
    (
        "gradient wrong only for x > 3",
        function("CubeWrongAbove3", save_and(cube), wrong_above_three),
        cube,
        None,
        ["gradient"],
    ),
    # chain-rule: the derivative right, grad_out misused
    (
        "Cube: mean of grad_out",
        function("CubeMean", save_and(cube), lambda ctx, g: g.mean() * 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "sin: sum of grad_out",
        function("SinSum", save_and(torch.sin), lambda ctx, g: torch.cos(saved(ctx)) * g.sum()),
        torch.sin,
        None,
        ["chain-rule"],
    ),
    (
        "two outputs, the second's grad_out ignored",
        function("SquareAndCube", save_square_and_cube, lambda ctx, g2, g3: g2 * 2 * saved(ctx)),
        square_and_cube,
        None,
        ["chain-rule"],
    ),
    # several codes at once, most important first
    (
        "stashed, and the chain dropped",
        function("CubeStashChain", stash_on_ctx, lambda ctx, g: 3 * ctx.x**2),
        cube,
        None,
        ["chain-rule", "ctx-tensor"],
    ),
]
