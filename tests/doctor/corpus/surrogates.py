"""Functions whose backward is a deliberate rule, declared as grad_reference(*inputs, *grad_outs)."""

import torch
from torch.autograd import Function

from tests.doctor.corpus.entry import Entry
from tests.doctor.corpus.exact import GRID


# After: InterDigitalInc/CompressAI, compressai/ops/bound_ops.py (max(x, bound) whose gradient
# passes where x is above the bound, or where the step would move x up towards it)
class LowerBound(Function):
    @staticmethod
    def forward(ctx, x, bound):
        ctx.save_for_backward(x, bound)
        return torch.maximum(x, bound)

    @staticmethod
    def backward(ctx, grad):
        x, bound = ctx.saved_tensors
        passes = (x >= bound) | (grad < 0)
        return grad * passes, None


def lower_bound_rule(x, bound, grad):
    return grad * ((x >= bound) | (grad < 0)), None


# After: jacobgil/pytorch-grad-cam, pytorch_grad_cam/guided_backprop.py (guided
# backpropagation: a ReLU whose backward also drops negative incoming gradients)
class GuidedReLU(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x > 0) * (grad > 0)


def guided_relu_rule(x, grad):
    return grad * (x > 0) * (grad > 0)


# After: ashawkey/torch-ngp, activation.py (exp for NeRF densities, whose backward clamps the
# exponent at 15 so that a large input cannot blow up the gradient)
class TruncatedExp(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.exp(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.exp(x.clamp(max=15))


# After: TorchSpatiotemporal/tsl, tsl/nn/ops/grad_norm.py (identity forward, returning the
# input itself; backward divides the gradient by a fixed number)
class GradientDivide(Function):
    @staticmethod
    def forward(ctx, x, norm):
        ctx.norm = norm
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.norm, None


# After: huggingface/transformers, examples/research_projects/movement-pruning/emmental/
# modules/binarizer.py (TopKBinarizer: a 0/1 mask of the scores' top fraction; backward passes
# the gradient straight to the scores)
class TopKMask(Function):
    @staticmethod
    def forward(ctx, scores, keep):
        order = scores.flatten().argsort(descending=True)
        mask = torch.zeros_like(scores).flatten()
        mask[order[: int(keep * scores.numel())]] = 1
        return mask.view_as(scores)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def top_k_mask(scores, keep):
    kept = scores.flatten().topk(int(keep * scores.numel())).indices
    return torch.zeros(scores.numel(), dtype=scores.dtype).index_fill(0, kept, 1).view_as(scores)


# After: tosfaq/deep-object-reid, torchreid/ops/gumbel_sigmoid.py (a hard 0/1 gate from
# logits plus Gumbel noise; backward is the soft gate's slope; here the noise is an input, and
# the soft gate is recomputed from the saved inputs)
class HardGumbelGate(Function):
    @staticmethod
    def forward(ctx, logits, noise, temperature):
        ctx.save_for_backward(logits, noise)
        ctx.temperature = temperature
        return (logits + noise > 0).to(logits.dtype)

    @staticmethod
    def backward(ctx, grad):
        logits, noise = ctx.saved_tensors
        soft = torch.sigmoid((logits + noise) / ctx.temperature)
        return grad * soft * (1 - soft) / ctx.temperature, None, None


def gumbel_gate_rule(logits, noise, temperature, grad):
    soft = torch.sigmoid((logits + noise) / temperature)
    return grad * soft * (1 - soft) / temperature, None, None


# After: deel-ai/deel-torchlip, deel/torchlip/utils/sqrt_eps.py (sqrt whose gradient adds eps
# to the saved root, so that it stays finite at 0)
class SqrtEpsGradient(Function):
    @staticmethod
    def forward(ctx, x, eps):
        root = torch.sqrt(x)
        ctx.save_for_backward(root)
        ctx.eps = eps
        return root

    @staticmethod
    def backward(ctx, grad):
        (root,) = ctx.saved_tensors
        return grad / (2 * (root + ctx.eps)), None


# After: facebookresearch/fairseq, examples/translation_moe/translation_moe_src/
# logsumexp_moe.py (log-sum-exp over experts whose backward weights by a given posterior
# instead of the softmax)
class LogSumExpPosterior(Function):
    @staticmethod
    def forward(ctx, log_p, posterior, dim):
        ctx.save_for_backward(posterior)
        ctx.dim = dim
        return torch.logsumexp(log_p, dim=dim)

    @staticmethod
    def backward(ctx, grad):
        (posterior,) = ctx.saved_tensors
        return grad.unsqueeze(ctx.dim) * posterior, None, None


POSTERIOR = torch.softmax(torch.tensor([[0.1, 2.0, -1.0, 0.5]] * 3, dtype=torch.float64), -1)
NOISE = torch.tensor(
    [[0.3, -0.2, 0.7, -1.1], [0.05, 0.4, -0.9, 0.2], [-0.6, 0.1, 0.35, -0.45]],
    dtype=torch.float64,
)

ENTRIES = [
    Entry(
        "lower-bound",
        LowerBound,
        torch.maximum,
        "surrogate",
        "InterDigitalInc/CompressAI, compressai/ops/bound_ops.py",
        grad_reference=lower_bound_rule,
        inputs=(GRID, torch.tensor([0.11], dtype=torch.float64)),
    ),
    Entry(
        "guided-relu",
        GuidedReLU,
        torch.relu,
        "surrogate",
        "jacobgil/pytorch-grad-cam, pytorch_grad_cam/guided_backprop.py",
        grad_reference=guided_relu_rule,
    ),
    Entry(
        "truncated-exp",
        TruncatedExp,
        torch.exp,
        "surrogate",
        "ashawkey/torch-ngp, activation.py",
        grad_reference=lambda x, grad: grad * torch.exp(x.clamp(max=15)),
    ),
    Entry(
        "gradient-divide",
        GradientDivide,
        lambda x, norm: x,
        "surrogate",
        "TorchSpatiotemporal/tsl, tsl/nn/ops/grad_norm.py",
        grad_reference=lambda x, norm, grad: (grad / norm, None),
        inputs=(GRID, 4.0),
    ),
    Entry(
        "top-k-mask",
        TopKMask,
        top_k_mask,
        "surrogate",
        "huggingface/transformers, examples/research_projects/movement-pruning/emmental/"
        "modules/binarizer.py",
        grad_reference=lambda scores, keep, grad: (grad, None),
        inputs=(GRID, 0.5),
    ),
    Entry(
        "hard-gumbel-gate",
        HardGumbelGate,
        lambda logits, noise, temperature: (logits + noise > 0).to(logits.dtype),
        "surrogate",
        "tosfaq/deep-object-reid, torchreid/ops/gumbel_sigmoid.py",
        grad_reference=gumbel_gate_rule,
        inputs=(GRID, NOISE, 0.5),
    ),
    Entry(
        "sqrt-eps-gradient",
        SqrtEpsGradient,
        lambda x, eps: torch.sqrt(x),
        "surrogate",
        "deel-ai/deel-torchlip, deel/torchlip/utils/sqrt_eps.py",
        grad_reference=lambda x, eps, grad: (grad / (2 * (torch.sqrt(x) + eps)), None),
        inputs=(GRID.abs() + 0.5, 1e-6),
    ),
    Entry(
        "logsumexp-posterior",
        LogSumExpPosterior,
        lambda log_p, posterior, dim: torch.logsumexp(log_p, dim=dim),
        "surrogate",
        "facebookresearch/fairseq, examples/translation_moe/translation_moe_src/logsumexp_moe.py",
        grad_reference=lambda log_p, posterior, dim, grad: (
            grad.unsqueeze(dim) * posterior,
            None,
            None,
        ),
        inputs=(GRID, POSTERIOR, -1),
    ),
]
