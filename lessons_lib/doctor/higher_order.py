"""Second derivatives and forward mode, asked of a learner's Function or of its reference.

Beyond the first derivative the doctor asks two questions: does differentiating the
backward (double backward) give the reference's second derivatives, and does the
Function's jvp push tangents forward as the reference would? Like probe, nothing here
raises for broken code: a failure comes back as a value, and torch's global state is
restored.
"""

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd.function import once_differentiable

from lessons_lib.running import (
    Failure,
    Upstream,
    as_tuple,
    differentiable,
    leaves_and_args,
    preserved_global_state,
    tracked_outputs,
)

GradRule = Callable[..., object]  # grad_rule(*inputs, *grad_outs): the intended backward
_ONCE_DIFFERENTIABLE = once_differentiable(lambda ctx: None).__code__
REFUSED = "backward is marked @once_differentiable, so it refuses double backward"


@dataclass
class Derivatives:
    """Per input (None for non-tensors) and per tracked output: the derivatives found."""

    inputs: tuple = ()
    outputs: dict[int, torch.Tensor] = field(default_factory=dict)
    failure: Failure | None = None


def is_once_differentiable(fn: type) -> bool:
    """Whether fn.backward is wrapped in @once_differentiable (it refuses double backward)."""
    return getattr(fn.backward, "__code__", None) is _ONCE_DIFFERENTIABLE


@functools.cache
def _refusal_node() -> type:
    """The graph node @once_differentiable plants; it raises only if a backward reaches it."""

    @once_differentiable
    def passthrough(ctx: object, grad: torch.Tensor) -> torch.Tensor:
        return grad

    with torch.enable_grad():
        return type(passthrough(None, torch.ones(1, requires_grad=True)).grad_fn)


def refuses_double_backward(values: Sequence) -> bool:
    """Whether a @once_differentiable backward (even one called inside another) made `values`.

    torch.autograd.grad with explicit inputs can route around the refusal node and
    return zeros instead of raising, so the doctor looks for the node itself.
    """
    seen, todo = set(), [v.grad_fn for v in values if isinstance(v, torch.Tensor)]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        if isinstance(node, _refusal_node()):
            return True
        seen.add(node)
        todo += [next_node for next_node, _ in node.next_functions]
    return False


def defines_jvp(fn: type) -> bool:
    """Whether fn has its own jvp staticmethod, the rule forward mode uses."""
    return fn.jvp is not torch.autograd.Function.jvp


def _first_derivative(
    compute: Callable, grad_rule: GradRule | None, leaves: tuple, args: tuple, upstream: Upstream
) -> tuple[list, dict[int, torch.Tensor]]:
    """The vector-Jacobian product with its graph kept, and the grad_outs (which require grad)."""
    outputs = as_tuple(compute(*args))
    tracked = tracked_outputs(outputs)
    if grad_rule is not None:
        # The intended rule takes a grad_out for every float output, as backward does, even
        # where the reference's output carries no graph (a step: (x > 0).float()).
        tracked = [k for k, o in enumerate(outputs) if differentiable(o)]
    grad_outs = {k: upstream(outputs[k].detach(), k).requires_grad_(True) for k in tracked}
    if grad_rule is not None:
        given = list(as_tuple(grad_rule(*args, *grad_outs.values())))
        if len(given) != len(args):  # only the differentiable inputs' gradients were given
            given = [given.pop(0) if leaf is not None and given else None for leaf in leaves]
        return given, grad_outs
    wanted = [leaf for leaf in leaves if leaf is not None]
    found = [None] * len(wanted)
    if tracked:
        found = torch.autograd.grad(
            [outputs[k] for k in tracked],
            wanted,
            list(grad_outs.values()),
            create_graph=True,
            allow_unused=True,
        )
    found = iter(found)
    return [None if leaf is None else next(found) for leaf in leaves], grad_outs


def _dot(values: Sequence, directions: Sequence) -> torch.Tensor | None:
    """sum_j <values_j, directions_j> over the entries that carry a graph, or None."""
    pieces = [
        (value * d).sum()
        for value, d in zip(values, directions, strict=True)
        if isinstance(value, torch.Tensor) and value.requires_grad and d is not None
    ]
    return torch.stack(pieces).sum() if pieces else None


def _grad_or_zeros(total: torch.Tensor | None, targets: list[torch.Tensor]) -> list[torch.Tensor]:
    found = [None] * len(targets)
    if total is not None:
        found = torch.autograd.grad(total, targets, allow_unused=True)
    return [torch.zeros_like(t) if g is None else g for g, t in zip(found, targets, strict=True)]


def second_derivatives(
    compute: Callable,
    inputs: Sequence,
    upstream: Upstream,
    directions: Sequence,
    grad_rule: GradRule | None = None,
    stage: str = "double backward",
) -> Derivatives:
    """Double backward: d/d(inputs, grad_outs) of sum_j <directions_j, VJP_j>.

    This is what torch.autograd.grad(..., create_graph=True) followed by a second
    backward computes, and what gradgradcheck checks.
    """
    result = Derivatives()
    with preserved_global_state(), torch.enable_grad():
        leaves, args = leaves_and_args(inputs)
        try:
            first, grad_outs = _first_derivative(compute, grad_rule, leaves, args, upstream)
            if refuses_double_backward(first):
                raise RuntimeError(REFUSED)
            wanted = [leaf for leaf in leaves if leaf is not None]
            found = _grad_or_zeros(_dot(first, directions), wanted + list(grad_outs.values()))
        except Exception as error:
            result.failure = Failure.of(stage, error)
            return result
        by_input, by_output = iter(found[: len(wanted)]), found[len(wanted) :]
        result.inputs = tuple(None if leaf is None else next(by_input) for leaf in leaves)
        result.outputs = dict(zip(grad_outs, by_output, strict=True))
    return result


def forward_mode(
    compute: Callable,
    inputs: Sequence,
    tangents: Sequence,
    grad_rule: GradRule | None = None,
) -> Derivatives:
    """The Jacobian-vector product J t, one tangent per tracked output.

    Found by differentiating the vector-Jacobian product with respect to grad_out (the
    "double-vjp trick"), so it needs only a backward: autograd's of the reference, or
    the intended rule `grad_rule`.
    """
    result = Derivatives()
    with preserved_global_state(), torch.enable_grad():
        leaves, args = leaves_and_args(inputs)

        def zeros(output: torch.Tensor, index: int) -> torch.Tensor:
            return torch.zeros_like(output)

        try:
            first, grad_outs = _first_derivative(compute, grad_rule, leaves, args, zeros)
            found = _grad_or_zeros(_dot(first, tangents), list(grad_outs.values()))
        except Exception as error:
            result.failure = Failure.of("reference", error)
            return result
        result.outputs = dict(zip(grad_outs, found, strict=True))
    return result


def jvp_of(fn: type, inputs: Sequence, tangents: Sequence) -> Derivatives:
    """What forward-mode AD through fn (its jvp staticmethod) gives for `tangents`."""
    result = Derivatives()
    with preserved_global_state(), fwAD.dual_level():
        args = []
        for value, tangent in zip(inputs, tangents, strict=True):
            if isinstance(value, torch.Tensor):
                value = value.detach().clone()
                if differentiable(value) and tangent is not None:
                    value = fwAD.make_dual(value, tangent.clone())
            args.append(value)
        try:
            outputs = as_tuple(fn.apply(*args))
            for k, output in enumerate(outputs):
                if isinstance(output, torch.Tensor) and output.is_floating_point():
                    tangent = fwAD.unpack_dual(output).tangent
                    result.outputs[k] = torch.zeros_like(output) if tangent is None else tangent
        except Exception as error:
            result.failure = Failure.of("jvp", error)
    return result
