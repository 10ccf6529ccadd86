"""The machinery the researcher track builds on: a VJP, sorting, gates, double backward."""

from collections import Counter
from collections.abc import Callable
from typing import ClassVar

import torch
import torch.utils.checkpoint
from torch.autograd import Function
from torch.autograd.function import once_differentiable

__all__ = [
    "CubeDetachedBackward",
    "CubeOnceDifferentiable",
    "HardGate",
    "Linear",
    "Sort",
    "vjp_error",
]

# --- the machinery -----------------------------------------------------------------


class Linear(Function):
    """y = x Wᵀ + b for a batch x, computing only the gradients autograd asks for."""

    computed: ClassVar[Counter] = Counter()  # a tally for the lesson: which gradients were made

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:  # one bool per forward input, in order
            grad_x = grad_out @ weight
            Linear.computed["x"] += 1
        if ctx.needs_input_grad[1]:  # a frozen weight skips this matrix product
            grad_weight = grad_out.T @ x
            Linear.computed["weight"] += 1
        if ctx.needs_input_grad[2]:
            grad_bias = grad_out.sum(0)
            Linear.computed["bias"] += 1
        return grad_x, grad_weight, grad_bias


class Sort(Function):
    """Sort along the last dimension; the indices are an output with no gradient."""

    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x, dim=-1)
        ctx.mark_non_differentiable(indices)  # autograd will not track them
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        # One upstream gradient per output; the one for indices is always zeros.
        (indices,) = ctx.saved_tensors
        # The Jacobian is a permutation: send each gradient back where its value came from.
        return torch.zeros_like(grad_values).scatter(-1, indices, grad_values)


class HardGate(Function):
    """x where the scores are positive, 0 elsewhere: a hard choice, so no gradient for scores."""

    @staticmethod
    def forward(ctx, x, scores):
        is_open = scores > 0
        ctx.save_for_backward(is_open)
        return x * is_open

    @staticmethod
    def backward(ctx, grad_out):
        (is_open,) = ctx.saved_tensors
        return grad_out * is_open, None  # None: the step before gets no gradient through scores


class CubeDetachedBackward(Function):
    """Cube whose backward detaches x: first derivatives right, second ones silently wrong."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x.detach() ** 2  # hides x from double backward


class CubeOnceDifferentiable(Function):
    """Cube that refuses double backward honestly, with @once_differentiable."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable  # backward runs on plain tensors; differentiating it raises
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x**2


def vjp_error(
    fn: Callable[[torch.Tensor], torch.Tensor],
    reference: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    trials: int = 5,
    seed: int = 0,
) -> float:
    """Largest gap between fn's backward and torch.func.vjp of reference, on random grad_outs."""
    generator = torch.Generator().manual_seed(seed)
    leaf = x.detach().requires_grad_(True)
    out = fn(leaf)
    _, reference_vjp = torch.func.vjp(reference, x.detach())
    worst = 0.0
    for _ in range(trials):
        grad_out = torch.randn(out.shape, generator=generator, dtype=out.dtype)
        (ours,) = torch.autograd.grad(out, leaf, grad_out, retain_graph=True)
        (theirs,) = reference_vjp(grad_out)
        worst = max(worst, (ours - theirs).abs().max().item())
    return worst
