"""Run any Function safely: its forward, its raw backward, and a reference's true gradient.

The gradient doctor and the explorer both ask these questions of learner code, which
may be arbitrarily broken. Everything here captures errors instead of raising them,
works on private copies of the inputs, and restores torch's global state afterwards.
"""

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from lessons_lib.running.errors import first_line

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


@dataclass(frozen=True)
class SavedChange:
    """A tensor saved for backward that backward changed in place."""

    position: int  # its place in save_for_backward's arguments
    role: tuple[str, int] | None  # ("input", i) or ("output", k); None for one made in forward
    before: torch.Tensor
    after: torch.Tensor
    counted: bool  # the version counter saw it (False: changed through .data or NumPy)


@dataclass
class EngineRun:
    """What training would see: forward, then the engine's gradients via torch.autograd.grad."""

    outputs: tuple = ()  # forward's outputs, detached
    tracked: list[int] = field(default_factory=list)  # outputs a gradient flows back from
    grads: tuple | None = None  # per input, after the engine reduced and cast them; None: none
    raw: tuple | None = None  # what backward itself returned, for the same grad_out
    scaled: tuple | None = None  # what backward returned for grad_out times SCALE, if it ran
    scaled_failure: Failure | None = None  # backward raised for grad_out times SCALE
    failure: Failure | None = None  # forward or backward raised
    refused: str | None = None  # the engine rejected what backward returned (its message)
    mutated_inputs: list[int] = field(default_factory=list)
    ctx_tensors: list[str] = field(default_factory=list)
    mutated_grad_outs: dict[int, torch.Tensor] = field(default_factory=dict)  # position: after
    mutated_saved: list[SavedChange] = field(default_factory=list)  # changed by the backward
    rearranged: tuple | None = None  # what backward returned for the same grad_out, relaid out
    rearranged_failure: Failure | None = None  # backward raised for the relaid grad_out
    undefined: list["UndefinedRun"] = field(default_factory=list)  # undefined grad_outs, if asked


@dataclass(frozen=True)
class UndefinedRun:
    """Backward through the engine with undefined grad_outs, as gradcheck's check_undefined_grad."""

    output: int | None  # the one output whose grad_out was undefined; None: every one
    failure: Failure | None  # what backward raised
    nonzero: list[int]  # inputs that got a finite non-zero gradient (it must be None or zeros)


SCALE = -2.0  # a backward obeying the chain rule returns SCALE times its gradient for this


def engine_run(
    fn: type,
    inputs: Sequence,
    upstream: Upstream = ones_upstream,
    relayout: Callable[[torch.Tensor], torch.Tensor | None] | None = None,
    undefined: bool = False,
) -> EngineRun:
    """Run fn as training does, and also call its backward raw (for evidence).

    The engine's gradients come from torch.autograd.grad against fresh leaves, so every
    rule applies: broadcast gradients summed to the input's shape, extra trailing Nones
    accepted, dtypes cast. `relayout(grad_out)`, if given, returns the same values in
    another memory layout (or None to keep it): backward is called raw with those too.
    `undefined` also runs backward with undefined grad_outs (undefined_runs). Nothing
    raises: failures and refusals are recorded.
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
        run.outputs = tuple(_copied(o) for o in outputs)  # as forward left them
        run.mutated_inputs = _changed_inputs(args, before, versions, outputs)
        run.tracked = tracked_outputs(outputs)
        if not run.tracked:
            run.failure = Failure(
                "forward", "NoGraph", "forward's result is not connected to the inputs' graph"
            )
            return run
        node = outputs[run.tracked[0]].grad_fn
        run.ctx_tensors = ctx_tensor_attributes(node)
        saved = _saved_snapshot(node)
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
            run.mutated_saved = _saved_changes(saved, args, outputs)
        except Exception:  # an exotic saved tensor (sparse, nested): not judged
            run.mutated_saved = []

        def backward(grads: list) -> tuple:
            """backward called raw; on a fresh forward once backward has changed its saved tensors."""
            target = node
            if run.mutated_saved:
                fresh = as_tuple(fn.apply(*leaves_and_args(inputs)[1]))
                target = fresh[run.tracked[0]].grad_fn
            with torch.no_grad():
                return as_tuple(target.apply(*_grads_for_every_output(outputs, run.tracked, grads)))

        try:
            run.raw = backward([g.clone() for g in kept])
        except Exception as error:
            run.failure = Failure.of("backward", error)
            return run
        try:
            run.scaled = backward([SCALE * g for g in kept])
        except Exception as error:
            run.scaled_failure = Failure.of("backward", error)
        try:  # a layout the relayout cannot build (a sparse grad_out, say) is left unchecked
            relaid = [relayout(g) for g in kept] if relayout is not None else []
        except Exception:
            relaid = []
        if any(r is not None for r in relaid):
            try:
                run.rearranged = backward(
                    [g.clone() if r is None else r for g, r in zip(kept, relaid, strict=True)]
                )
            except Exception as error:
                run.rearranged_failure = Failure.of("backward", error)
        if undefined:
            run.undefined = undefined_runs(fn, inputs, run.tracked)
        if refusal is not None:
            run.refused = Failure.of("backward", refusal).message
            return run
        found = iter(found)
        run.grads = tuple(None if leaf is None else next(found) for leaf in leaves)
    return run


def undefined_runs(fn: type, inputs: Sequence, tracked: list[int]) -> list[UndefinedRun]:
    """Backward with every grad_out undefined, then (several outputs) each one in turn.

    As gradcheck's check_undefined_grad does it: the engine gets zeros, routed through a
    node that makes them undefined, so backward receives zeros, or None once forward has
    called ctx.set_materialize_grads(False); every input's gradient must be None or zero.
    """
    make_undefined = getattr(torch._C._functions, "UndefinedGrad", None)  # gradcheck's own tool
    if make_undefined is None:
        return []
    runs = []
    for which in [None, *(tracked if len(tracked) > 1 else ())]:
        leaves, args = leaves_and_args(inputs)
        try:
            outputs = as_tuple(fn.apply(*args))
        except Exception:  # forward's own failure is reported elsewhere
            return runs
        sent = [
            make_undefined()(outputs[k]) if which in (None, k) else outputs[k]
            for k in tracked_outputs(outputs)
        ]
        failure, nonzero = None, []
        try:
            found = torch.autograd.grad(
                sent,
                [leaf for leaf in leaves if leaf is not None],
                [torch.zeros_like(o) for o in sent],
                allow_unused=True,
            )
            nonzero = [
                i
                for i, g in zip(
                    [i for i, leaf in enumerate(leaves) if leaf is not None], found, strict=True
                )
                if g is not None and bool((g.isfinite() & (g != 0)).any())  # NaN: non-finite
            ]
        except Exception as error:
            failure = Failure.of("backward", error)
        runs.append(UndefinedRun(which, failure, nonzero))
    return runs


def _copied(value: object) -> object:
    """A detached copy of a tensor, which a backward writing into it cannot change."""
    return value.detach().clone() if isinstance(value, torch.Tensor) else value


def _saved_snapshot(node: object) -> list[tuple[torch.Tensor, int, torch.Tensor]]:
    """Each tensor the Function saved for backward, with its version and a copy of its values."""
    try:
        saved = node.saved_tensors
    except Exception:  # nothing saved the official way, or not a Function's node
        return []
    return [(t, t._version, t.detach().clone()) for t in saved if isinstance(t, torch.Tensor)]


def _saved_changes(saved: list, args: tuple, outputs: tuple) -> list[SavedChange]:
    """The saved tensors backward changed in place, each placed as forward's input or output."""
    changes = []
    for position, (tensor, version, old) in enumerate(saved):
        counted = tensor._version != version
        if not counted and same_values(tensor.detach(), old):
            continue
        role = next(
            (("input", i) for i, a in enumerate(args) if _same_memory(a, tensor)),
            next((("output", k) for k, o in enumerate(outputs) if _same_memory(o, tensor)), None),
        )
        changes.append(SavedChange(position, role, old, tensor.detach().clone(), counted))
    return changes


def _same_memory(a: object, b: torch.Tensor) -> bool:
    """Whether a is a tensor over exactly b's elements (the same tensor, or a saved copy of it)."""
    if not (isinstance(a, torch.Tensor) and a.layout == b.layout == torch.strided):
        return False
    return (
        a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        and a.storage_offset() == b.storage_offset()
        and a.shape == b.shape
        and a.stride() == b.stride()
    )


@dataclass(frozen=True)
class Step:
    """One operation backward ran, read at one element: its name, arguments and result."""

    op: str  # the ATen operation's name: "pow", "exp", "div", ...
    args: tuple  # each argument at that element (a number), or as given (an exponent, a dtype)
    result: float


_UNPLACED = object()  # an argument with no single value at the element watched


class _NonFiniteWatch(TorchDispatchMode):
    """Notes, at one element, the first operation that made NaN or inf from finite numbers,
    and (if that was inf) the first that then turned inf into NaN."""

    def __init__(self, shape: torch.Size, spot: tuple) -> None:
        super().__init__()
        self.shape, self.spot = shape, spot
        self.steps: list[Step] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if len(self.steps) < 2 and isinstance(out, torch.Tensor) and out.is_floating_point():
            with suppress(Exception):  # watching must never break the learner's backward
                self._look(func.overloadpacket.__name__, args, out)
        return out

    def _at(self, value: object) -> object:
        if isinstance(value, torch.Tensor):
            if value.shape == self.shape:
                return value[self.spot].item()
            return value.item() if value.numel() == 1 else _UNPLACED
        return value

    def _look(self, op: str, args: tuple, out: torch.Tensor) -> None:
        result = self._at(out)
        if not isinstance(result, float) or math.isfinite(result):
            return
        values = tuple(self._at(a) for a in args)
        if any(v is _UNPLACED for v in values):
            return
        numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        if not self.steps:
            made_here = all(math.isfinite(v) for v in numbers)  # not passed on from before
        else:  # after an inf: the first operation that turns it into NaN
            made_here = math.isinf(self.steps[0].result) and math.isnan(result)
            made_here &= not any(math.isnan(v) for v in numbers)
        if made_here:
            self.steps.append(Step(op, values, result))


def trace_non_finite(
    fn: type, inputs: Sequence, upstream: Upstream, at: int, spot: tuple
) -> list[Step]:
    """Where backward's NaN or inf at element `spot` of input `at`'s gradient came from.

    Runs forward and backward again, watching every torch operation backward calls at
    that element: the first that made NaN or inf from finite numbers, then (after an
    inf) the first that made NaN. Empty when no torch operation did (NumPy, say).
    """
    watch = _NonFiniteWatch(torch.Size(inputs[at].shape), spot)
    with preserved_global_state(), torch.enable_grad():
        _, args = leaves_and_args(inputs)
        try:
            outputs = as_tuple(fn.apply(*args))
            tracked = tracked_outputs(outputs)
            grad_outs = [upstream(outputs[k].detach(), k) for k in tracked]
            node = outputs[tracked[0]].grad_fn
            with torch.no_grad(), watch:
                node.apply(*_grads_for_every_output(outputs, tracked, grad_outs))
        except Exception:
            pass  # what was seen before the failure still counts
    return watch.steps


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
