"""One attempt through one self-check: what it printed, and every problem found in it.

A problem is (kind, what was said, why it is wrong). The kinds (assertions a to f of the
attempts' tests): an escaped exception or a traceback; "Well done" for a wrong attempt; a
right attempt failed; a ✓ or ✗ that is false; a sentence about the learner's code that is
false (claims.py); a wrong argument not refused in one line naming it.
"""

import contextlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tests.exercises.attempts.arguments import describes, should_refuse, what_it_is
from tests.exercises.attempts.claims import ClaimKind, Problem, false_claims
from tests.exercises.attempts.distinct import MISSING, Attempt
from tests.exercises.attempts.mutate import diff, parse, unparse
from tests.exercises.attempts.verdict_text import (
    WELL_DONE,
    case_lines,
    has_traceback,
    headline,
    html_case_lines,
    refusal_line,
)


@dataclass
class Outputs:
    """Everything a learner sees from one call of a check."""

    text: str = ""
    html: str = ""
    hints: tuple[str, ...] = ()  # str() of .hint(1) and .hint(3)
    printed: str = ""  # what the check printed while it ran
    escaped: str = ""  # an exception that escaped the check, as "Kind: message"
    ok: object = None

    @property
    def every_text(self) -> tuple[str, ...]:
        return (self.text, self.html, *self.hints, self.printed)


@dataclass
class CheckSpec:
    """What the tests need to know of a check."""

    name: str
    check: Callable
    wants_class: bool
    right: Callable[[Attempt], bool]  # the independent oracle of a right attempt
    case_oracles: Callable[[Attempt], dict[str, bool | None]]
    claims: Sequence[ClaimKind]
    has_hints: bool = True
    cases: dict = field(default_factory=dict)


def run(spec: CheckSpec, attempt: Attempt) -> Outputs:
    """Call the check on the attempt as a learner would, and read every form of its verdict."""
    out = Outputs()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            verdict = spec.check() if attempt.learner is MISSING else spec.check(attempt.learner)
            out.ok = verdict.ok
            out.text = str(verdict)
            out.html = verdict._repr_html_()
            if spec.has_hints:
                out.hints = (str(verdict.hint(1)), str(verdict.hint(3)))
        except Exception as error:
            out.escaped = f"{type(error).__name__}: {error}"
    out.printed = printed.getvalue()
    return out


def problems(spec: CheckSpec, attempt: Attempt, out: Outputs) -> list[Problem]:
    """Every problem with the check's output for this attempt."""
    if out.escaped:
        return [Problem("a: an exception escaped the check", out.escaped, "checks never raise")]
    found = []
    if has_traceback(*out.every_text):
        found.append(Problem("a: traceback in the output", _excerpt(out.text), "no tracebacks"))
    refuse = attempt.argument and should_refuse(attempt.learner, spec.wants_class)
    # A callable that cannot be the answer (len, a lambda) may be run or refused: both are fair.
    refused = attempt.argument and refusal_line(out.text, spec.name) is not None
    if refuse or refused:
        found += _refusal_problems(spec, attempt, out)
        found += false_claims(spec.claims, out.text, attempt)
        return found
    right = spec.right(attempt)
    if not right and (WELL_DONE in out.text or out.ok):
        found.append(Problem("b: a wrong attempt is told Well done", _first(out.text), ""))
    if right and not out.ok:
        found.append(Problem("c: a right attempt is failed", _excerpt(out.text), ""))
    found += mark_problems(spec, attempt, out)
    found += false_claims(spec.claims, out.text, attempt)
    return found


def mark_problems(spec: CheckSpec, attempt: Attempt, out: Outputs) -> list[Problem]:
    """d: every ✓ and ✗ true of the attempt; the headline's counts and the HTML's marks agree."""
    found = []
    lines = case_lines(out.text)
    oracles = spec.case_oracles(attempt)
    for line in lines:
        if line.mark == "○":
            continue
        holds = oracles.get(line.name, "unknown")
        said = f"{line.mark} {line.name}"
        if holds == "unknown":
            found.append(Problem("d: a case this test has no oracle for", said, ""))
        elif line.mark == "✓" and holds is not True:
            found.append(Problem("d: ✓ on a property that does not hold", said, f"{holds}"))
        elif line.mark == "✗" and holds is True:
            found.append(Problem("d: ✗ on a property that holds", said, "it holds"))
        elif line.mark == "✗" and holds is None:
            found.append(
                Problem("d: ✗ on a property never tested (not ○)", said, "it cannot be tested")
            )
    if any(line.mark == "○" for line in lines) and not any(line.mark == "✗" for line in lines):
        found.append(  # "not checked yet" waits on a first problem, which must be shown
            Problem("d: not checked yet, with no problem to fix first", _first(out.text), "")
        )
    top = headline(out.text)
    if top is None:
        found.append(Problem("d: headline not in the course's format", _first(out.text), ""))
    else:
        ticks = sum(line.mark == "✓" for line in lines)
        later = sum(line.mark == "○" for line in lines)
        if (top.passed, top.total, top.later) != (ticks, len(lines), later):
            found.append(
                Problem("d: headline's counts differ from the marks", _first(out.text), "")
            )
    if [(c.mark, c.name) for c in html_case_lines(out.html)] != [(c.mark, c.name) for c in lines]:
        found.append(Problem("d: HTML marks differ from the text's", _excerpt(out.html), ""))
    return found


def _refusal_problems(spec: CheckSpec, attempt: Attempt, out: Outputs) -> list[Problem]:
    """f: a wrong argument gets one line naming what was passed and what is wanted."""
    line = refusal_line(out.text, spec.name)
    want = what_it_is(attempt.learner)
    if line is None:
        why = f"want one line: {spec.name}: you passed {want}; {spec.name} wants ..."
        return [Problem("f: a wrong argument is not refused in one line", _first(out.text), why)]
    if not describes(line["what"], attempt.learner) or line["what"] != want:
        return [Problem("f: the refusal misnames what was passed", line["what"], want)]
    return []


def _first(text: str) -> str:
    return text.splitlines()[0] if text else ""


def _excerpt(text: str, lines: int = 8) -> str:
    return "\n".join(text.splitlines()[:lines])


def show(attempt: Attempt, out: Outputs, problem: Problem) -> str:
    """One failure, for an assertion message: the attempt, the output, the false claim."""
    if attempt.argument:
        what = f"argument: {what_it_is(attempt.learner)}"
    else:
        what = (
            f"{attempt.label}\n{diff(unparse(parse(attempt.base)), unparse(parse(attempt.source)))}"
        )
    return (
        f"--- {problem.kind}\nattempt: {what}\noutput:\n{_excerpt(out.text or out.escaped, 14)}\n"
        f"false: {problem.said}" + (f"\nbecause: {problem.why}" if problem.why else "")
    )


@dataclass
class Judged:
    attempt: Attempt
    out: Outputs
    problems: list[Problem]


def judge_all(spec: CheckSpec, attempts: Sequence[Attempt]) -> list[Judged]:
    """Every attempt through the check, with its problems."""
    judged = []
    for attempt in attempts:
        out = run(spec, attempt)
        judged.append(Judged(attempt, out, problems(spec, attempt, out)))
    return judged


def failures(judged: Sequence[Judged], prefix: str, shown: int = 3) -> str:
    """An assertion message for the problems whose kind starts with `prefix`: a count per
    kind, then up to `shown` examples of each in full; "" when there are none."""
    by_kind: dict[str, list[str]] = {}
    for j in judged:
        for p in j.problems:
            if p.kind.startswith(prefix):
                by_kind.setdefault(p.kind, []).append(show(j.attempt, j.out, p))
    if not by_kind:
        return ""
    counts = "\n".join(f"  {len(v)} x {k}" for k, v in sorted(by_kind.items()))
    examples = "\n\n".join(e for v in by_kind.values() for e in v[:shown])
    return f"{sum(map(len, by_kind.values()))} problems of {len(judged)} attempts:\n{counts}\n\n{examples}"


BAD_HINTS = ("yes", 5, -1, 2.5, None)


def hint_problems(spec: CheckSpec, answer: object) -> list[str]:
    """A bad hint level adds the line "hint must be a whole number from 0 to 3; you passed
    <what>." naming the value; the problems, one per bad level."""
    found = []
    for level in BAD_HINTS:
        try:
            text = str(spec.check(answer, hint=level))
        except Exception as error:
            found.append(f"hint={level!r}: {type(error).__name__}: {error}")
            continue
        want = f"hint must be a whole number from 0 to 3; you passed {what_it_is(level)}."
        if want not in text.splitlines():
            found.append(f"hint={level!r}: no line {want!r} in:\n{text}")
    return found
