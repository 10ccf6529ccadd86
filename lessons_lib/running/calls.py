"""Run any Function safely: its forward, its raw backward, and a reference's true gradient.

The gradient doctor, the explorers and the exercises ask these questions of learner code,
which may be arbitrarily broken. Everything here captures errors instead of raising them,
works on private copies of the inputs, and restores torch's global state afterwards.
"""

import io
import os
import tokenize
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from lessons_lib.running.errors import first_line
from lessons_lib.running.state import preserved_global_state

# grad_out for forward's output number `index`, shaped like that output.
Upstream = Callable[[torch.Tensor, int], torch.Tensor]


def ones_upstream(output: torch.Tensor, index: int) -> torch.Tensor:
    """grad_out of ones: what .sum().backward() sends."""
    return torch.ones_like(output)


@dataclass(frozen=True)
class Failure:
    """An exception raised by learner code, kept as plain words and facts: no traceback."""

    stage: str  # "forward", "backward", "jvp", "double backward" or "reference"
    kind: str  # the exception's type name
    message: str
    line: str = ""  # the learner's own source line the error came through; "" if unknown
    own: bool = False  # raised by the learner's own raise or assert statement, on `line`

    def __str__(self) -> str:
        return f"{self.stage} raised {self.kind}: {self.message}"

    @classmethod
    def of(cls, stage: str, error: BaseException) -> "Failure":
        line, own = learners_line(error)
        return cls(stage, type(error).__name__, first_line(error) or "(no message)", line, own)


# Frames in these folders are machinery (torch's, Python's and the course's own: its checkers,
# its wrappers such as watch.py's counting apply), not the learner's code; only the course's
# Functions and examples (_EXAMINED) count as code under examination.
_COURSE = Path(__file__).resolve().parent.parent
_MACHINERY = tuple(
    str(Path(p).resolve()) + os.sep
    for p in (Path(torch.__file__).parent, Path(os.__file__).parent, _COURSE)
)
_EXAMINED = tuple(
    str(_COURSE / name) for name in ("functions.py", "broken_clamps.py", "checking_research.py")
) + tuple(str(_COURSE / folder) + os.sep for folder in ("research", "examples"))


def _machinery(filename: str) -> bool:
    """Whether a frame's file is torch's, Python's or the course's machinery."""
    path = str(Path(filename).resolve())
    return path.startswith(_MACHINERY) and not path.startswith(_EXAMINED)


def learners_line(error: BaseException) -> tuple[str, bool]:
    """The last source line of the learner's code the error passed through, and whether the
    error was raised right there by their own `raise` or `assert` (a fact, from the
    traceback and that line's source); ("", False) when no such line is known."""
    frames = traceback.extract_tb(error.__traceback__)
    theirs = [f for f in frames if not _machinery(f.filename)]
    if not theirs:
        return "", False
    line = (theirs[-1].line or "").strip()
    return line, frames[-1] is theirs[-1] and raises(line, error)


def raises(line: str, error: BaseException) -> bool:
    """Whether the source line's own raise or assert statement raised `error` (`if bad: raise
    ...` too); not an error raised while working out the raise's message."""
    try:
        words = [t.string for t in tokenize.generate_tokens(io.StringIO(line).readline)]
    except (tokenize.TokenError, SyntaxError):  # a statement cut at the line's end
        words = line.split()
    if "assert" in words and isinstance(error, AssertionError):
        return True
    return "raise" in words and any(k.__name__ in words for k in type(error).__mro__)


@dataclass
class Run:
    """What one forward and one backward of a Function did."""

    output: torch.Tensor | tuple | None = None  # forward's result, detached
    grads: tuple | None = None  # exactly what backward returned, as a tuple
    failure: Failure | None = None
    mutated_inputs: list[int] = field(default_factory=list)  # changed in place, not marked dirty
    ctx_tensors: list[str] = field(default_factory=list)  # tensors stored as ctx attributes
    saved: int | None = None  # tensors forward saved with ctx.save_for_backward; None: unknown
    saved_inputs: list[int] = field(default_factory=list)  # forward's inputs among those saved


@dataclass
class Forward:
    """One forward on fresh copies of the inputs, as both kinds of run begin."""

    leaves: tuple  # fresh leaves for the float inputs (None elsewhere)
    args: tuple  # what forward received
    result: object = None  # what forward returned, untouched
    outputs: tuple = ()
    tracked: list[int] = field(default_factory=list)
    mutated_inputs: list[int] = field(default_factory=list)
    node: object = None  # the graph node whose backward is the Function's
    ctx_tensors: list[str] = field(default_factory=list)
    saved: int | None = None  # tensors forward saved with ctx.save_for_backward; None: unknown
    saved_intermediates: int = 0  # of those, neither an input nor an output (no graph to x)
    saved_inputs: list[int] = field(default_factory=list)  # forward's inputs among those saved
    failure: Failure | None = None


def forward_once(fn: type, inputs: Sequence) -> Forward:
    """Call fn.apply on fresh copies and note what it did; call under enable_grad."""
    leaves, args = leaves_and_args(inputs)
    run = Forward(leaves, args)
    before = [a.detach().clone() if isinstance(a, torch.Tensor) else None for a in args]
    versions = [a._version if isinstance(a, torch.Tensor) else None for a in args]
    try:
        run.result = fn.apply(*args)
    except Exception as error:
        run.failure = Failure.of("forward", error)
        return run
    run.outputs = as_tuple(run.result)
    run.mutated_inputs = _changed_inputs(args, before, versions, run.outputs)
    run.tracked = tracked_outputs(run.outputs)
    if not run.tracked:
        run.failure = Failure(
            "forward", "NoGraph", "forward's result is not connected to the inputs' graph"
        )
        return run
    run.node = run.outputs[run.tracked[0]].grad_fn
    run.ctx_tensors = ctx_tensor_attributes(run.node)
    run.saved = saved_count(run.node)
    run.saved_intermediates = saved_intermediates(run.node, (*args, *leaves, *run.outputs))
    run.saved_inputs = saved_inputs(run.node, args)
    return run


def saved_intermediates(node: object, ends: tuple) -> int:
    """How many saved tensors are neither forward's inputs nor its outputs, by memory: values
    forward computed on the way, where autograd records no graph back to the inputs."""
    try:
        saved = node.saved_tensors
    except Exception:
        return 0
    known = {t.data_ptr() for t in ends if isinstance(t, torch.Tensor)}
    return sum(isinstance(t, torch.Tensor) and t.data_ptr() not in known for t in saved)


def saved_count(node: object) -> int | None:
    """How many tensors forward saved the official way (ctx.save_for_backward), read before
    backward runs; None when it cannot be read (not a Function's node, a tensor changed)."""
    try:
        return len(node.saved_tensors)
    except Exception:
        return None


def saved_inputs(node: object, args: tuple) -> list[int]:
    """The positions of forward's inputs that forward saved itself (the same tensor, not a
    copy), read before backward runs; [] when nothing can be read."""
    try:
        saved = node.saved_tensors
    except Exception:
        return []
    return [i for i, a in enumerate(args) if any(s is a for s in saved)]


def run_function(fn: type, inputs: Sequence, upstream: Upstream = ones_upstream) -> Run:
    """Forward fn.apply(*inputs) on fresh copies, then call its backward once, raw.

    `upstream(output, index)` gives grad_out. Backward is called directly on the graph
    node, as autograd would (grad mode off), so what it returns is seen before autograd's
    own checks: a wrong count, a None, a wrong shape are all visible in `grads`.
    """
    run = Run()
    with preserved_global_state(), torch.enable_grad():  # a caller under no_grad too
        forward = forward_once(fn, inputs)
        if forward.outputs:
            run.output = detached(forward.result)
        run.mutated_inputs = forward.mutated_inputs
        run.ctx_tensors, run.saved = forward.ctx_tensors, forward.saved
        run.saved_inputs = forward.saved_inputs
        if forward.failure is not None:
            run.failure = forward.failure
            return run
        outputs, tracked = forward.outputs, forward.tracked
        try:
            grad_outs = [upstream(outputs[k].detach(), k) for k in tracked]
            with torch.no_grad():
                run.grads = as_tuple(
                    forward.node.apply(*grads_for_every_output(outputs, tracked, grad_outs))
                )
        except Exception as error:
            run.failure = Failure.of("backward", error)
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


def grads_for_every_output(outputs: tuple, tracked: list[int], grad_outs: list) -> list:
    """One grad_out per output, as the engine passes them: zeros where nothing flows back."""
    given = dict(zip(tracked, grad_outs, strict=True))
    return [
        given.get(k, torch.zeros_like(o) if isinstance(o, torch.Tensor) else None)
        for k, o in enumerate(outputs)
    ]
