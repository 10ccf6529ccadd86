"""Functions whose backward is the true derivative of forward: the doctor must pass them clean."""

import math

import torch
import torch.nn.functional as F
from torch.autograd import Function

from tests.doctor.corpus.entry import Entry

GRID = torch.tensor(
    [[-2.5, -1.5, -1.0, -0.5], [0.0, 0.25, 0.5, 0.75], [1.0, 1.5, 2.0, 2.5]],
    dtype=torch.float64,
)
SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
CUBIC = 0.044715


def _tanh_gelu(z):
    return 0.5 * z * (1 + torch.tanh(SQRT_2_OVER_PI * (z + CUBIC * z**3)))


def _tanh_gelu_slope(z):
    inner = torch.tanh(SQRT_2_OVER_PI * (z + CUBIC * z**3))
    return 0.5 * (1 + inner) + 0.5 * z * (1 - inner**2) * SQRT_2_OVER_PI * (1 + 3 * CUBIC * z**2)


# After: tunib-ai/oslo, oslo/torch/nn/modules/fused_bias_gelu.py (bias add fused into the tanh
# GELU; backward hands the same tensor to the input and to the broadcast bias)
class BiasGelu(Function):
    @staticmethod
    def forward(ctx, y, bias):
        ctx.save_for_backward(y, bias)
        return _tanh_gelu(y + bias)

    @staticmethod
    def backward(ctx, grad):
        y, bias = ctx.saved_tensors
        shared = grad * _tanh_gelu_slope(y + bias)
        return shared, shared  # the engine sums the rows for the (4,)-shaped bias


# After: microsoft/DeepSpeed, deepspeed/runtime/zero/linear.py (a linear layer that saves its
# input and weight and writes all three gradients by hand)
class SavedInputLinear(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        rows = grad.reshape(-1, grad.shape[-1])
        grad_weight = rows.T @ x.reshape(-1, x.shape[-1])
        return grad @ weight, grad_weight, rows.sum(0)


# After: torchscience/torchscience, src/torchscience/csrc/kernel/geometry/transform/
# quaternion_normalize_backward.h (q / |q|; the gradient is grad_out minus its part along
# the unit quaternion, over |q|)
class QuaternionNormalize(Function):
    @staticmethod
    def forward(ctx, q):
        unit = q / q.norm(dim=-1, keepdim=True)
        ctx.save_for_backward(q, unit)
        return unit

    @staticmethod
    def backward(ctx, grad):
        q, unit = ctx.saved_tensors
        along = (grad * unit).sum(-1, keepdim=True)
        return (grad - along * unit) / q.norm(dim=-1, keepdim=True)


# After: facebookresearch/maskrcnn-benchmark, maskrcnn_benchmark/layers/smooth_l1_loss.py
# (smooth L1 with a small beta, averaged; here as a Function with both gradients by hand)
class SmoothL1Mean(Function):
    @staticmethod
    def forward(ctx, prediction, target, beta):
        ctx.save_for_backward(prediction, target)  # not their difference: see backward
        ctx.beta = beta
        gap = prediction - target
        size = gap.abs()
        return torch.where(size < beta, 0.5 * gap**2 / beta, size - 0.5 * beta).mean()

    @staticmethod
    def backward(ctx, grad):
        prediction, target = ctx.saved_tensors
        gap = prediction - target  # from the saved inputs, so that double backward sees it
        slope = torch.where(gap.abs() < ctx.beta, gap / ctx.beta, gap.sign())
        grad_prediction = grad * slope / gap.numel()
        return grad_prediction, -grad_prediction, None


# After: open-mmlab/mmdetection, mmdet/ops/sigmoid_focal_loss/src/sigmoid_focal_loss_cuda.cu
# (per-element sigmoid focal loss against integer labels; the kernel's derivative, written with
# log-sigmoids so that no logit overflows)
class SigmoidFocalLoss(Function):
    @staticmethod
    def forward(ctx, logits, labels, gamma, alpha):
        ctx.save_for_backward(logits, labels)
        ctx.gamma, ctx.alpha = gamma, alpha
        hit = F.one_hot(labels, logits.shape[-1]).to(logits.dtype)
        p, q = torch.sigmoid(logits), torch.sigmoid(-logits)  # q = 1 - p, without cancelling
        positive = -alpha * q**gamma * F.logsigmoid(logits)
        negative = -(1 - alpha) * p**gamma * F.logsigmoid(-logits)
        return hit * positive + (1 - hit) * negative

    @staticmethod
    def backward(ctx, grad):
        logits, labels = ctx.saved_tensors
        gamma, alpha = ctx.gamma, ctx.alpha
        hit = F.one_hot(labels, logits.shape[-1]).to(logits.dtype)
        p, q = torch.sigmoid(logits), torch.sigmoid(-logits)
        positive = alpha * q**gamma * (gamma * p * F.logsigmoid(logits) - q)
        negative = (1 - alpha) * p**gamma * (p - gamma * q * F.logsigmoid(-logits))
        return grad * (hit * positive + (1 - hit) * negative), None, None, None


def focal_reference(logits, labels, gamma, alpha):
    hit = F.one_hot(labels, logits.shape[-1]).to(logits.dtype)
    p = torch.sigmoid(logits)
    p_true = p * hit + (1 - p) * (1 - hit)
    weight = (alpha * hit + (1 - alpha) * (1 - hit)) * (1 - p_true) ** gamma
    return weight * F.binary_cross_entropy_with_logits(logits, hit, reduction="none")


# After: pytorch/pytorch, aten/src/THNN/generic/SoftPlus.c (softplus with a linear tail past
# the threshold; the slope is recovered from the saved output as 1 - exp(-beta * y))
class ThresholdSoftplus(Function):
    @staticmethod
    def forward(ctx, x, beta, threshold):
        y = torch.where(x * beta > threshold, x, torch.log1p(torch.exp(beta * x)) / beta)
        ctx.save_for_backward(y)
        ctx.beta, ctx.threshold = beta, threshold
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        beta = ctx.beta
        slope = torch.where(y * beta > ctx.threshold, torch.ones_like(y), -torch.expm1(-beta * y))
        return grad * slope, None, None


# After: databricks/megablocks, megablocks/ops/gather.py (rows gathered by integer index for
# top-k routing; backward scatters the gradient back, summing the top_k copies of each row)
class GatherRows(Function):
    @staticmethod
    def forward(ctx, x, indices, top_k):
        rows = indices // top_k
        ctx.save_for_backward(rows)
        ctx.row_count = x.shape[0]
        return x.index_select(0, rows)

    @staticmethod
    def backward(ctx, grad):
        (rows,) = ctx.saved_tensors
        summed = grad.new_zeros((ctx.row_count, grad.shape[-1])).index_add(0, rows, grad)
        return summed, None, None, None  # one None too many, as there: the engine allows it


# After: pytorch/pytorch, torch/utils/checkpoint.py (the reentrant checkpoint: forward runs
# without a graph, backward runs the block again and differentiates it; here on the saved
# inputs themselves, with a graph when double backward asks for one)
class RecomputedTanhLayer(Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return torch.tanh(x @ weight.T)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        keep_graph = torch.is_grad_enabled()
        with torch.enable_grad():
            x_, weight_ = (
                t if t.requires_grad else t.detach().requires_grad_() for t in (x, weight)
            )
            again = torch.tanh(x_ @ weight_.T)
            return torch.autograd.grad(again, (x_, weight_), grad, create_graph=keep_graph)


# After: justanhduc/neuralnet-pytorch, neuralnet_pytorch/extensions/cpp/bpd/bpd.cpp (pairwise
# squared distances |x|^2 + |y|^2 - 2 x.y; the gradients written out for both point sets)
class PairwiseSquaredDistance(Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return (x**2).sum(-1, keepdim=True) + (y**2).sum(-1) - 2 * x @ y.T

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        grad_x = 2 * (grad.sum(1, keepdim=True) * x - grad @ y)
        grad_y = 2 * (grad.sum(0).unsqueeze(-1) * y - grad.T @ x)
        return grad_x, grad_y


# After: pytorch/pytorch, aten/src/THNN/generic/Tanh.c (the slope 1 - y^2 taken from the saved
# output rather than the input)
class TanhFromOutput(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (1 - y * y)


# After: toshas/torch-discounted-cumsum, torch_discounted_cumsum/discounted_cumsum.py (returns
# y_t = sum over k >= t of gamma^(k - t) x_k; backward is the same sum run the other way), with
# the jvp that public RL code declares only to refuse forward mode, as PyTorch's default does
class DiscountedReturn(Function):
    @staticmethod
    def forward(ctx, rewards, gamma):
        ctx.gamma = gamma
        return _discounted_sum(rewards, gamma)

    @staticmethod
    def backward(ctx, grad):
        return _discounted_sum(grad.flip(-1), ctx.gamma).flip(-1), None

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError("forward mode is not implemented for the discounted return")


def _discounted_sum(values, gamma):
    total, sums = torch.zeros_like(values[..., -1]), []
    for step in range(values.shape[-1] - 1, -1, -1):
        total = values[..., step] + gamma * total
        sums.append(total)
    return torch.stack(sums[::-1], -1)


def discounted_return(rewards, gamma):
    steps = torch.arange(rewards.shape[-1], dtype=rewards.dtype)
    ahead = steps.unsqueeze(0) - steps.unsqueeze(1)  # k - t
    weights = torch.where(ahead >= 0, gamma ** ahead.clamp(min=0), torch.zeros_like(ahead))
    return rewards @ weights.T


WEIGHT = torch.tensor(
    [[0.5, -0.25, 0.75, 0.1], [-0.6, 0.3, 0.2, -0.4]], dtype=torch.float64
)  # (2, 4): an output of 2 from an input of 4
BIAS2 = torch.tensor([0.3, -0.7], dtype=torch.float64)
POINTS = torch.tensor([[1.0, 0.0, -1.0, 0.5], [0.25, 2.0, 0.0, -1.5]], dtype=torch.float64)
LABELS = torch.tensor([0, 3, 1])

ENTRIES = [
    Entry(
        "bias-gelu",
        BiasGelu,
        lambda y, bias: F.gelu(y + bias, approximate="tanh"),
        "exact",
        "tunib-ai/oslo, oslo/torch/nn/modules/fused_bias_gelu.py",
        inputs=(GRID, torch.tensor([0.1, -0.2, 0.3, 0.0], dtype=torch.float64)),
    ),
    Entry(
        "saved-input-linear",
        SavedInputLinear,
        F.linear,
        "exact",
        "microsoft/DeepSpeed, deepspeed/runtime/zero/linear.py",
        inputs=(GRID, WEIGHT, BIAS2),
    ),
    Entry(
        "quaternion-normalize",
        QuaternionNormalize,
        lambda q: q / torch.linalg.vector_norm(q, dim=-1, keepdim=True),
        "exact",
        "torchscience/torchscience, src/torchscience/csrc/kernel/geometry/transform/"
        "quaternion_normalize_backward.h",
        inputs=(GRID,),
    ),
    Entry(
        "smooth-l1-mean",
        SmoothL1Mean,
        lambda prediction, target, beta: F.smooth_l1_loss(prediction, target, beta=beta),
        "exact",
        "facebookresearch/maskrcnn-benchmark, maskrcnn_benchmark/layers/smooth_l1_loss.py",
        inputs=(GRID, torch.full((3, 4), 0.3, dtype=torch.float64), 1 / 9),
    ),
    Entry(
        "sigmoid-focal-loss",
        SigmoidFocalLoss,
        focal_reference,
        "exact",
        "open-mmlab/mmdetection, mmdet/ops/sigmoid_focal_loss/src/sigmoid_focal_loss_cuda.cu",
        inputs=(GRID, LABELS, 2.0, 0.25),
    ),
    Entry(
        "threshold-softplus",
        ThresholdSoftplus,
        lambda x, beta, threshold: F.softplus(x, beta, threshold),
        "exact",
        "pytorch/pytorch, aten/src/THNN/generic/SoftPlus.c",
        inputs=(GRID, 2.0, 20.0),
    ),
    Entry(
        "gather-rows",
        GatherRows,
        lambda x, indices, top_k: x[indices // top_k],
        "exact",
        "databricks/megablocks, megablocks/ops/gather.py",
        inputs=(GRID, torch.tensor([0, 1, 5, 2, 3, 4]), 2),
    ),
    Entry(
        "recomputed-tanh-layer",
        RecomputedTanhLayer,
        lambda x, weight: torch.tanh(x @ weight.T),
        "exact",
        "pytorch/pytorch, torch/utils/checkpoint.py",
        inputs=(GRID, WEIGHT),
    ),
    Entry(
        "pairwise-squared-distance",
        PairwiseSquaredDistance,
        lambda x, y: ((x.unsqueeze(1) - y.unsqueeze(0)) ** 2).sum(-1),
        "exact",
        "justanhduc/neuralnet-pytorch, neuralnet_pytorch/extensions/cpp/bpd/bpd.cpp",
        inputs=(GRID, POINTS),
    ),
    Entry(
        "tanh-from-output",
        TanhFromOutput,
        torch.tanh,
        "exact",
        "pytorch/pytorch, aten/src/THNN/generic/Tanh.c",
    ),
    Entry(
        "discounted-return",
        DiscountedReturn,
        discounted_return,
        "exact",
        "toshas/torch-discounted-cumsum, torch_discounted_cumsum/discounted_cumsum.py",
        inputs=(GRID, 0.9),
    ),
]
