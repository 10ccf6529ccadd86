"""Run a Function as training does, through autograd's engine, with the evidence the
doctor needs: backward called raw too, with grad_out scaled, relaid out or undefined."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch

from lessons_lib.running.calls import (
    Failure,
    Upstream,
    as_tuple,
    forward_once,
    grads_for_every_output,
    leaves_and_args,
    ones_upstream,
    same_values,
    tracked_outputs,
)
from lessons_lib.running.state import preserved_global_state


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
    saved: int | None = None  # tensors forward saved with ctx.save_for_backward; None: unknown
    saved_intermediates: int = 0  # of those, neither an input nor an output (no graph to x)
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
        forward = forward_once(fn, inputs)
        leaves, args, outputs, node = forward.leaves, forward.args, forward.outputs, forward.node
        run.outputs = tuple(_copied(o) for o in outputs)  # as forward left them
        run.mutated_inputs, run.tracked = forward.mutated_inputs, forward.tracked
        run.ctx_tensors, run.saved = forward.ctx_tensors, forward.saved
        run.saved_intermediates = forward.saved_intermediates
        if forward.failure is not None:
            run.failure = forward.failure
            return run
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
                return as_tuple(target.apply(*grads_for_every_output(outputs, run.tracked, grads)))

        if not _evidence_from_raw_backward(run, backward, kept, relayout):
            return run
        if undefined:
            run.undefined = undefined_runs(fn, inputs, run.tracked)
        if refusal is not None:
            run.refused = Failure.of("backward", refusal).message
            return run
        found = iter(found)
        run.grads = tuple(None if leaf is None else next(found) for leaf in leaves)
    return run


def _evidence_from_raw_backward(
    run: EngineRun,
    backward: Callable[[list], tuple],
    grad_outs: list,
    relayout: Callable[[torch.Tensor], torch.Tensor | None] | None,
) -> bool:
    """Call backward raw with grad_out as sent, times SCALE, and relaid out; False if it raised."""
    try:
        run.raw = backward([g.clone() for g in grad_outs])
    except Exception as error:
        run.failure = Failure.of("backward", error)
        return False
    try:
        run.scaled = backward([SCALE * g for g in grad_outs])
    except Exception as error:
        run.scaled_failure = Failure.of("backward", error)
    try:  # a layout the relayout cannot build (a sparse grad_out, say) is left unchecked
        relaid = [relayout(g) for g in grad_outs] if relayout is not None else []
    except Exception:
        relaid = []
    if any(r is not None for r in relaid):
        try:
            run.rearranged = backward(
                [g.clone() if r is None else r for g, r in zip(grad_outs, relaid, strict=True)]
            )
        except Exception as error:
            run.rearranged_failure = Failure.of("backward", error)
    return True


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
