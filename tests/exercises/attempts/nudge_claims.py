"""check_nudge's claim-checkers: what my_nudge gave back, raised or never did, and which
usual slip its number comes from, verified on the examples the test ran itself (NudgeFacts:
x³ at 3, x² at -1, x³ at 3 with h = 1 and sin at 0.7). A slip is verified on all three examples, so a number
that matches a slip on x³ by coincidence is caught."""

import math
import re

from tests.exercises.attempts.claims import YOU_PASSED, claim
from tests.exercises.attempts.function_facts import describe
from tests.exercises.attempts.nudge_facts import CUBE, EXAMPLES, SQUARE, WIDE, right_at


def _on_cube(a):
    return a.facts.calls[CUBE.name]


def _close(a: float | None, b: float) -> bool:
    return a is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _slip(formula):
    """A verifier: on every example, my_nudge gave formula(f(x + h), f(x), f(x - h), h)."""

    def verify(found, a) -> bool:
        for e in EXAMPLES:
            up, here, down = e.at(e.x + e.h), e.at(e.x), e.at(e.x - e.h)
            if not _close(a.facts.number(e), formula(up, here, down, e.h)):
                return False
        return True

    return verify


def _error(found, a) -> bool:
    raised = _on_cube(a).raised
    if raised is None or raised.kind != found["kind"]:
        return False
    said = found["message"].strip()
    return said == "(no message)" or raised.message.startswith(said.rstrip("."))


def _got(found, a) -> bool | None:
    """A "got:" number is what my_nudge gave back on x³ or on x²."""
    text = found["value"].strip()
    if not re.fullmatch(r"-?[\d.e+-]+|nan|inf|-inf", text):
        return None
    said = float(text)
    numbers = [a.facts.number(CUBE), a.facts.number(SQUARE), a.facts.number(WIDE)]
    return any(
        n is not None and (n == said or _close(n, said) or f"{n:.10g}" == text) for n in numbers
    )


def _kind(found, a) -> bool:
    value = _on_cube(a).value
    return type(value).__name__ == found["kind"]


def _takes(found, a) -> bool:
    names = [n.strip() for n in found["names"].split(",") if n.strip()]
    return a.facts.parameters == names and not a.facts.binds


NUDGE_CLAIMS = [
    YOU_PASSED,
    claim(
        "my_nudge stopped with <error>",
        r"my_nudge stopped with an error: (?P<kind>\w+): (?P<message>.*)$",
        _error,
        lambda found, a: f"my_nudge raised {_on_cube(a).raised}",
    ),
    claim(
        "my_nudge gave back nothing (None)",
        r"my_nudge gave back nothing \(None\)",
        lambda found, a: _on_cube(a).raised is None and _on_cube(a).value is None,
    ),
    claim(
        "my_nudge still gives back the placeholder ...",
        r"still gives back the placeholder \.\.\.",
        lambda found, a: _on_cube(a).value is Ellipsis,
    ),
    claim(
        "my_nudge gave back <number>, not an ordinary number",
        r"my_nudge gave back (?P<n>\S+), which is not an ordinary number",
        lambda found, a: (n := a.facts.number(CUBE)) is not None and not math.isfinite(n),
    ),
    claim(
        "my_nudge takes (<names>)",
        r"my_nudge takes \((?P<names>[^)]*)\), but",
        _takes,
        lambda found, a: f"its parameters: {a.facts.parameters}, binds f, x, h: {a.facts.binds}",
    ),
    claim(
        "its answer inside a tuple",
        r"gave back its answer inside a tuple",
        lambda found, a: isinstance(_on_cube(a).value, tuple) and len(_on_cube(a).value) == 1,
    ),
    claim(
        "its answer inside a list",
        r"gave back its answer inside a list",
        lambda found, a: isinstance(_on_cube(a).value, list) and len(_on_cube(a).value) == 1,
    ),
    claim(
        "my_nudge gave back <n> things",
        r"my_nudge gave back (?P<n>\d+) things",
        lambda found, a: (
            isinstance(_on_cube(a).value, tuple | list)
            and len(_on_cube(a).value) == int(found["n"])
        ),
    ),
    claim(
        "x held one number, but my_nudge gave back <n>",
        r"x held one number, but my_nudge gave back (?P<n>\d+)",
        lambda found, a: (
            hasattr(_on_cube(a).value, "numel") and _on_cube(a).value.numel() == int(found["n"])
        ),
    ),
    claim(
        "my_nudge gave back <a kind>, not a number",
        r"my_nudge gave back an? (?P<kind>\w+), not a number",
        _kind,
        lambda found, a: f"it gave back {describe(_on_cube(a).value)}",
    ),
    claim(
        "nudged upwards only",
        r"nudged x upwards only",
        _slip(lambda u, m, d, h: (u - m) / h),
    ),
    claim(
        "nudged downwards only",
        r"nudged x downwards only",
        _slip(lambda u, m, d, h: (m - d) / h),
    ),
    claim(
        "divided by h (twice the right number)",
        r"it divided by h, but",
        _slip(lambda u, m, d, h: (u - d) / h),
    ),
    claim(
        "read '/ 2 * h' as divide by 2, then multiply by h",
        r"Python read '/ 2 \* h'",
        _slip(lambda u, m, d, h: (u - d) / 2 * h),
    ),
    claim(
        "only f(x - h) was divided",
        r"so only f\(x - h\) was divided\. Put",
        _slip(lambda u, m, d, h: u - d / (2 * h)),
    ),
    claim(
        "only f(x - h) was divided, then multiplied by h",
        r"only f\(x - h\) was divided, and then multiplied by h",
        _slip(lambda u, m, d, h: u - d / 2 * h),
    ),
    claim(
        "how far f moved, not per unit of nudge",
        r"gave back how far f moved, but not per unit of nudge",
        _slip(lambda u, m, d, h: u - d),
    ),
    claim(
        "divided by 2 but not by h",
        r"divided by 2 but not by h",
        _slip(lambda u, m, d, h: (u - d) / 2),
    ),
    claim(
        "multiplied by the distance",
        r"multiplied by the distance between the two places",
        _slip(lambda u, m, d, h: (u - d) * 2 * h),
    ),
    claim(
        "subtracted the upper value from the lower one",
        r"subtracted the upper value from the lower one",
        _slip(lambda u, m, d, h: (d - u) / (2 * h)),
    ),
    claim(
        "gave exactly 1, as if it nudged f's result",
        r"gave exactly 1, as if it nudged f's result",
        _slip(lambda u, m, d, h: (m + h - m) / h),
    ),
    claim(
        "the slope from calculus, 3·x² = 27",
        r"That is the slope from calculus",
        lambda found, a: a.facts.number(CUBE) == 27.0,
    ),
    claim(
        "my_nudge never called f",
        r"my_nudge never called f",
        lambda found, a: not _on_cube(a).called_f,
    ),
    claim(
        "my_nudge gave <n> again, the same as for x³",
        r"my_nudge gave (?P<n>\S+) again, the same as for x³",
        lambda found, a: a.facts.number(SQUARE) == a.facts.number(CUBE),
    ),
    claim(
        "my_nudge nudged x³ here, but f was x²",
        r"my_nudge nudged x³ here",
        lambda found, a: _close(
            a.facts.number(SQUARE),
            ((SQUARE.x + SQUARE.h) ** 3 - (SQUARE.x - SQUARE.h) ** 3) / (2 * SQUARE.h),
        ),
    ),
    claim(
        "passed the first example but not this one",
        r"my_nudge passed the first example but not this one",
        lambda found, a: right_at(a.facts, CUBE) and not right_at(a.facts, SQUARE),
    ),
    claim(
        "gave back the same number, <n>, for h = 0.1 and for h = 1",
        r"my_nudge gave back the same number, (?P<n>\S+), for h = 0\.1 and for h = 1:",
        lambda found, a: (
            _close(a.facts.number(CUBE), float(found["n"]))
            and _close(a.facts.number(WIDE), float(found["n"]))
        ),
        lambda found, a: (
            f"it gave {a.facts.number(CUBE)} for h = 0.1, {a.facts.number(WIDE)} for 1"
        ),
    ),
    claim(
        "passed the small nudges but not h = 1",
        r"my_nudge passed the small nudges but not h = 1",
        lambda found, a: (
            right_at(a.facts, CUBE) and right_at(a.facts, SQUARE) and not right_at(a.facts, WIDE)
        ),
    ),
    claim(
        '"got:" <the number my_nudge gave back>',
        r"^  got:\s+(?P<value>.+)$",
        _got,
        lambda found, a: f"it gave {a.facts.number(CUBE)} on x³ and {a.facts.number(SQUARE)} on x²",
    ),
]

UNVERIFIED = [
    (
        "f was passed in as TypoCube.apply",
        "the f the check passes is its own; the test cannot see it without wrapping the "
        "learner's function, which would change the name and signature the check reads",
    ),
    ("Did you use a nudge size of your own? / Did you divide by ... h - h?", "questions"),
]
