"""The doctor's catalogue: learner-style Functions, each wrong in a known way or correct.

WRONG holds (name, Function, reference, grad_reference, expected codes[, inputs]);
CORRECT holds (name, Function, reference, grad_reference, inputs). tests/doctor/test_examination.py
checks each entry and benchmarks/doctor.py times the doctor over all of them.
"""

import torch
from torch.autograd import Function

from lessons_lib import Clamp, Clamp01, Cube, CubeWithSetupContext, RoundSTE, Square
from lessons_lib.research import CubeDetachedBackward, CubeOnceDifferentiable, Sort
from tests.learner_functions import cube, function, save_and, saved


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


def mutate_input(ctx, x):
    ctx.save_for_backward(x)
    x.add_(0)  # values unchanged, version bumped: still a bug
    return x**3


def mutate_input_behind_autograd(ctx, x):
    y = 2 * x
    x.data.add_(1)  # .data: the version counter never sees this
    return y


def forward_without_ctx(x):
    return x**3


def typo_in_forward(ctx, x):
    ctx.save_for_backward(x)
    return x**3 + undefined_name  # noqa: F821


def cube_backward(ctx, g):
    return g * 3 * saved(ctx) ** 2


def round_forward(compute):
    return lambda ctx, x: compute(x)


def scale_in_place(ctx, g):
    g *= 2
    return g


def naive_sigmoid_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * torch.exp(-x) / (1 + torch.exp(-x)) ** 2  # inf / inf = NaN for x << 0


def wrong_above_three(ctx, g):
    (x,) = ctx.saved_tensors
    return torch.where(x > 3, g * 3 * x, g * 3 * x**2)  # the sample stops at 2.5


def numpy_cube_backward(ctx, g):
    (x,) = ctx.saved_tensors
    slope = torch.from_numpy(3 * x.detach().numpy() ** 2)  # NumPy is invisible to autograd
    return g * slope


def save_slope(ctx, x):
    ctx.save_for_backward(3 * x**2)  # made inside forward, where nothing is recorded
    return x**3


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


def sort_with_flipped_indices(ctx, x):
    values, indices = torch.sort(x, dim=-1)
    ctx.mark_non_differentiable(indices)
    ctx.save_for_backward(indices)
    return values, indices.flip(-1)  # wrong: the indices no longer say where values came from


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


def numpy_without_detach(ctx, g):
    (x,) = ctx.saved_tensors
    return g * torch.from_numpy(3 * x.numpy() ** 2)  # raises once x carries a graph


def view_grad_out_flat(ctx, g):
    (x,) = ctx.saved_tensors
    return (g.view(-1) * 3 * x.reshape(-1) ** 2).view(x.shape)  # view needs a compatible layout


def read_grad_out_as_contiguous(ctx, g):
    (x,) = ctx.saved_tensors
    flat = torch.as_strided(g, g.shape, (1,))  # as a C kernel reading g.data_ptr() would
    return flat * 3 * x**2


def cube_1d_only(ctx, x):
    if x.dim() != 1:
        raise ValueError("a 1-D kernel: x must have one dimension")
    ctx.save_for_backward(x)
    return x**3


def refuse_negative_grad_out(ctx, g):
    if (g < 0).any():
        raise ValueError("grad_out must be positive")
    return g * 3 * saved(ctx) ** 2


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


def both_or_nothing(ctx, g2, g3):
    if g2 is None and g3 is None:
        return None
    x = saved(ctx)
    return g2 * 2 * x + g3 * 3 * x**2  # raises when only one of them is None


LINE = torch.linspace(-2, 2, 7, dtype=torch.float64)


def clamp_lo_hi(x, lo, hi):
    return x.clamp(lo, hi)


BOUNDED = (torch.linspace(-2, 2, 9, dtype=torch.float64), -1.0, 1.0)


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
    # chain-rule, said precisely
    (
        "grad_out plus the derivative",
        function("CubePlus", save_and(cube), lambda ctx, g: g + 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    # forward changes its input behind autograd's back
    (
        "forward changes its input through .data",
        function("DoubleData", mutate_input_behind_autograd, lambda ctx, g: 2 * g),
        lambda x: 2 * x,
        None,
        ["mutates-input"],
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
    # non-finite
    (
        "naive sigmoid backward overflows at x = -1000",
        function("NaiveSigmoid", save_and(torch.sigmoid), naive_sigmoid_backward),
        torch.sigmoid,
        None,
        ["non-finite"],
    ),
    # gradient wrong only outside the hand-picked sample
    (
        "gradient wrong only for x > 3",
        function("CubeWrongAbove3", save_and(cube), wrong_above_three),
        cube,
        None,
        ["gradient"],
    ),
    # output-dtype: a step as spiking code writes it, (x > 0).float(), from float64 inputs
    (
        "float32 output for a float64 input",
        function("CubeFloat32Output", lambda ctx, x: save_and(cube)(ctx, x).float(), cube_backward),
        cube,
        None,
        ["output-dtype"],
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
    # grad-dtype
    (
        "float32 gradient for a float64 input",
        function("CubeFloat32Grad", save_and(cube), lambda ctx, g: cube_backward(ctx, g).float()),
        cube,
        None,
        ["grad-dtype"],
    ),
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
    # double-backward that raises
    (
        "backward calls x.numpy() without detach",
        function("CubeNumpyNoDetach", save_and(cube), numpy_without_detach),
        cube,
        None,
        ["double-backward"],
    ),
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
    # error: backward raises only for a negative grad_out
    (
        "backward refuses a negative grad_out",
        function("CubePositiveOnly", save_and(cube), refuse_negative_grad_out),
        cube,
        None,
        ["error"],
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
    # several codes at once, most important first
    (
        "stashed, and the chain dropped",
        function("CubeStashChain", stash_on_ctx, lambda ctx, g: 3 * ctx.x**2),
        cube,
        None,
        ["chain-rule", "ctx-tensor"],
    ),
]


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
