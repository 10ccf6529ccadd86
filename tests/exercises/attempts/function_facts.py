"""What a learner's torch.autograd.Function does, recorded by running it: for the Function
exercises' signatures, case oracles and claim-checkers.

Recorded without lessons_lib.running: forward through Cls.apply on a fresh leaf, backward by
calling Cls.backward(ctx, grad_out) directly on the graph node (what the learner's own line
gave back, before autograd's checks).
"""

import traceback
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import torch


@dataclass
class Raised:
    """An exception an attempt raised, as facts: its type's name, its first line, and the
    source lines its traceback passed through."""

    kind: str
    message: str
    through: tuple[str, ...] = ()  # each frame's source line, stripped, innermost last

    @classmethod
    def of(cls, error: BaseException) -> "Raised":
        lines = str(error).strip().splitlines()
        frames = traceback.extract_tb(error.__traceback__)
        through = tuple((f.line or "").strip() for f in frames)
        return cls(type(error).__name__, lines[0] if lines else "", through)


@dataclass
class FunctionFacts:
    """One forward and one raw backward of a Function on one probe."""

    x: torch.Tensor
    grad_out: torch.Tensor
    forward_raised: Raised | None = None
    output: object = None  # forward's result through apply, detached
    saved: tuple | None = None  # ctx.saved_tensors after forward (None: could not read)
    saved_count: int = 0
    saved_x: bool = False  # x itself (the tensor forward received) is among the saved
    ctx_tensors: list[str] = field(default_factory=list)  # tensors kept as ctx attributes
    x_changed_by_forward: bool = False
    backward_raised: Raised | None = None
    returned: object = "not run"  # exactly what backward returned, tensors detached
    grad_out_changed: bool = False
    saved_changed_by_backward: bool = False
    x_changed_by_backward: bool = False

    @property
    def forward_ok(self) -> bool:
        return self.forward_raised is None


def _detach(value: object) -> object:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple | list):
        return type(value)(_detach(v) for v in value)
    return value


def _holds_tensor(value: object) -> bool:
    items = list(value.values()) if isinstance(value, dict) else value
    if isinstance(items, list | tuple):
        return any(isinstance(v, torch.Tensor) for v in items)
    return isinstance(items, torch.Tensor)


def record(cls: type, x_values, grad_out_values, dtype=torch.float32) -> FunctionFacts:
    """Run `cls` once on x (a leaf that requires grad) and backward once with grad_out."""
    with warnings.catch_warnings(), torch.enable_grad():
        warnings.simplefilter("ignore")
        state = torch.get_default_dtype(), torch.is_grad_enabled()
        try:
            return _record(cls, x_values, grad_out_values, dtype)
        finally:
            torch.set_default_dtype(state[0])
            torch.set_grad_enabled(state[1])


def _record(cls: type, x_values, grad_out_values, dtype) -> FunctionFacts:
    leaf = torch.tensor(x_values, dtype=dtype, requires_grad=True)
    x = leaf * 1  # a non-leaf copy, so in-place changes run and can be seen
    facts = FunctionFacts(leaf.detach().clone(), torch.tensor(grad_out_values, dtype=dtype))
    try:
        output = cls.apply(x)
    except Exception as error:
        facts.forward_raised = Raised.of(error)
        return facts
    facts.output = _detach(output)
    facts.x_changed_by_forward = not torch.equal(x.detach(), facts.x)
    node = getattr(output, "grad_fn", None)
    if node is None or not hasattr(node, "saved_tensors"):
        facts.backward_raised = Raised("NoGraph", "forward's result has no backward node")
        return facts
    facts.ctx_tensors = sorted(k for k, v in vars(node).items() if _holds_tensor(v))
    try:
        saved = node.saved_tensors
        facts.saved, facts.saved_count = tuple(s.detach().clone() for s in saved), len(saved)
        facts.saved_x = any(s is x for s in saved)
    except Exception:
        facts.saved = None
    grad_out = facts.grad_out.clone()
    x_before = x.detach().clone()
    try:
        with torch.no_grad():
            facts.returned = _detach(cls.backward(node, grad_out))
    except Exception as error:
        facts.backward_raised = Raised.of(error)
    facts.grad_out_changed = not torch.equal(grad_out, facts.grad_out)
    facts.x_changed_by_backward = not torch.equal(x.detach(), x_before)
    if facts.saved:
        try:
            now = node.saved_tensors
            facts.saved_changed_by_backward = any(
                not torch.equal(a, b) for a, b in zip(now, facts.saved, strict=False)
            )
        except Exception:
            facts.saved_changed_by_backward = True  # the version check refuses to unpack them
    return facts


def describe(value: object, digits: int = 4) -> object:
    """A hashable summary of a value, for signatures: kind, dtype, shape, rounded numbers."""
    if isinstance(value, torch.Tensor):
        numbers = tuple(round(v, digits) for v in value.detach().double().flatten().tolist())
        return ("tensor", str(value.dtype), tuple(value.shape), numbers)
    if isinstance(value, tuple | list):
        return (type(value).__name__, tuple(describe(v, digits) for v in value))
    if isinstance(value, bool | int | float):
        return (type(value).__name__, round(float(value), digits))
    if value is None or value is Ellipsis:
        return repr(value)
    return type(value).__name__


def signature(facts: FunctionFacts) -> tuple:
    """The behaviour on one probe, as a hashable tuple (no check's words in it)."""
    return (
        facts.forward_raised.kind if facts.forward_raised else None,
        describe(facts.output),
        facts.saved_count,
        tuple(facts.ctx_tensors),
        facts.x_changed_by_forward,
        facts.backward_raised.kind if facts.backward_raised else None,
        describe(facts.returned),
        facts.grad_out_changed,
        facts.saved_changed_by_backward,
        facts.x_changed_by_backward,
    )


def on_every_probe(
    test: Callable[[FunctionFacts], bool | None], probes: Iterable[FunctionFacts]
) -> bool | None:
    """A case's property over the probes: False when `test` fails on one, else None when it
    cannot tell on one, else True."""
    results = [test(p) for p in probes]
    if any(r is False for r in results):
        return False
    return None if any(r is None for r in results) else True
