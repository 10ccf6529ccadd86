"""What a Function costs: the cost framing's Functions, and what torch.compile makes of one."""

from collections.abc import Callable

import torch
import torch.utils.checkpoint
from torch.autograd import Function

__all__ = [
    "Exp",
    "Passthrough",
    "compiled_ops",
    "fullgraph_outcome",
]

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


def fullgraph_outcome(fn: Callable[..., object], *args: object) -> str:
    """'compiles' when Dynamo captures fn(*args) in one graph, else 'raises <kind> (<reason>)'.

    Dynamo only (the eager backend, no code generation), with fullgraph=True: what a graph
    break would be raises instead. The reason is the first line of Dynamo's message.
    """
    from torch._dynamo.exc import Unsupported  # the compiler stack loads on first use

    torch._dynamo.reset()  # compile afresh: nothing cached from an earlier call
    try:
        torch.compile(fn, backend="eager", fullgraph=True)(*args)
    except Unsupported as error:
        return f"raises {type(error).__name__} ({str(error).splitlines()[0]})"
    return "compiles"
