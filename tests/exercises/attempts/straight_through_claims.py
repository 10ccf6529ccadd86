"""check_straight_through's claim-checkers: the Function claims, and the sentences only it
says (zeros, ones, x, forward's numbers, a scale, the placeholder, a name from outside)."""

import dis
import inspect
import types

import torch

from tests.exercises.attempts.claims import YOU_PASSED, claim
from tests.exercises.attempts.function_claims import function_claims, gave, one, probe
from tests.exercises.attempts.numbers import close, flat, printed_as


def _backward_reads(cls: type) -> set[str]:
    """The global names MyRound's backward (and any lambda inside it) reads."""
    backward = inspect.unwrap(getattr(cls, "backward", None))
    codes, names = [getattr(backward, "__code__", None)], set()
    while codes:
        code = codes.pop()
        if code is None:
            continue
        names |= {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return names


def _outside(found, a) -> bool:
    """ "backward used <name>, a tensor from outside it: the notebook's own <name>, <values>"."""
    name = found["name"]
    tensor = a.facts.module_tensors.get(name)
    if tensor is None or name not in _backward_reads(a.learner):
        return False
    return printed_as(found["values"], flat(tensor))


def _not_defined(found, a) -> bool:
    raised = probe(a).backward_raised
    return (
        raised is not None and raised.kind == "NameError" and f"'{found['name']}'" in raised.message
    )


def _own_x(found, a) -> bool:
    """ "(the notebook's own x)" after a got value: backward gave back that global as it is."""
    tensor = a.facts.module_tensors.get(found["name"])
    return tensor is not None and close(one(probe(a)), tensor)


def _saved(found, a) -> bool:
    """ "forward saved x (or <n> tensors) with ctx.save_for_backward": what the node held
    before backward ran, x meaning the very tensor forward received."""
    p = probe(a)
    if found["what"] == "x":
        return p.saved_count == 1 and p.saved_x
    return p.saved_count == int(found["count"]) and not (p.saved_count == 1 and p.saved_x)


ROUND_CLAIMS = [
    YOU_PASSED,
    *function_claims(torch.round),
    claim(
        "backward gave back all zeros",
        r"backward gave back all zeros",
        gave(lambda p: torch.zeros_like(p.x), both=False),
    ),
    claim(
        "backward gave back 1 for every number",
        r"backward gave back 1 for every number",
        gave(lambda p: torch.ones_like(p.x), both=False),
    ),
    claim(
        "backward gave back x",
        r"backward gave back x, the numbers that went into forward",
        gave(lambda p: p.x, both=False),
    ),
    claim(
        "backward gave back forward's rounded numbers",
        r"backward gave back forward's rounded numbers",
        gave(lambda p: torch.round(p.x), both=False),
    ),
    claim(
        "backward flipped the sign of grad_out",
        r"backward flipped the sign of grad_out",
        gave(lambda p: -p.grad_out),
    ),
    claim(
        "backward multiplied grad_out by <k>",
        r"backward multiplied grad_out by (?P<k>-?[\d.e+-]+|nan|inf)\.",
        lambda found, a: gave(lambda p: float(found["k"]) * p.grad_out)(found, a),
        lambda found, a: f"backward gave back {one(probe(a))!r} for grad_out {probe(a).grad_out}",
    ),
    claim(
        "forward gave the numbers back without rounding them",
        r"forward gave the numbers back without rounding them",
        lambda found, a: close(probe(a).output, probe(a).x),
    ),
    claim(
        "forward rounded 2.5 up to 3",
        r"forward rounded 2\.5 up to 3",
        lambda found, a: (
            2.5 in probe(a).x.tolist() and close(probe(a).output, torch.floor(probe(a).x + 0.5))
        ),
    ),
    claim(
        "backward still gives back the placeholder ...",
        r"backward still gives back the placeholder \.\.\.",
        lambda found, a: one(probe(a)) is Ellipsis,
    ),
    claim(
        "backward used <name>, a tensor from outside it, <values>",
        r"backward used (?P<name>\w+), a tensor from outside it: the notebook's own \w+, "
        r"(?P<values>\[[^\]]*\]|tensor\([^)]*\))",
        _outside,
    ),
    claim(
        "backward used the name <name>, which does not exist inside it",
        r"backward used the name (?P<name>\w+), which does not exist inside it",
        _not_defined,
    ),
    claim(
        "forward saved x (or <n> tensors) with ctx.save_for_backward",
        r"forward saved (?P<what>x|(?P<count>\d+) tensors?) with ctx\.save_for_backward",
        _saved,
        lambda found, a: f"saved: {probe(a).saved_count}, x among them: {probe(a).saved_x}",
    ),
    claim(
        "(the notebook's own <name>) after the value backward gave back",
        r"\(the notebook's own (?P<name>\w+)\)$",
        _own_x,
    ),
]

UNVERIFIED = [
    ("Did you forget the word return?", "a question, not a claim"),
    ("forward does not round the way torch.round does", "true whenever the case fails"),
]
