"""Claim-checkers for the verdict's own form: the headline counts its marks, and no cause is
stated twice."""

import re

from tests.exercises.attempts.clamp_claim_context import Context
from tests.exercises.attempts.clamp_verdict import HEADLINE, sentences


def headline(ctx: Context) -> list[str]:
    """The headline's counts are the case lines' marks: P ✓ of N, K ○."""
    v = ctx.verdict
    if not v.cases:
        return []
    m = HEADLINE.match(v.headline)
    if m is None:
        return [f"headline not in the format: {v.headline!r}"]
    marks = [c.mark for c in v.cases]
    if m["all"]:
        ok = int(m["all"]) == len(marks) and set(marks) == {"✓"}
    else:
        ok = (int(m["passed"]), int(m["total"]), int(m["open"] or 0)) == (
            marks.count("✓"),
            len(marks),
            marks.count("○"),
        )
    return [] if ok else [f"headline {v.headline!r} does not count the marks {''.join(marks)}"]


MIN_WORDS = 6  # a repeated sentence this long is a repeated cause, not a stock phrase


def repeated_sentences(ctx: Context) -> list[str]:
    """A cause is stated once in a verdict: no sentence of MIN_WORDS words or more twice."""
    seen: dict[str, int] = {}
    for s in sentences(ctx.verdict.text):
        if len(s.split()) >= MIN_WORDS and not re.match(r"^[✓✗○] ", s):
            seen[s] = seen.get(s, 0) + 1
    return [f"said {n} times: {s[:160]}" for s, n in seen.items() if n > 1]
