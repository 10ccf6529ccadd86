"""Run any Function safely: its forward, its raw backward, and a reference's true gradient.

The gradient doctor and the explorer both ask these questions of learner code, which
may be arbitrarily broken. Everything here captures errors instead of raising them,
works on private copies of the inputs, and restores torch's global state afterwards.
"""

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from lessons_lib.errors import first_line

# grad_out for forward's output number `index`, shaped like that output.
Upstream = Callable[[torch.Tensor, int], torch.Tensor]


def ones_upstream(output: torch.Tensor, index: int) -> torch.Tensor:
    """grad_out of ones: what .sum().backward() sends."""
    return torch.ones_like(output)


@dataclass(frozen=True)
class Failure:
    """An exception raised by learner code, kept as plain words: no traceback."""

    stage: str  # "forward", "backward", "jvp", "double backward" or "reference"
    kind: str  # the exception's type name
    message: str

    def __str__(self) -> str:
        return f"{self.stage} raised {self.kind}: {self.message}"

    @classmethod
    def of(cls, stage: str, error: BaseException) -> "Failure":
        return cls(stage, type(error).__name__, first_line(error) or "(no message)")


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
    return f"You passed {a_or_an(type(fn).__name__)}, not a torch.autograd.Function subclass."


def a_or_an(noun: str) -> str:
    """The noun with its indefinite article: "an int", "a float"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


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
    """Private copies: float tensors become non-leaf tensors that require grad."""
    return leaves_and_args(inputs)[1]


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
    """The value without its graph; a tuple (named or not) becomes a plain tuple."""
    if isinstance(value, torch.Tensor):
        return value.detach()
    if isinstance(value, tuple):
        return tuple(detached(v) for v in value)
    return value


def leaves_and_args(inputs: Sequence) -> tuple[tuple, tuple]:
    """Fresh leaves for the float tensors (None elsewhere) and forward's arguments.

    The arguments are non-leaf clones of the leaves, so a Function that legitimately
    works in place (mark_dirty) still runs; gradients are taken against the leaves.
    """
    leaves, args = [], []
    for value in inputs:
        leaf = None
        if differentiable(value):
            leaf = value.detach().clone().requires_grad_(True)
            value = leaf.clone()
        elif isinstance(value, torch.Tensor):
            value = value.detach().clone()
        leaves.append(leaf)
        args.append(value)
    return tuple(leaves), tuple(args)


def tracked_outputs(outputs: tuple) -> list[int]:
    """Positions of the outputs autograd tracks: the ones a gradient can flow back from."""
    return [k for k, o in enumerate(outputs) if isinstance(o, torch.Tensor) and o.requires_grad]


def _changed_inputs(args: tuple, before: list, versions: list, outputs: tuple) -> list[int]:
    """Inputs forward changed in place (version bumped, or values changed behind autograd's
    back through .data or NumPy), except those it returned, as mark_dirty requires."""
    changed = []
    for i, (arg, old, version) in enumerate(zip(args, before, versions, strict=True)):
        if old is None or any(o is arg for o in outputs):
            continue
        if arg._version != version or not same_values(arg.detach(), old):
            changed.append(i)
    return changed


def same_values(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Exactly equal, NaN matching NaN."""
    return a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all())


def _grads_for_every_output(outputs: tuple, tracked: list[int], grad_outs: list) -> list:
    """One grad_out per output, as the engine passes them: zeros where nothing flows back."""
    given = dict(zip(tracked, grad_outs, strict=True))
    return [
        given.get(k, torch.zeros_like(o) if isinstance(o, torch.Tensor) else None)
        for k, o in enumerate(outputs)
    ]


def run_function(fn: type, inputs: Sequence, upstream: Upstream = ones_upstream) -> Run:
    """Forward fn.apply(*inputs) on fresh copies, then call its backward once, raw.

    `upstream(output, index)` gives grad_out. Backward is called directly on the graph
    node, as autograd would (grad mode off), so what it returns is seen before autograd's
    own checks: a wrong count, a None, a wrong shape are all visible in `grads`.
    """
    run = Run()
    with preserved_global_state(), torch.enable_grad():  # a caller under no_grad too
        _, args = leaves_and_args(inputs)
        before = [a.detach().clone() if isinstance(a, torch.Tensor) else None for a in args]
        versions = [a._version if isinstance(a, torch.Tensor) else None for a in args]
        try:
            output = fn.apply(*args)
        except Exception as error:
            run.failure = Failure.of("forward", error)
            return run
        run.output = detached(output)
        outputs = as_tuple(output)
        run.mutated_inputs = _changed_inputs(args, before, versions, outputs)
        tracked = tracked_outputs(outputs)
        if not tracked:
            run.failure = Failure(
                "forward", "NoGraph", "forward's result is not connected to the inputs' graph"
            )
            return run
        node = outputs[tracked[0]].grad_fn
        run.ctx_tensors = ctx_tensor_attributes(node)
        try:
            grad_outs = [upstream(outputs[k].detach(), k) for k in tracked]
            with torch.no_grad():
                run.grads = as_tuple(
                    node.apply(*_grads_for_every_output(outputs, tracked, grad_outs))
                )
        except Exception as error:
            run.failure = Failure.of("backward", error)
    return run


@dataclass
class EngineRun:
    """What training would see: forward, then the engine's gradients via torch.autograd.grad."""

    outputs: tuple = ()  # forward's outputs, detached
    tracked: list[int] = field(default_factory=list)  # outputs a gradient flows back from
    grads: tuple | None = None  # per input, after the engine reduced and cast them; None: none
    raw: tuple | None = None  # what backward itself returned, for the same grad_out
    scaled: tuple | None = None  # what backward returned for grad_out times SCALE, if it ran
    failure: Failure | None = None  # forward or backward raised
    refused: str | None = None  # the engine rejected what backward returned (its message)
    mutated_inputs: list[int] = field(default_factory=list)
    ctx_tensors: list[str] = field(default_factory=list)
    mutated_grad_outs: dict[int, torch.Tensor] = field(default_factory=dict)  # position: after


SCALE = -2.0  # a backward obeying the chain rule returns SCALE times its gradient for this


def engine_run(fn: type, inputs: Sequence, upstream: Upstream = ones_upstream) -> EngineRun:
    """Run fn as training does, and also call its backward raw (for evidence).

    The engine's gradients come from torch.autograd.grad against fresh leaves, so every
    rule applies: broadcast gradients summed to the input's shape, extra trailing Nones
    accepted, dtypes cast. Nothing raises: failures and refusals are recorded.
    """
    run = EngineRun()
    with preserved_global_state(), torch.enable_grad():  # a caller under no_grad too
        leaves, args = leaves_and_args(inputs)
        before = [a.detach().clone() if isinstance(a, torch.Tensor) else None for a in args]
        versions = [a._version if isinstance(a, torch.Tensor) else None for a in args]
        try:
            outputs = as_tuple(fn.apply(*args))
        except Exception as error:
            run.failure = Failure.of("forward", error)
            return run
        run.outputs = tuple(detached(o) for o in outputs)
        run.mutated_inputs = _changed_inputs(args, before, versions, outputs)
        run.tracked = tracked_outputs(outputs)
        if not run.tracked:
            run.failure = Failure(
                "forward", "NoGraph", "forward's result is not connected to the inputs' graph"
            )
            return run
        node = outputs[run.tracked[0]].grad_fn
        run.ctx_tensors = ctx_tensor_attributes(node)
        try:
            grad_outs = [upstream(outputs[k].detach(), k) for k in run.tracked]
        except Exception as error:  # upstream is ours, but a strange output can break it
            run.failure = Failure.of("forward", error)
            return run
        kept = [g.clone() for g in grad_outs]
        versions = [g._version for g in grad_outs]
        refusal = None
        try:
            found = torch.autograd.grad(
                [outputs[k] for k in run.tracked],
                [leaf for leaf in leaves if leaf is not None],
                grad_outs,
                allow_unused=True,
                retain_graph=True,
            )
        except Exception as error:
            refusal = error
        run.mutated_grad_outs = {
            k: g.detach().clone()
            for k, g, old, v in zip(run.tracked, grad_outs, kept, versions, strict=True)
            if g._version != v or not same_values(g, old)
        }
        try:
            with torch.no_grad():
                every = _grads_for_every_output(outputs, run.tracked, [g.clone() for g in kept])
                run.raw = as_tuple(node.apply(*every))
        except Exception as error:
            run.failure = Failure.of("backward", error)
            return run
        try:
            with torch.no_grad():
                every = _grads_for_every_output(outputs, run.tracked, [SCALE * g for g in kept])
                run.scaled = as_tuple(node.apply(*every))
        except Exception:
            run.scaled = None  # judged on the plain run alone
        if refusal is not None:
            run.refused = Failure.of("backward", refusal).message
            return run
        found = iter(found)
        run.grads = tuple(None if leaf is None else next(found) for leaf in leaves)
    return run


def vjp(reference: Callable, inputs: Sequence, upstream: Upstream = ones_upstream) -> Run:
    """The reference's forward and, through autograd, its true gradient for `upstream`.

    The reference may return one tensor or a tuple; `grads` has one entry per input:
    a tensor for float tensors, None otherwise.
    """
    run = Run()
    with preserved_global_state(), torch.enable_grad():  # a caller under no_grad too
        args = fresh_inputs(inputs)
        wanted = [a for a in args if differentiable(a)]
        try:
            with torch.enable_grad():
                output = reference(*args)
                outputs = as_tuple(output)
                tracked = tracked_outputs(outputs)
                found = [None] * len(wanted)  # constant in its inputs: gradient zero
                if tracked:
                    found = torch.autograd.grad(
                        [outputs[k] for k in tracked],
                        wanted,
                        [upstream(outputs[k].detach(), k) for k in tracked],
                        allow_unused=True,
                    )
        except Exception as error:
            run.failure = Failure.of("reference", error)
            return run
        run.output = detached(output)
        grads = iter(found)
        run.grads = tuple(
            _zero_if_unused(next(grads), a) if differentiable(a) else None for a in args
        )
    return run


def _zero_if_unused(grad: torch.Tensor | None, arg: torch.Tensor) -> torch.Tensor:
    # autograd says None when the output does not depend on an input; mathematically 0.
    return torch.zeros_like(arg) if grad is None else grad
