"""What a learner's MyRound does, and the oracles for check_straight_through's cases.

RIGHT, for MyRound: on the check's probe (float32) and a second probe (float64) forward
gives back a tensor of x's shape and dtype equal to torch.round(x); backward's own return is
one tensor (alone or in a 1-tuple) of x's shape and dtype equal to grad_out; nothing is
changed in place (x, grad_out) and ctx keeps no tensor, neither as an attribute nor saved
with ctx.save_for_backward (backward needs nothing from forward). The straight-through
estimator is a surrogate, so gradcheck does not apply.
"""

from dataclasses import dataclass

import torch

from tests.exercises.attempts.arguments import what_it_is
from tests.exercises.attempts.distinct import Attempt
from tests.exercises.attempts.function_facts import (
    FunctionFacts,
    on_every_probe,
    record,
    signature,
)

try:  # the inputs check_straight_through sends: read from the check
    from lessons_lib.exercises.straight_through import _ROUND_GRAD_OUT, _ROUND_X
except ImportError:
    _ROUND_X, _ROUND_GRAD_OUT = (0.4, 1.6, 2.5, -1.2), (0.5, 2.0, -1.0, 3.0)

SECOND_X, SECOND_GRAD_OUT = (0.3, -2.7, 1.5, 4.49), (2.0, -0.5, 1.5, 3.0)


@dataclass
class RoundFacts:
    check: FunctionFacts
    other: FunctionFacts
    module_tensors: dict  # the tensors in the learner's module (a notebook's globals)

    @property
    def probes(self) -> tuple[FunctionFacts, FunctionFacts]:
        return self.check, self.other


def round_facts(cls: type) -> RoundFacts:
    module = __import__(cls.__module__)
    tensors = {k: v for k, v in vars(module).items() if isinstance(v, torch.Tensor)}
    check = record(cls, _ROUND_X, _ROUND_GRAD_OUT)
    other = record(cls, SECOND_X, SECOND_GRAD_OUT, torch.float64)
    return RoundFacts(check, other, tensors)


def rounds(p: FunctionFacts) -> bool:
    out = p.output
    return (
        p.forward_ok
        and isinstance(out, torch.Tensor)
        and out.shape == p.x.shape
        and torch.equal(out.double(), torch.round(p.x).double())
    )


def one_gradient(p: FunctionFacts) -> torch.Tensor | None:
    got = p.returned
    if isinstance(got, tuple) and got and all(g is None for g in got[1:]):
        got = got[:1]  # extra trailing Nones: autograd, and the check, accept them
    if isinstance(got, tuple) and len(got) == 1:
        got = got[0]
    ok = isinstance(got, torch.Tensor) and got.shape == p.x.shape
    return got if ok and p.backward_raised is None else None


def passes_on(p: FunctionFacts) -> bool | None:
    got = p.returned
    if isinstance(got, tuple | list) and got:
        got = got[0]
    if p.backward_raised is not None or not isinstance(got, torch.Tensor):
        return None
    if got.shape != p.x.shape:
        return None
    return got.is_floating_point() and torch.allclose(got.double(), p.grad_out.double())


def leaves_alone(p: FunctionFacts) -> bool | None:
    """x and grad_out unchanged, no tensor on ctx (as an attribute or saved), x's dtype out of
    forward and backward."""
    if not isinstance(p.output, torch.Tensor):
        return None
    if p.x_changed_by_forward or p.ctx_tensors or p.saved_count or p.output.dtype != p.x.dtype:
        return False  # forward alone already breaks it
    grad = one_gradient(p)
    if grad is None:
        return None
    return not (p.grad_out_changed or p.x_changed_by_backward) and grad.dtype == p.x.dtype


def is_right(facts: RoundFacts) -> bool:
    for p in facts.probes:
        grad = one_gradient(p)
        changed = p.x_changed_by_forward or p.grad_out_changed or p.x_changed_by_backward
        kept = p.ctx_tensors or p.saved_count
        if not rounds(p) or grad is None or not passes_on(p) or changed or kept:
            return False
        if p.output.dtype != p.x.dtype or grad.dtype != p.x.dtype:
            return False
    return True


def round_case_oracles(facts: RoundFacts) -> dict[str, bool | None]:
    """Each case's property by the names check_straight_through prints ("one thing" as its
    expected line says: one tensor, shaped like x)."""
    one = None
    if all(p.forward_ok for p in facts.probes):
        one = all(one_gradient(p) is not None for p in facts.probes)
    return {
        "forward rounds every number": on_every_probe(rounds, facts.probes),
        "backward gives back one thing": one,
        "backward passes grad_out on": on_every_probe(passes_on, facts.probes),
        "nothing else changes: x, grad_out, the kind of numbers; ctx keeps no tensor": (
            on_every_probe(leaves_alone, facts.probes)
        ),
    }


def round_signature(attempt: Attempt) -> tuple:
    if attempt.argument:
        return ("argument", what_it_is(attempt.learner))
    f = attempt.facts
    return (signature(f.check), signature(f.other))
