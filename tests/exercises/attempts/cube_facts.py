"""What a learner's Cube does, and the oracles for check_cube's cases and for "right".

RIGHT, for a Cube: on the check's probe (float32) and a second probe (float64) forward
gives back a tensor of x's shape and dtype equal to x³; backward's own return is one tensor
(alone or in a 1-tuple, which autograd accepts alike) of x's shape and dtype equal to
grad_out·3x²; forward saved with ctx.save_for_backward and kept no tensor as a ctx
attribute; nothing was changed in place (x, grad_out, the saved tensors); and gradcheck and
gradgradcheck pass in float64. So a Cube with the right numbers that stores ctx.x = x, or
multiplies grad_out in place, or detaches x in backward (wrong second derivative) is wrong,
as the course teaches; the gradient doctor's examination covers exactly these.
"""

import warnings
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

try:  # the inputs check_cube sends: read from the check, so a change there follows here
    from lessons_lib.exercises.backward_pass.cube import _CUBE_GRAD_OUT, _CUBE_X
except ImportError:
    _CUBE_X, _CUBE_GRAD_OUT = (2.0, -1.0, 0.5, 3.0), (10.0, 2.0, -1.0, 0.5)

SECOND_X, SECOND_GRAD_OUT = (0.7, -1.3, 2.2), (1.5, -0.5, 3.0)


@dataclass
class CubeFacts:
    check: FunctionFacts  # on the check's own inputs, float32
    other: FunctionFacts  # on other inputs, float64
    scaled: FunctionFacts  # on those inputs with grad_out doubled and negated
    gradcheck: bool = False  # in float64, on the other inputs
    gradgradcheck: bool = False

    @property
    def gradchecks(self) -> bool:
        return self.gradcheck and self.gradgradcheck

    @property
    def probes(self) -> tuple[FunctionFacts, FunctionFacts]:
        return self.check, self.other


def cube_facts(cls: type) -> CubeFacts:
    check = record(cls, _CUBE_X, _CUBE_GRAD_OUT)
    other = record(cls, SECOND_X, SECOND_GRAD_OUT, torch.float64)
    scaled = record(cls, SECOND_X, tuple(-2 * g for g in SECOND_GRAD_OUT), torch.float64)
    facts = CubeFacts(check, other, scaled)
    if all(forward_cubes(p) and multiplies(p) for p in facts.probes):
        facts.gradcheck = _passes(torch.autograd.gradcheck, cls)
        facts.gradgradcheck = facts.gradcheck and _passes(torch.autograd.gradgradcheck, cls)
    return facts


def _passes(gradcheck, cls: type) -> bool:
    x = torch.tensor(SECOND_X, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return gradcheck(cls.apply, (x,), raise_exception=False)
        except Exception:
            return False


def forward_cubes(p: FunctionFacts) -> bool:
    """forward gave back a floating tensor of x's shape equal to x³."""
    out = p.output
    return (
        p.forward_ok
        and isinstance(out, torch.Tensor)
        and out.is_floating_point()
        and out.shape == p.x.shape
        and torch.allclose(out.double(), p.x.double() ** 3, rtol=1e-5)
    )


def one_gradient(p: FunctionFacts) -> torch.Tensor | None:
    """The one tensor backward gave back (alone or in a 1-tuple), shaped like x; else None.
    A tuple with extra Nones after it counts too, as autograd's engine accepts it (and so
    do the doctor and check_cube)."""
    got = p.returned
    if isinstance(got, tuple) and got and all(g is None for g in got[1:]):
        got = got[:1]
    if isinstance(got, tuple) and len(got) == 1:
        got = got[0]
    if isinstance(got, torch.Tensor) and got.shape == p.x.shape and p.backward_raised is None:
        return got
    return None


def first_gradient(p: FunctionFacts) -> torch.Tensor | None:
    """What backward gave back for x: the tensor, or the first item of a tuple or list."""
    got = p.returned
    if isinstance(got, tuple | list) and got:
        got = got[0]
    ok = isinstance(got, torch.Tensor) and got.shape == p.x.shape
    return got if ok and p.backward_raised is None else None


def multiplies(p: FunctionFacts) -> bool | None:
    """backward's gradient for x is grad_out·3x² (None: backward gave no gradient to test)."""
    got = first_gradient(p)
    if got is None:
        return None
    want = p.grad_out.double() * 3 * p.x.double() ** 2
    return got.is_floating_point() and torch.allclose(got.double(), want, rtol=1e-5, atol=1e-6)


def is_right(facts: CubeFacts) -> bool:
    """The module docstring's RIGHT."""
    for p in facts.probes:
        grad = one_gradient(p)
        clean = not (
            p.x_changed_by_forward
            or p.grad_out_changed
            or p.saved_changed_by_backward
            or p.x_changed_by_backward
        )
        if not (forward_cubes(p) and grad is not None and multiplies(p) and clean):
            return False
        if p.output.dtype != p.x.dtype or grad.dtype != p.x.dtype:
            return False
        if p.ctx_tensors or not p.saved_count:
            return False
    return facts.gradchecks


def cube_case_oracles(facts: CubeFacts) -> dict[str, bool | None]:
    """Whether each case's property holds (None: it cannot be tested on this attempt), by the
    case names check_cube prints."""
    forward = on_every_probe(forward_cubes, facts.probes)
    returned_one = None  # backward never runs when forward fails
    if all(p.forward_ok for p in facts.probes):
        returned_one = all(one_gradient(p) is not None for p in facts.probes)
    return {
        "forward computes x³": forward,
        "backward gives back one tensor, shaped like x": returned_one,
        "backward multiplies grad_out by the slope 3·x²": on_every_probe(multiplies, facts.probes),
        "the gradient doctor finds no problems": is_right(facts),
    }


def cube_signature(attempt: Attempt) -> tuple:
    if attempt.argument:
        return ("argument", what_it_is(attempt.learner))
    f = attempt.facts
    return (signature(f.check), signature(f.other), signature(f.scaled), f.gradchecks)
