"""The researcher track's Functions: the machinery, and the five reasons to write one.

Each class is short and plain because the researcher notebook shows its source
(``show_source(Sort)``). Every one is tested in tests/test_research.py against
gradcheck, torch's own ops, or autograd through an unrolled computation. Importing
this module also registers four custom operators, ``lessons::numpy_convolve``,
``lessons::numpy_correlate``, ``lessons::numpy_convolve_no_backward`` and
``lessons::cube_in_c``, once: an operator's name is its identity in the process.
"""

import ctypes
import ctypes.util
import sys
from collections import Counter
from collections.abc import Callable
from typing import ClassVar

import numpy as np
import torch
import torch.utils.checkpoint
from torch.autograd import Function
from torch.autograd.function import once_differentiable

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


# --- reason 1: foreign compute -------------------------------------------------------


class NumpyConvolve(Function):
    """Full 1-D convolution computed by NumPy, made differentiable in x and the kernel."""

    @staticmethod
    def forward(ctx, x, kernel):
        ctx.save_for_backward(x, kernel)
        y = np.convolve(x.detach().cpu().numpy(), kernel.detach().cpu().numpy(), mode="full")
        return torch.from_numpy(y).to(x)  # back to torch: same dtype and device as x

    @staticmethod
    @once_differentiable  # NumPy is invisible to autograd: refuse double backward honestly
    def backward(ctx, grad_out):
        x, kernel = (t.cpu().numpy() for t in ctx.saved_tensors)
        g = grad_out.cpu().numpy()
        grad_x = grad_kernel = None
        # y[n] = sum_k x[k] kernel[n - k], so each VJP is a correlation with the other input.
        if ctx.needs_input_grad[0]:
            grad_x = torch.from_numpy(np.correlate(g, kernel, mode="valid")).to(grad_out)
        if ctx.needs_input_grad[1]:
            grad_kernel = torch.from_numpy(np.correlate(g, x, mode="valid")).to(grad_out)
        return grad_x, grad_kernel


# --- reason 1, the recommended way: a custom operator ------------------------------------


@torch.library.custom_op("lessons::numpy_correlate", mutates_args=())
def numpy_correlate(signal: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """Valid 1-D correlation computed by NumPy: the VJPs of numpy_convolve, an op of its own."""
    out = np.correlate(signal.cpu().numpy(), kernel.cpu().numpy(), mode="valid")
    return torch.from_numpy(out).to(signal)


@numpy_correlate.register_fake  # shapes only: how torch.compile traces it without running it
def _numpy_correlate_fake(signal, kernel):
    return signal.new_empty(signal.shape[0] - kernel.shape[0] + 1)


@torch.library.custom_op("lessons::numpy_convolve", mutates_args=())
def numpy_convolve(x: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """Full 1-D convolution computed by NumPy, as a custom operator with a backward."""
    y = np.convolve(x.cpu().numpy(), kernel.cpu().numpy(), mode="full")
    return torch.from_numpy(y).to(x)


@numpy_convolve.register_fake
def _numpy_convolve_fake(x, kernel):
    return x.new_empty(x.shape[0] + kernel.shape[0] - 1)


def _numpy_convolve_setup_context(ctx, inputs, output):
    ctx.save_for_backward(*inputs)  # x and kernel


def _numpy_convolve_backward(ctx, grad_out):
    x, kernel = ctx.saved_tensors
    # The same two correlations as NumpyConvolve.backward, each a call of an operator, so
    # torch.compile can trace the backward too.
    grad_x = numpy_correlate(grad_out, kernel) if ctx.needs_input_grad[0] else None
    grad_kernel = numpy_correlate(grad_out, x) if ctx.needs_input_grad[1] else None
    return grad_x, grad_kernel


numpy_convolve.register_autograd(
    _numpy_convolve_backward, setup_context=_numpy_convolve_setup_context
)


@torch.library.custom_op("lessons::numpy_convolve_no_backward", mutates_args=())
def numpy_convolve_no_backward(x: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """numpy_convolve without register_autograd: a backward raises, yet some checks pass."""
    y = np.convolve(x.cpu().numpy(), kernel.cpu().numpy(), mode="full")
    return torch.from_numpy(y).to(x)


@numpy_convolve_no_backward.register_fake
def _numpy_convolve_no_backward_fake(x, kernel):
    return x.new_empty(x.shape[0] + kernel.shape[0] - 1)


# --- reason 1, code torch.compile cannot read: a C library ---------------------------------

# The C maths library, opened through ctypes: libm (None, the running process, if it is
# not found by name), or Windows' C runtime. A stand-in for a C library of your own.
_C_MATHS = ctypes.CDLL("ucrtbase" if sys.platform == "win32" else ctypes.util.find_library("m"))
_C_MATHS.pow.restype, _C_MATHS.pow.argtypes = ctypes.c_double, (ctypes.c_double, ctypes.c_double)


def c_cube(x: torch.Tensor) -> torch.Tensor:
    """x ** 3, one element at a time, by the C maths library's pow."""
    values = x.detach().cpu().numpy().ravel()
    cubes = [_C_MATHS.pow(float(v), 3.0) for v in values]  # a C call Dynamo cannot trace
    return torch.tensor(cubes, dtype=x.dtype, device=x.device).reshape(x.shape)


class CubeInC(Function):
    """Cube whose forward calls C: fine in eager mode, a graph break for torch.compile."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return c_cube(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x**2


@torch.library.custom_op("lessons::cube_in_c", mutates_args=())
def cube_in_c(x: torch.Tensor) -> torch.Tensor:
    """The same C call as a custom operator: torch.compile calls it, never reads it."""
    return c_cube(x)


@cube_in_c.register_fake  # shapes only: the compiler never runs the C code while tracing
def _cube_in_c_fake(x):
    return torch.empty_like(x)


def _cube_in_c_setup_context(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _cube_in_c_backward(ctx, grad_out):
    (x,) = ctx.saved_tensors
    return grad_out * 3 * x**2


cube_in_c.register_autograd(_cube_in_c_backward, setup_context=_cube_in_c_setup_context)


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


def tanh_stack_checkpointed(x: torch.Tensor, depth: int) -> torch.Tensor:
    """tanh_stack under torch.utils.checkpoint: keeps its input, recomputes the rest in backward."""
    return torch.utils.checkpoint.checkpoint(tanh_stack, x, depth, use_reentrant=False)


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


# --- cost framing ------------------------------------------------------------------------


class Exp(Function):
    """exp(x) with exactly torch.exp's own backward (grad_out times the saved output)."""

    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)  # exp is its own derivative: save the output
        return y

    @staticmethod
    def backward(ctx, grad_out):
        (y,) = ctx.saved_tensors
        return grad_out * y


class Passthrough(Function):
    """The emptiest Function: forward copies x, backward passes grad_out on; pure bookkeeping."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out


# --- torch.compile ------------------------------------------------------------------------


def compiled_ops(fn: Callable[..., torch.Tensor], *args: torch.Tensor) -> dict[str, list[str]]:
    """The operators in the forward and backward graphs torch.compile builds for fn(*args).

    The backend is aot_eager with a note-taker: Dynamo captures fn in one graph
    (fullgraph=True, so a graph break raises), AOTAutograd splits it into a forward and
    a backward graph of ATen operators, and both run eagerly, with no code generation.
    """
    # Imported here: the compiler stack is slow to load and only this helper needs it.
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    ops: dict[str, list[str]] = {}

    def note_taker(name: str) -> Callable:
        def compiler(graph: torch.fx.GraphModule, example_inputs: list) -> Callable:
            ops[name] = [
                str(getattr(node.target, "overloadpacket", node.target))
                for node in graph.graph.nodes
                if node.op == "call_function"
            ]
            return make_boxed_func(graph.forward)

        return compiler

    torch._dynamo.reset()  # compile afresh: nothing cached from an earlier call
    backend = aot_autograd(fw_compiler=note_taker("forward"), bw_compiler=note_taker("backward"))
    out = torch.compile(fn, backend=backend, fullgraph=True)(*args)
    torch.autograd.grad(out.sum(), [a for a in args if a.requires_grad])  # builds the backward
    return ops
