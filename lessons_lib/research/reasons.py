"""Reasons 2 to 5: surrogate gradients, a numerically superior derivative, memory control,
implicit differentiation."""

import warnings
from collections import Counter
from collections.abc import Callable
from typing import ClassVar, TypeVar

import torch
import torch.utils.checkpoint
from torch.autograd import Function
from torch.autograd.function import once_differentiable

__all__ = [
    "CountedTanh",
    "FixedPointTanh",
    "Heaviside",
    "StableSoftplus",
    "TanhStackRecompute",
    "TanhStackSaved",
    "contraction_factors",
    "dropout_layer",
    "fixed_point_unrolled",
    "seeded_gradient",
    "solve_fixed_point",
    "tanh_blocks",
    "tanh_stack",
    "train_spiking_layer",
    "warnings_of",
]

# --- reason 2: surrogate gradients -----------------------------------------------------


class Heaviside(Function):
    """A spike (step at 0) with its true gradient: zero almost everywhere."""

    @staticmethod
    def forward(ctx, x):
        return (x > 0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        return torch.zeros_like(grad_out)  # honest, and useless for learning


def train_spiking_layer(
    spike: Callable[[torch.Tensor], torch.Tensor], steps: int = 100, lr: float = 5.0, seed: int = 0
) -> list[float]:
    """Teach a layer of spiking neurons to copy a teacher's spikes; the loss after each step.

    The loss is the fraction of wrong spikes, so 0.5 is guessing and 0 is perfect.
    Only `spike`'s backward decides whether the weights can move.
    """
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.randn(128, 8, generator=generator)
    target = (inputs @ torch.randn(8, 4, generator=generator) > 0).float()
    weight = torch.randn(8, 4, generator=generator).requires_grad_(True)
    losses = []
    for _ in range(steps):
        loss = ((spike(inputs @ weight) - target) ** 2).mean()
        (grad,) = torch.autograd.grad(loss, weight)
        with torch.no_grad():
            weight -= lr * grad
        losses.append(loss.item())
    return losses


# --- reason 3: a numerically superior derivative ----------------------------------------


class StableSoftplus(Function):
    """log(1 + exp(x)) that never overflows, with its derivative sigmoid(x) written by hand."""

    generate_vmap_rule = True  # plain torch ops throughout, so torch.func can batch it

    @staticmethod
    def forward(x):
        # max(x, 0) + log(1 + exp(-|x|)): the exponent is never positive.
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        # The derivative of softplus itself, not of the forward's pieces: right at x = 0,
        # where clamp and abs have kinks, and bounded in [0, 1], so never inf or NaN.
        return grad_out * torch.sigmoid(x)


# --- reason 4: memory control -----------------------------------------------------------


class TanhStackSaved(Function):
    """tanh applied `depth` times, saving every intermediate output for backward."""

    @staticmethod
    def forward(ctx, x, depth):
        outputs = []
        for _ in range(depth):
            x = torch.tanh(x)
            outputs.append(x)
        ctx.save_for_backward(*outputs)  # depth tensors held until backward
        return x

    @staticmethod
    @once_differentiable  # saved intermediates carry no graph: refuse double backward
    def backward(ctx, grad_out):
        grad = grad_out
        for y in reversed(ctx.saved_tensors):
            grad = grad * (1 - y * y)  # tanh'(z) = 1 - tanh(z)^2
        return grad, None


class TanhStackRecompute(Function):
    """tanh applied `depth` times, saving only the input and recomputing the rest in backward."""

    @staticmethod
    def forward(ctx, x, depth):
        ctx.save_for_backward(x)  # one tensor, whatever the depth
        ctx.depth = depth
        for _ in range(depth):
            x = torch.tanh(x)
        return x

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        outputs = []
        for _ in range(ctx.depth):  # forward again: time traded for memory
            x = torch.tanh(x)
            outputs.append(x)
        grad = grad_out
        for y in reversed(outputs):
            grad = grad * (1 - y * y)
        return grad, None


def tanh_stack(x: torch.Tensor, depth: int) -> torch.Tensor:
    """The same computation with plain torch ops, for autograd to differentiate."""
    for _ in range(depth):
        x = torch.tanh(x)
    return x


def tanh_blocks(
    x: torch.Tensor,
    blocks: int,
    depth: int,
    block: Callable[[torch.Tensor, int], torch.Tensor] = tanh_stack,
) -> torch.Tensor:
    """`blocks` blocks of `depth` tanh layers in sequence, each computed by `block(x, depth)`."""
    for _ in range(blocks):
        x = block(x, depth)
    return x


# --- reason 4, continued: checkpoint's traps ------------------------------------------------


T = TypeVar("T")


def warnings_of(run: Callable[[], T]) -> tuple[T, list[str]]:
    """run()'s result and the first line of every warning it raised, caught, not printed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # again each time: not once per place in the code
        result = run()
    return result, [str(w.message).splitlines()[0] for w in caught]


class CountedTanh(Function):
    """tanh that counts its forward and backward calls, to show what a checkpoint reruns."""

    calls: ClassVar[Counter] = Counter()  # a side effect of forward, as a statistic would be

    @staticmethod
    def forward(ctx, x):
        CountedTanh.calls["forward"] += 1
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        CountedTanh.calls["backward"] += 1
        (y,) = ctx.saved_tensors
        return grad_out * (1 - y * y)


def dropout_layer(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """tanh(x Wᵀ), then dropout (p = 0.5): a layer whose forward draws random numbers."""
    return torch.nn.functional.dropout(torch.tanh(x @ weight.T), p=0.5, training=True)


def seeded_gradient(
    run: Callable[[], torch.Tensor], weight: torch.Tensor, seed: int = 0
) -> torch.Tensor:
    """weight's gradient of run().sum(), torch's global generator seeded just before run()."""
    torch.manual_seed(seed)  # every run draws the same numbers in its forward
    weight.grad = None
    run().sum().backward()  # not autograd.grad, which the reentrant checkpoint refuses
    return weight.grad


# --- reason 5: implicit differentiation ---------------------------------------------------


def solve_fixed_point(
    step: Callable[[torch.Tensor], torch.Tensor], start: torch.Tensor, tol: float, max_iter: int
) -> tuple[torch.Tensor, int]:
    """Iterate z <- step(z) from start until no entry moves more than tol; z and the step count."""
    z, steps = start, 0
    while steps < max_iter:
        z_next = step(z)
        steps += 1
        moved = (z_next - z).abs().max()
        z = z_next
        if moved <= tol:
            break
    return z, steps


class FixedPointTanh(Function):
    """z* = tanh(z* Wᵀ + x) for a batch x, solved by iteration; backward by the IFT, matrix-free."""

    iterations: ClassVar[dict[str, int]] = {}  # a tally for the lesson: steps of the last solves

    @staticmethod
    def forward(ctx, x, weight, tol, max_iter):
        # Converges when W is a contraction, e.g. when contraction_factors(W) are below 1.
        z, steps = solve_fixed_point(
            lambda z: torch.tanh(z @ weight.T + x), torch.zeros_like(x), tol, max_iter
        )
        FixedPointTanh.iterations["forward"] = steps
        ctx.save_for_backward(z, weight)  # only the answer: the iterates are forgotten
        ctx.tol, ctx.max_iter = tol, max_iter
        return z

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        z, weight = ctx.saved_tensors
        a = 1 - z * z  # tanh' at the fixed point, so df/dz = diag(a) W for each row
        # The IFT's linear system (I - df/dz)ᵀ u = grad_out is itself a fixed point,
        # u = grad_out + (df/dz)ᵀ u, solved by iteration: it converges when forward does.
        # Each step is one VJP of f, (u * a) @ W, so the n x n Jacobian is never built.
        u, steps = solve_fixed_point(
            lambda u: grad_out + (u * a) @ weight, grad_out, ctx.tol, ctx.max_iter
        )
        FixedPointTanh.iterations["backward"] = steps
        v = u * a  # u pushed through tanh'
        grad_x = v if ctx.needs_input_grad[0] else None  # df/dx = diag(a)
        grad_weight = v.T @ z if ctx.needs_input_grad[1] else None  # df/dW_ij = a_i z_j
        return grad_x, grad_weight, None, None


def contraction_factors(weight: torch.Tensor) -> tuple[float, float]:
    """Bounds on how much one forward and one backward step shrink the largest entry's error.

    solve_fixed_point stops on the largest entry change, so its error bound needs the
    contraction factor q in that norm (the infinity norm). tanh is 1-Lipschitz, so forward,
    z <- tanh(W z + x), contracts by at most ||W||_inf, the largest row sum of |W|; backward,
    u <- grad_out + Wᵀ (a * u) with 0 < a <= 1, by at most ||Wᵀ||_inf = ||W||_1, the largest
    column sum.
    """
    forward = torch.linalg.matrix_norm(weight, ord=float("inf")).item()
    backward = torch.linalg.matrix_norm(weight, ord=1).item()
    return forward, backward


def fixed_point_unrolled(x: torch.Tensor, weight: torch.Tensor, iterations: int) -> torch.Tensor:
    """The same fixed point by plain iteration, for autograd to differentiate step by step."""
    z = torch.zeros_like(x)
    for _ in range(iterations):
        z = torch.tanh(z @ weight.T + x)
    return z
