"""The gradient doctor on the Cube attempts, as check_cube runs it for a beginner in Part 1:
check_function(Cube, lambda x: x**3, inputs=(the check's own float32 numbers,)), so that a
dtype change float64 alone cannot show is in what it examines. Its report is not a self-check's verdict (no ✓ ✗, no
hints): a headline, then per finding "[code] what", evidence, why, how to fix it. The
problems looked for: an escaped exception or traceback; "no problems found" for a wrong
Cube; problems found for a right one; a headline whose count is not the findings'; HTML
naming other findings; and every claim (doctor_claims.py) false of the attempt.

The missing argument is left out: check_function() without one is answered by the
not-a-function finding, judged with the other wrong arguments' words elsewhere.
"""

import contextlib
import io
import re
from collections.abc import Sequence

import torch

from tests.exercises.attempts.claims import YOU_PASSED, Problem, false_claims
from tests.exercises.attempts.cube_facts import _CUBE_X as CUBE_X
from tests.exercises.attempts.cube_facts import is_right
from tests.exercises.attempts.distinct import MISSING, Attempt
from tests.exercises.attempts.doctor_claims import (
    doctor_headline_claims,
    doctor_line_claims,
    fix_claims,
)
from tests.exercises.attempts.judging import Judged, Outputs
from tests.exercises.attempts.verdict_text import has_traceback

DOCTOR_CLAIMS = [YOU_PASSED, *doctor_headline_claims(), *doctor_line_claims(), *fix_claims()]
_HEADLINE = re.compile(
    r"^(?P<name>\S+): (?:no problems found|(?P<n>\d+) problems? found)(?: \(checked in \w+\))?$"
)
_CODE = re.compile(r"^\[(?P<code>[\w-]+)\] ", re.M)


def cube(x):
    return x**3


def run_doctor(attempt: Attempt) -> Outputs:
    from lessons_lib import check_function

    out = Outputs()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            report = check_function(attempt.learner, cube, inputs=(torch.tensor(CUBE_X),))
            out.ok = report.ok
            out.text, out.html = str(report), report._repr_html_()
        except Exception as error:
            out.escaped = f"{type(error).__name__}: {error}"
    out.printed = printed.getvalue()
    return out


def doctor_problems(attempt: Attempt, out: Outputs) -> list[Problem]:
    if out.escaped:
        return [Problem("a: an exception escaped the doctor", out.escaped, "it never raises")]
    found = []
    if has_traceback(*out.every_text):
        found.append(Problem("a: traceback in the report", out.text[:300], ""))
    first = out.text.splitlines()[0] if out.text else ""
    codes = _CODE.findall(out.text)
    if not attempt.argument:
        right = is_right(attempt.facts)
        if not right and out.ok:
            found.append(Problem("b: a wrong Cube has no problems found", first, ""))
        if right and not out.ok:
            found.append(Problem("c: a right Cube has problems found", out.text[:400], ""))
    headline = _HEADLINE.match(first)
    if headline is None or int(headline["n"] or 0) != len(codes):
        found.append(Problem("d: headline's count differs from the findings", first, f"{codes}"))
    if any(f"({code})" not in out.html for code in codes):
        found.append(Problem("d: HTML names other findings than the text", first, f"{codes}"))
    found += false_claims(DOCTOR_CLAIMS, out.text, attempt)
    return found


def judge_doctor(attempts: Sequence[Attempt]) -> list[Judged]:
    """The doctor on every Cube attempt but the missing argument."""
    judged = []
    for attempt in attempts:
        if attempt.learner is MISSING:
            continue
        out = run_doctor(attempt)
        judged.append(Judged(attempt, out, doctor_problems(attempt, out)))
    return judged
