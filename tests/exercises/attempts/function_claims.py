"""Claim-checkers for the Function exercises (check_cube, check_straight_through): sentences
about what forward and backward did, verified against FunctionFacts recorded by running the
attempt (attempt.facts.check on the check's own inputs, attempt.facts.other on others)."""

import re
from collections.abc import Callable

import torch

from tests.exercises.attempts.claims import ClaimKind, claim
from tests.exercises.attempts.function_facts import FunctionFacts, Raised
from tests.exercises.attempts.numbers import close, flat, printed_as, quoted, same


def _probe(attempt) -> FunctionFacts:
    return attempt.facts.check


def _both(attempt) -> tuple[FunctionFacts, FunctionFacts]:
    return attempt.facts.check, attempt.facts.other


def _one(p: FunctionFacts) -> object:
    """What backward gave back, a 1-tuple unwrapped (the checks read it so)."""
    got = p.returned
    return got[0] if isinstance(got, tuple) and len(got) == 1 else got


def _error_matches(raised: Raised | None, found: re.Match) -> bool:
    if raised is None or raised.kind != found["kind"]:
        return False
    said, real = found["message"].strip(), raised.message.strip()
    return said == real or real.startswith(said.rstrip(".")) or said == "(no message)"


def _gave(formula: Callable[[FunctionFacts], torch.Tensor], both: bool = True):
    """A verifier: backward's gradient equals formula(probe) (on both probes)."""

    def verify(found, attempt) -> bool:
        probes = _both(attempt) if both else (_probe(attempt),)
        return all(close(_one(p), formula(p)) for p in probes)

    return verify


def _lenient(value: object) -> list[float]:
    """The numbers in a value, Nones and non-numbers skipped."""
    if isinstance(value, tuple | list):
        return [n for item in value for n in _lenient(item)]
    return flat(value) or []


def _got_line(found, attempt) -> bool | None:
    """A "got:" line that is a value must be forward's output or backward's return."""
    value = found["value"].strip()
    if not re.match(r"^(?:\[|tensor\(|array\(|np\.|-?\d|None|nan|\()", value):
        return None  # a sentence: the other kinds read it
    p = _probe(attempt)
    if value.startswith("None"):
        return p.output is None or _one(p) is None
    printed = re.sub(r"dtype=[\w.]+", "", value.split("  (")[0])
    if not quoted(printed):
        return None
    return any(printed_as(printed, _lenient(v)) for v in (p.output, p.returned))


def _not_from_x(forward_of: Callable[[torch.Tensor], torch.Tensor], decimal: bool):
    """ "forward gave back <v>: not (decimal) numbers computed from x": the value is forward's,
    and it does not hold forward_of(x) (as decimals, when the claim says decimal)."""

    def verify(found, attempt) -> bool:
        p = _probe(attempt)
        said = found["value"].strip()
        if said == "None":
            return p.output is None
        numbers, want = flat(p.output), flat(forward_of(p.x))
        if not printed_as(re.sub(r"dtype=[\w.]+", "", said), _lenient(p.output)):
            return False
        truncated = flat(forward_of(p.x).trunc())
        from_x = numbers is not None and (same(numbers, want) or same(numbers, truncated))
        floating = (
            not (isinstance(p.output, torch.Tensor) and not p.output.is_floating_point())
            and "int" not in type(p.output).__name__
        )
        return not (from_x and (floating or not decimal))

    return verify


def function_claims(forward_of: Callable[[torch.Tensor], torch.Tensor]) -> list[ClaimKind]:
    """The claims both Function exercises make, for a forward computing forward_of(x)."""
    return [
        claim(
            "forward stopped with <error>",
            r"forward stopped with an error: (?P<kind>\w+): (?P<message>.*)$",
            lambda found, a: _error_matches(_probe(a).forward_raised, found),
            lambda found, a: f"forward raised: {_probe(a).forward_raised}",
        ),
        claim(
            "backward stopped with <error>",
            r"backward stopped with an error: (?P<kind>\w+): (?P<message>.*)$",
            lambda found, a: _error_matches(_probe(a).backward_raised, found),
            lambda found, a: f"backward raised: {_probe(a).backward_raised}",
        ),
        claim(
            "forward gave back <value>: not numbers from x",
            r"forward gave back (?P<value>.+?): not (?:decimal )?numbers (?:computed from|made from) x",
            lambda found, a: _not_from_x(forward_of, "decimal" in found.group(0))(found, a),
            lambda found, a: f"forward gave back {_probe(a).output!r}",
        ),
        claim(
            "backward gave back <count> things",
            r"backward gave back (?P<count>\d+) things",
            lambda found, a: (
                isinstance(_probe(a).returned, tuple)
                and len(_probe(a).returned) == int(found["count"])
            ),
            lambda found, a: f"backward returned {_probe(a).returned!r}",
        ),
        claim(
            "backward gave back <a kind>",
            r"backward gave back (?:a|an) (?P<kind>\w+), but",
            lambda found, a: type(_one(_probe(a))).__name__ == found["kind"],
            lambda found, a: f"backward returned a {type(_one(_probe(a))).__name__}",
        ),
        claim(
            "backward gave back nothing (None)",
            r"backward gave back nothing \(None\)",
            lambda found, a: _probe(a).backward_raised is None and _one(_probe(a)) is None,
        ),
        claim(
            "backward gave back <n> number(s) for <m>",
            r"backward gave back (?P<got>\d+) number\(s\) for (?P<want>\d+)",
            lambda found, a: (
                isinstance(_one(_probe(a)), torch.Tensor)
                and _one(_probe(a)).numel() == int(found["got"])
                and _probe(a).x.numel() == int(found["want"])
            ),
        ),
        claim(
            "backward changed the kind of numbers (to <dtype>)",
            r"backward changed the kind of numbers \(to (?P<dtype>[\w.]+)\)",
            lambda found, a: (
                isinstance(_one(_probe(a)), torch.Tensor)
                and str(_one(_probe(a)).dtype) == found["dtype"]
            ),
        ),
        claim(
            "this time grad_out was <numbers>",
            r"(?:[Tt]his time grad_out was|with grad_out =) (?P<values>\[[^\]]*\])",
            lambda found, a: same(quoted(found["values"]), flat(_probe(a).grad_out)),
        ),
        claim(
            "for x = <numbers>",
            r"for x = (?P<values>\[[^\]]*\])",
            lambda found, a: same(quoted(found["values"]), flat(_probe(a).x)),
        ),
        claim(
            '"got:" <what the attempt gave back>',
            r"^  got:\s+(?P<value>.+)$",
            _got_line,
            lambda found, a: f"forward: {_probe(a).output!r}; backward: {_probe(a).returned!r}",
        ),
    ]


gave = _gave
probe = _probe
one = _one
