"""Every attempt of a part run through its check, and what is wrong with each verdict, by
rule: an exception or traceback escaping (a), "Well done" for a wrong attempt (b), a right
attempt failed (c), a false ✓ or ✗ (d), a false claim, by kind (e), a wrong argument not
refused in one line (f). The tests assert each rule's list is empty; the report counts them.
"""

import functools
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from lessons_lib.exercises.clamp.edges import check_edge_test
from lessons_lib.exercises.clamp.suite import check_my_checks
from tests.exercises.attempts.clamp_attempts import (
    Attempt,
    distinct,
    generate,
    hypothesis_examples,
    with_wrong_arguments,
)
from tests.exercises.attempts.clamp_claims import CHECKERS, false_claims
from tests.exercises.attempts.clamp_oracles import oracle_for, rightness
from tests.exercises.attempts.clamp_verdict import REFUSAL, TRACEBACK, Verdict, parse
from tests.exercises.attempts.distinct import MISSING

CHECKS: dict[int, tuple[str, Callable]] = {
    1: ("check_edge_test", check_edge_test),
    2: ("check_my_checks", check_my_checks),
}


@dataclass
class Outcome:
    """One attempt through its check: the verdict's text and HTML, hints, what escaped."""

    attempt: Attempt
    text: str = ""
    html: str = ""
    hints: str = ""
    ok: bool = False
    escaped: str = ""  # the traceback of an exception the check let out
    verdict: Verdict | None = None
    right: bool | None = None


@dataclass(frozen=True)
class Finding:
    """One thing a verdict got wrong."""

    outcome: Outcome
    claim: str

    def shown(self) -> str:
        return f"{self.outcome.attempt.shown()}\n--- output:\n{self.outcome.text or self.outcome.escaped}\n--- false: {self.claim}"


def _through_check(attempt: Attempt, check: Callable) -> Outcome:
    outcome = Outcome(attempt)
    try:
        verdict = check() if attempt.value is MISSING else check(attempt.value)
        outcome.text, outcome.html = str(verdict), verdict._repr_html_()
        outcome.hints = str(verdict.hint(1)) + "\n" + str(verdict.hint(3))
        outcome.ok = bool(verdict.ok)
    except Exception:  # what rule (a) is about: recorded, never raised here
        outcome.escaped = traceback.format_exc()
        return outcome
    outcome.verdict = parse(outcome.text)
    if attempt.facts is not None:
        outcome.right = rightness(attempt.facts, attempt.part)
    return outcome


@functools.cache
def outcomes(part: int) -> tuple[Outcome, ...]:
    """Every distinct attempt of the part, and wrong arguments, through the part's check."""
    _, check = CHECKS[part]
    with hypothesis_examples():
        attempts = with_wrong_arguments(part, distinct(generate(part)))
        return tuple(_through_check(a, check) for a in attempts)


def escapes(o: Outcome) -> list[str]:
    """(a) nothing escapes the check, and no traceback text is in what it shows."""
    if o.escaped:
        return [f"the check raised: {o.escaped.strip().splitlines()[-1]}"]
    return [
        f"traceback text in the {w}"
        for w, t in (("text", o.text), ("HTML", o.html), ("hints", o.hints))
        if TRACEBACK in t
    ]


def well_done_for_wrong(o: Outcome) -> list[str]:
    """(b) an attempt that is wrong, or a wrong argument, never gets "Well done" nor .ok."""
    wrong = o.attempt.wrong is not None or o.right is False
    if wrong and (o.ok or "Well done" in o.text):
        return [
            "a wrong attempt got Well done"
            if o.attempt.wrong is None
            else "a wrong argument got Well done"
        ]
    return []


def right_failed(o: Outcome) -> list[str]:
    """(c) a right attempt (see clamp_oracles) is never failed."""
    if o.right is True and not o.escaped and not o.ok:
        return [f"a right attempt failed: {o.verdict.first_problem if o.verdict else ''}"]
    return []


def false_case_lines(o: Outcome) -> list[str]:
    """(d) a ✓ means the named property holds, a ✗ that it does not; ○ is not judged."""
    if o.verdict is None or o.attempt.facts is None:
        return []
    found = []
    for line in o.verdict.cases:
        oracle = oracle_for(line.name, o.attempt.part)
        if oracle is None:
            found.append(f"no oracle for the case '{line.name}'")
            continue
        holds = oracle(o.attempt.facts)
        if line.mark == "✓" and holds is False:
            found.append(f"✓ {line.name}, but it does not hold")
        if line.mark == "✗" and holds is True:
            found.append(f"✗ {line.name}, but it holds")
    return found


def refusal_format(o: Outcome) -> list[str]:
    """(f) a wrong argument's verdict is one line naming what was passed and what is wanted."""
    wrong = o.attempt.wrong
    if wrong is None or o.escaped:
        return []
    name, _ = CHECKS[o.attempt.part]
    lines = o.text.strip().splitlines()
    match = REFUSAL.match(lines[0]) if len(lines) == 1 else None
    if match is None:
        return [f"not one refusal line ({len(lines)} lines, first {lines[0][:100]!r})"]
    if match["check"] != name or match["what"] != wrong.what:
        return [f"named {match['what']!r} for {name}, want {wrong.what!r}"]
    return []


def claims(o: Outcome) -> dict[str, list[str]]:
    """(e) every claim about what the learner's code did is true, by kind."""
    if o.verdict is None:
        return {}
    return false_claims(o.attempt, o.verdict)


RULES: dict[str, Callable[[Outcome], list[str]]] = {
    "escaped exception or traceback": escapes,
    "Well done for a wrong attempt": well_done_for_wrong,
    "a right attempt failed": right_failed,
    "a false ✓ or ✗": false_case_lines,
    "a wrong argument not refused in one line": refusal_format,
}


@functools.cache
def findings(part: int) -> dict[str, list[Finding]]:
    """Every finding of the part, by rule, claim kinds included ("claim: <kind>")."""
    found: dict[str, list[Finding]] = {rule: [] for rule in RULES}
    found |= {f"claim: {kind}": [] for kind in CHECKERS}
    for o in outcomes(part):
        for rule, judge in RULES.items():
            found[rule] += [Finding(o, c) for c in judge(o)]
        for kind, said in claims(o).items():
            found[f"claim: {kind}"] += [Finding(o, c) for c in said]
    return found


def message(items: list[Finding], limit: int = 4) -> str:
    """An assertion's message: how many, and the first few in full."""
    shown = "\n\n".join(f.shown() for f in items[:limit])
    return f"{len(items)} found; the first {min(limit, len(items))}:\n\n{shown}"
