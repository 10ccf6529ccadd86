"""What a learner's my_nudge does, and the oracles for check_nudge's cases.

RIGHT, for my_nudge: called as my_nudge(f, x, h) with x a one-number float64 tensor, on x³ at
3 (h = 0.1, the check's first example), x² at -1 (h = 0.25, its second), x³ at 3 again with
h = 1 (its third, where the size of h changes the answer: 28, not 27.01) and sin at 0.7
(h = 0.01), it gives back one finite number (a Python int or float, or a one-number real
tensor; not a bool) equal to the central difference (f(x + h) - f(x - h)) / (2h), to a
relative 1e-9.
"""

import contextlib
import inspect
import io
import math
from dataclasses import dataclass, field

import torch

from tests.exercises.attempts.arguments import what_it_is
from tests.exercises.attempts.distinct import Attempt
from tests.exercises.attempts.function_facts import Raised, describe


@dataclass(frozen=True)
class Example:
    name: str
    f: object
    x: float
    h: float

    def at(self, where: float) -> float:
        return float(self.f(torch.tensor([where], dtype=torch.float64)))

    @property
    def central(self) -> float:
        return (self.at(self.x + self.h) - self.at(self.x - self.h)) / (2 * self.h)


CUBE = Example("x³", lambda t: t**3, 3.0, 0.1)
SQUARE = Example("x²", lambda t: t**2, -1.0, 0.25)
WIDE = Example("x³, h = 1", lambda t: t**3, 3.0, 1.0)
SINE = Example("sin", torch.sin, 0.7, 0.01)
EXAMPLES = (CUBE, SQUARE, WIDE, SINE)


@dataclass
class Call:
    """One call my_nudge(f, x, h)."""

    value: object = None
    raised: Raised | None = None
    called_f: bool = False


@dataclass
class NudgeFacts:
    parameters: list[str] | None  # None: no signature to read
    binds: bool  # my_nudge(f, x, h) binds to its signature
    calls: dict = field(default_factory=dict)  # Example.name -> Call

    def number(self, example: Example) -> float | None:
        return as_number(self.calls[example.name].value)


def as_number(value: object) -> float | None:
    """A plain number; True or False (a comparison's answer, even in a tensor) is not one."""
    if isinstance(value, bool) or (isinstance(value, torch.Tensor) and value.dtype == torch.bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.is_complex():
        return float(value.detach().double().item())
    return None


def _call(fn, example: Example) -> Call:
    call = Call()

    def f(where):
        call.called_f = True
        return example.f(where)

    x = torch.tensor([example.x], dtype=torch.float64)
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # a learner's print is not the answer
            value = fn(f, x, example.h)
        call.value = value.detach().clone() if isinstance(value, torch.Tensor) else value
    except Exception as error:
        call.raised = Raised.of(error)
    return call


def nudge_facts(fn) -> NudgeFacts:
    try:
        signature = inspect.signature(fn)
        parameters = list(signature.parameters)
        try:
            signature.bind(CUBE.f, 0.0, 0.1)
            binds = True
        except TypeError:
            binds = False
    except (TypeError, ValueError):
        parameters, binds = None, True
    facts = NudgeFacts(parameters, binds)
    with torch.no_grad():
        facts.calls = {e.name: _call(fn, e) for e in EXAMPLES}
    return facts


def right_at(facts: NudgeFacts, example: Example) -> bool:
    n = facts.number(example)
    return (
        n is not None
        and math.isfinite(n)
        and math.isclose(n, example.central, rel_tol=1e-9, abs_tol=1e-9)
    )


def is_right(facts: NudgeFacts) -> bool:
    return all(right_at(facts, e) for e in EXAMPLES)


def runs(facts: NudgeFacts) -> bool:
    """my_nudge(f, x, h) on the x³ example gives back one finite number."""
    n = facts.number(CUBE)
    return facts.calls[CUBE.name].raised is None and n is not None and math.isfinite(n)


def nudge_case_oracles(facts: NudgeFacts) -> dict[str, bool | None]:
    return {
        "my_nudge runs and gives back one number": runs(facts),
        "x³ at x = 3, nudge h = 0.1": right_at(facts, CUBE),
        "x² at x = -1, nudge h = 0.25": right_at(facts, SQUARE),
        "x³ at x = 3, nudge h = 1": right_at(facts, WIDE),
    }


def nudge_signature(attempt: Attempt) -> tuple:
    if attempt.facts is None:
        return ("argument", what_it_is(attempt.learner))
    f = attempt.facts
    calls = tuple(
        (describe(c.value, 9), c.raised.kind if c.raised else None, c.called_f)
        for c in f.calls.values()
    )
    return (tuple(f.parameters or ()), f.binds, calls)
