"""Functions with a mistake of the kind such code really has: the doctor must name it."""

import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd import Function

from tests.doctor.corpus.entry import Entry
from tests.doctor.corpus.exact import GRID, WEIGHT, _tanh_gelu, _tanh_gelu_slope


# After: tunib-ai/oslo, oslo/torch/nn/modules/fused_gelu.py (the one-input GELU kept the
# two-input version's `return tmp, tmp`: one gradient too many)
class GeluTwoGradients(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _tanh_gelu(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        shared = grad * _tanh_gelu_slope(x)
        return shared, shared


# After: quant-sic/nfqr, nfqr/normalizing_flows/diffeomorphisms/inversion.py (a flow's inverse
# found by bisection; backward is 1 / f'(z), with f' taken by autograd on a detached copy of z,
# so that no second derivative can flow through it)
class BisectionAsinh(Function):
    @staticmethod
    def forward(ctx, x, low, high, steps):
        below, above = torch.full_like(x, low), torch.full_like(x, high)
        for _ in range(steps):
            middle = (below + above) / 2
            short = torch.sinh(middle) < x
            below, above = torch.where(short, middle, below), torch.where(short, above, middle)
        z = (below + above) / 2
        ctx.save_for_backward(z)
        return z

    @staticmethod
    def backward(ctx, grad):
        (z,) = ctx.saved_tensors
        with torch.enable_grad():
            free = z.detach().requires_grad_()
            (slope,) = torch.autograd.grad(torch.sinh(free), free, torch.ones_like(free))
        return grad / slope, None, None, None


# After: openai/guided-diffusion, guided_diffusion/nn.py (CheckpointFunction: the inputs kept
# as a list on ctx, recomputed on detached copies and differentiated without a graph)
class StashedCheckpoint(Function):
    @staticmethod
    def forward(ctx, run, count, *args):
        ctx.run = run
        ctx.inputs, ctx.params = list(args[:count]), list(args[count:])
        with torch.no_grad():
            return run(*ctx.inputs, *ctx.params)

    @staticmethod
    def backward(ctx, *grads):
        inputs = [t.detach().requires_grad_() for t in ctx.inputs]
        with torch.enable_grad():
            outputs = ctx.run(*[t.view_as(t) for t in inputs], *ctx.params)
        found = torch.autograd.grad(outputs, inputs + ctx.params, grads, allow_unused=True)
        return (None, None, *found)


def tanh_layer(x, weight):
    return torch.tanh(x @ weight.T)


# After: pytorch/pytorch, docs/source/notes/extending.rst (the LinearFunction example; here
# with the weight's gradient multiplied in the wrong order: (in, out) for an (out, in) weight)
class LinearTransposedWeightGrad(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x.mm(weight.t()) + bias

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        return grad.mm(weight), x.t().mm(grad), grad.sum(0)


# After: pytorch/pytorch, tools/autograd/templates/Functions.cpp (the early norm_backward,
# self * grad / norm: 0 / 0 for a zero vector, where the norm's subgradient 0 is wanted)
class RowNorm(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.norm(dim=-1)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return x * (grad / x.norm(dim=-1)).unsqueeze(-1)


# After: SciSharp/SiaNet, SiaNet/Layers/Activations/Softplus.cs (softplus whose backward
# divides by 1 + exp(output), where the slope is 1 - exp(-output))
class SoftplusWrongSlope(Function):
    @staticmethod
    def forward(ctx, x):
        y = F.softplus(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad / (1 + torch.exp(y))


# After: ctgk/PRML, prml/autodiff/_nonlinear/softplus.py (softplus as max(x, 0) +
# log1p(exp(-|x|)); here written as log1p(exp(x)), which overflows to inf past x = 709)
class SoftplusUnshifted(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log1p(torch.exp(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.sigmoid(x)


# After: milesial/Pytorch-UNet, dice_loss.py (DiceCoeff's hand-written derivative of
# (2 * intersection + eps) / union; here without its factor grad_output, as a loss "is the end")
class DiceWithoutGradOut(Function):
    @staticmethod
    def forward(ctx, prediction, mask):
        ctx.save_for_backward(prediction, mask)
        truth = mask.to(prediction.dtype)
        union = prediction.sum() + truth.sum() + 1e-4
        return (2 * (prediction * truth).sum() + 1e-4) / union

    @staticmethod
    def backward(ctx, grad):
        prediction, mask = ctx.saved_tensors
        truth = mask.to(prediction.dtype)
        union = prediction.sum() + truth.sum() + 1e-4
        top = 2 * (prediction * truth).sum() + 1e-4
        return (2 * truth * union - top) / union**2, None


def dice(prediction, mask):
    truth = mask.to(prediction.dtype)
    return (2 * (prediction * truth).sum() + 1e-4) / (prediction.sum() + truth.sum() + 1e-4)


# After: pytorch/pytorch, aten/src/THNN/generic/HardTanh.c (the inplace variant of
# updateGradInput: gradInput is gradOutput, zeroed outside (min, max))
class HardTanhInPlaceGrad(Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high
        return x.clamp(low, high)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        grad[(x <= ctx.low) | (x >= ctx.high)] = 0
        return grad, None, None


# After: pytorch/pytorch, aten/src/THNN/generic/Sigmoid.c (the slope y * (1 - y) from the
# saved output; here computed in the output's own memory to spare a buffer)
class SigmoidInPlaceSaved(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.sigmoid(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return y.mul_(1 - y).mul_(grad)


# After: pytorch/pytorch, torch/autograd/function.py (the set_materialize_grads example: with
# materialising off, a grad_out can be None; here sin and cos of an angle, as rotary tables
# are built, with the None checks left out)
class SinCosUnchecked(Function):
    @staticmethod
    def forward(ctx, angle):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(angle)
        return torch.sin(angle), torch.cos(angle)

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        (angle,) = ctx.saved_tensors
        return grad_sin * torch.cos(angle) - grad_cos * torch.sin(angle)


# After: martinResearch/DEODR, DEODR/tools.py (qrot and qrot_backward: rotating points by a
# quaternion in NumPy; here both gradients are right but handed back as float32, the
# renderer's buffer type)
class QuaternionRotateNumpy(Function):
    @staticmethod
    def forward(ctx, q, v):
        ctx.save_for_backward(q, v)
        axis, w, points = q[:3].numpy(), q[3].item(), v.numpy()
        once = np.cross(axis, points)
        return torch.from_numpy(points + 2 * (w * once + np.cross(axis, once)))

    @staticmethod
    def backward(ctx, grad):
        q, v = ctx.saved_tensors
        axis, w, points, g = q[:3].numpy(), q[3].item(), v.numpy(), grad.numpy()
        skew = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        turn = np.eye(3) + 2 * w * skew + 2 * skew @ skew  # rotated = points @ turn.T
        grad_axis = 2 * w * np.cross(points, g).sum(0) + 2 * (
            g * (points @ axis)[:, None]
            + (g @ axis)[:, None] * points
            - 2 * (g * points).sum(1)[:, None] * axis
        ).sum(0)
        grad_w = 2 * (g * np.cross(axis, points)).sum()
        grad_q = np.append(grad_axis, grad_w)
        return torch.from_numpy(grad_q).float(), torch.from_numpy(g @ turn).float()


def quaternion_rotate(q, v):
    axis = q[:3].expand_as(v)
    once = torch.linalg.cross(axis, v)
    return v + 2 * (q[3] * once + torch.linalg.cross(axis, once))


# After: babylonhealth/neuralTPPs, tpp/pytorch/layers/log.py (a "safe" log; here made safe by
# clamping the input in place before saving it)
class SafeLogClampInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.clamp_(min=1e-8)
        ctx.save_for_backward(x)
        return x.log()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / x


# After: pytorch/pytorch, torch/testing/_internal/autograd_function_db.py (NumpyCube: a cube
# with both backward and jvp; here the jvp is one power of x short)
class CubeWrongTangent(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2

    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        return x_tangent * 3 * x


ZERO_ROW = GRID.clone()
ZERO_ROW[1] = 0.0
LARGE = torch.tensor([-3.0, -0.5, 0.0, 2.0, 750.0], dtype=torch.float64)
MASK = torch.tensor([[0, 1, 1, 0], [1, 0, 1, 1], [0, 0, 1, 1]])
QUATERNION = torch.tensor([0.3, -0.5, 0.2, 0.8], dtype=torch.float64)
CLOUD = torch.tensor(
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [-1.0, 2.0, 0.25], [0.5, -0.5, 1.5], [2.0, 1.0, -1.0]],
    dtype=torch.float64,
)

ENTRIES = [
    Entry(
        "gelu-two-gradients",
        GeluTwoGradients,
        lambda x: F.gelu(x, approximate="tanh"),
        "buggy",
        "tunib-ai/oslo, oslo/torch/nn/modules/fused_gelu.py",
        codes=("grad-count",),
        check="gradcheck",
    ),
    Entry(
        "bisection-asinh",
        BisectionAsinh,
        lambda x, low, high, steps: torch.asinh(x),
        "buggy",
        "quant-sic/nfqr, nfqr/normalizing_flows/diffeomorphisms/inversion.py",
        inputs=(GRID, -12.0, 12.0, 40),
        codes=("double-backward",),
        check="gradgradcheck",
    ),
    Entry(
        "stashed-checkpoint",
        StashedCheckpoint,
        lambda run, count, x, weight: run(x, weight),
        "buggy",
        "openai/guided-diffusion, guided_diffusion/nn.py",
        inputs=(tanh_layer, 1, GRID, WEIGHT),
        # With the weight frozen, its torch.autograd.grad over every input raises "One of
        # the differentiated Tensors does not require grad": a latent bug, not seen in float64
        # gradcheck with every input requiring grad.
        codes=("frozen-input", "double-backward", "ctx-tensor"),
        check="gradgradcheck",
    ),
    Entry(
        "linear-transposed-weight-grad",
        LinearTransposedWeightGrad,
        F.linear,
        "buggy",
        "pytorch/pytorch, docs/source/notes/extending.rst",
        inputs=(GRID, WEIGHT, torch.tensor([0.3, -0.7], dtype=torch.float64)),
        codes=("grad-shape",),
        check="gradcheck",
    ),
    Entry(
        "row-norm",
        RowNorm,
        lambda x: torch.linalg.vector_norm(x, dim=-1),
        "buggy",
        "pytorch/pytorch, tools/autograd/templates/Functions.cpp",
        inputs=(ZERO_ROW,),
        codes=("non-finite",),
        check="gradcheck",
    ),
    Entry(
        "softplus-wrong-slope",
        SoftplusWrongSlope,
        F.softplus,
        "buggy",
        "SciSharp/SiaNet, SiaNet/Layers/Activations/Softplus.cs",
        codes=("gradient",),
        check="gradcheck",
    ),
    Entry(
        "softplus-unshifted",
        SoftplusUnshifted,
        F.softplus,
        "buggy",
        "ctgk/PRML, prml/autodiff/_nonlinear/softplus.py",
        inputs=(LARGE,),
        codes=("forward",),
        check="gradcheck",
    ),
    Entry(
        "dice-without-grad-out",
        DiceWithoutGradOut,
        dice,
        "buggy",
        "milesial/Pytorch-UNet, dice_loss.py",
        inputs=(GRID.abs(), MASK),
        codes=("chain-rule",),
        check="gradcheck",
    ),
    Entry(
        "hardtanh-in-place-grad",
        HardTanhInPlaceGrad,
        lambda x, low, high: F.hardtanh(x, low, high),
        "buggy",
        "pytorch/pytorch, aten/src/THNN/generic/HardTanh.c",
        inputs=(GRID, -1.2, 1.2),
        codes=("mutates-grad-out",),
        check="gradgradcheck",
    ),
    Entry(
        "sigmoid-in-place-saved",
        SigmoidInPlaceSaved,
        torch.sigmoid,
        "buggy",
        "pytorch/pytorch, aten/src/THNN/generic/Sigmoid.c",
        codes=("mutates-saved",),
        check="gradcheck",
    ),
    Entry(
        "sin-cos-unchecked",
        SinCosUnchecked,
        lambda angle: (torch.sin(angle), torch.cos(angle)),
        "buggy",
        "pytorch/pytorch, torch/autograd/function.py",
        codes=("undefined-grad-out",),
        check="gradcheck",
    ),
    Entry(
        "quaternion-rotate-numpy",
        QuaternionRotateNumpy,
        quaternion_rotate,
        "buggy",
        "martinResearch/DEODR, DEODR/tools.py",
        inputs=(QUATERNION, CLOUD),
        codes=("grad-dtype", "double-backward"),
        check="gradgradcheck",
    ),
    Entry(
        "safe-log-clamp-in-place",
        SafeLogClampInPlace,
        lambda x: torch.log(x.clamp(min=1e-8)),
        "buggy",
        "babylonhealth/neuralTPPs, tpp/pytorch/layers/log.py",
        codes=("mutates-input", "gradient"),
        check="gradcheck",
    ),
    Entry(
        "cube-wrong-tangent",
        CubeWrongTangent,
        lambda x: x**3,
        "buggy",
        "pytorch/pytorch, torch/testing/_internal/autograd_function_db.py",
        codes=("jvp",),
        check="gradcheck(check_forward_ad=True)",
    ),
]
