"""Run any Function safely: its forward, its raw backward, and a reference's true gradient.

The gradient doctor and the explorer both ask these questions of learner code, which
may be arbitrarily broken. Everything here captures errors instead of raising them,
works on private copies of the inputs, and restores torch's global state afterwards.
"""

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

Upstream = Callable[[torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class Failure:
    """An exception raised by learner code, kept as plain words: no traceback."""

    stage: str  # "forward", "backward" or "reference"
    kind: str  # the exception's type name
    message: str

    def __str__(self) -> str:
        return f"{self.stage} raised {self.kind}: {self.message}"

    @classmethod
    def of(cls, stage: str, error: BaseException) -> "Failure":
        message = str(error).strip().splitlines()[0] if str(error).strip() else "(no message)"
        return cls(stage, type(error).__name__, message)


@dataclass
class Run:
    """What one forward and one backward of a Function did."""

    output: torch.Tensor | tuple | None = None  # forward's result, detached
    grads: tuple | None = None  # exactly what backward returned, as a tuple
    failure: Failure | None = None
    mutated_inputs: list[int] = field(default_factory=list)  # changed in place, not marked dirty
    ctx_tensors: list[str] = field(default_factory=list)  # tensors stored as ctx attributes


def is_function(fn: object) -> bool:
    """True for a subclass of torch.autograd.Function (the class, not an instance)."""
    return (
        isinstance(fn, type)
        and issubclass(fn, torch.autograd.Function)
        and fn is not torch.autograd.Function
    )


def describe_non_function(fn: object, usage: str) -> str:
    """One sentence on what was passed instead of a Function subclass, and what to pass.

    `usage` shows the helper's right call with `{}` for the class, e.g. "explore({})".
    """
    owner = getattr(fn, "__self__", None)
    if is_function(owner):  # Cube.apply
        name = owner.__name__
        return f"You passed {name}.apply; pass the class {name} itself: {usage.format(name)}, not .apply."
    if isinstance(fn, torch.autograd.Function):  # Cube()
        name = type(fn).__name__
        return (
            f"You passed an instance, {name}(); pass the class {name} itself: "
            f"{usage.format(name)}, not an instance {name}()."
        )
    if fn is torch.autograd.Function:
        return "You passed torch.autograd.Function itself; pass your subclass of it."
    if isinstance(fn, torch.nn.Module) or (
        isinstance(fn, type) and issubclass(fn, torch.nn.Module)
    ):
        return "You passed an nn.Module: it calls operations; a Function defines one."
    if callable(fn):
        return "You passed a plain Python function, not a torch.autograd.Function subclass."
    return f"You passed a {type(fn).__name__}, not a torch.autograd.Function subclass."


@contextmanager
def preserved_global_state() -> Iterator[None]:
    """Undo whatever learner code does to grad mode, default dtype, RNG or anomaly mode."""
    grad_enabled = torch.is_grad_enabled()
    default_dtype = torch.get_default_dtype()
    rng_state = torch.get_rng_state()
    anomaly = torch.is_anomaly_enabled()
    try:
        yield
    finally:
        torch.set_grad_enabled(grad_enabled)
        torch.set_default_dtype(default_dtype)
        torch.set_rng_state(rng_state)
        torch.set_anomaly_enabled(anomaly)


def differentiable(value: object) -> bool:
    """Whether a forward input can carry a gradient: a floating-point tensor."""
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def fresh_inputs(inputs: Sequence) -> tuple:
    """Private copies: float tensors become non-leaf tensors that require grad.

    Non-leaf, so a Function that legitimately works in place (mark_dirty) still runs.
    """
    copies = []
    for value in inputs:
        if differentiable(value):
            value = value.detach().clone().requires_grad_(True).clone()
        elif isinstance(value, torch.Tensor):
            value = value.detach().clone()
        copies.append(value)
    return tuple(copies)


def ctx_tensor_attributes(ctx: object) -> list[str]:
    """Names of ctx attributes holding tensors, directly or inside a list/tuple/dict."""
    return [name for name, value in vars(ctx).items() if _holds_tensor(value)]


def _holds_tensor(value: object) -> bool:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return any(isinstance(item, torch.Tensor) for item in value)
    return isinstance(value, torch.Tensor)


def as_tuple(value: object) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def detached(value: object) -> object:
    if isinstance(value, torch.Tensor):
        return value.detach()
    if isinstance(value, tuple):
        return tuple(detached(v) for v in value)
    return value


def run_function(fn: type, inputs: Sequence, upstream: Upstream = torch.ones_like) -> Run:
    """Forward fn.apply(*inputs) on fresh copies, then call its backward once, raw.

    `upstream(output)` gives grad_out. Backward is called directly on the graph node,
    as autograd would (grad mode off), so what it returns is seen before autograd's
    own checks: a wrong count, a None, a wrong shape are all visible in `grads`.
    """
    run = Run()
    with preserved_global_state():
        args = fresh_inputs(inputs)
        versions = [a._version if isinstance(a, torch.Tensor) else None for a in args]
        try:
            output = fn.apply(*args)
        except Exception as error:
            run.failure = Failure.of("forward", error)
            return run
        run.output = detached(output)
        outputs = as_tuple(output)
        run.mutated_inputs = [
            i
            for i, (a, v) in enumerate(zip(args, versions, strict=True))
            if v is not None and a._version != v and not any(o is a for o in outputs)
        ]
        node = next((o.grad_fn for o in outputs if isinstance(o, torch.Tensor)), None)
        if node is None:
            run.failure = Failure(
                "forward", "NoGraph", "forward's result is not connected to the inputs' graph"
            )
            return run
        run.ctx_tensors = ctx_tensor_attributes(node)
        try:
            grad_outs = [upstream(o.detach()) for o in outputs if isinstance(o, torch.Tensor)]
            with torch.no_grad():
                run.grads = as_tuple(node.apply(*grad_outs))
        except Exception as error:
            run.failure = Failure.of("backward", error)
    return run


def vjp(reference: Callable, inputs: Sequence, upstream: Upstream = torch.ones_like) -> Run:
    """The reference's forward and, through autograd, its true gradient for `upstream`.

    `grads` has one entry per input: a tensor for float tensors, None otherwise.
    """
    run = Run()
    with preserved_global_state():
        args = fresh_inputs(inputs)
        wanted = [a for a in args if differentiable(a)]
        try:
            with torch.enable_grad():
                output = reference(*args)
                if output.requires_grad:
                    found = torch.autograd.grad(
                        output, wanted, upstream(output.detach()), allow_unused=True
                    )
                else:  # a reference that is constant in its inputs: gradient zero
                    found = [None] * len(wanted)
        except Exception as error:
            run.failure = Failure.of("reference", error)
            return run
        run.output = output.detach()
        grads = iter(found)
        run.grads = tuple(
            _zero_if_unused(next(grads), a) if differentiable(a) else None for a in args
        )
    return run


def _zero_if_unused(grad: torch.Tensor | None, arg: torch.Tensor) -> torch.Tensor:
    # autograd says None when the output does not depend on an input; mathematically 0.
    return torch.zeros_like(arg) if grad is None else grad
