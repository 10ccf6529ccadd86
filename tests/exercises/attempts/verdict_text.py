"""Reading a self-check's verdict in the course's format: its headline, its marked case
lines (✓ ✗ ○), the one-line refusal of a wrong argument, tracebacks, and the same marks in
its HTML. Nothing here imports lessons_lib: the format is read as a learner reads it.
"""

import html
import re
from dataclasses import dataclass

TRACEBACK = "Traceback (most recent call last)"
WELL_DONE = "Well done"

_HEADLINE = re.compile(
    r"^(?P<name>[^\n:]+): (?:all (?P<all>\d+) checks passed\. Well done!|"
    r"(?P<passed>\d+) of (?P<total>\d+) checks passed(?:, (?P<later>\d+) not checked yet)?)$"
)
_CASE = re.compile(r"^  (?P<mark>[✓✗○]) (?P<name>.+?)(?: \(not checked yet: (?P<why>.+)\))?$")
_HTML_CASE = re.compile(r"<li>\s*(?P<mark>[✓✗○])\s*(?P<name>[^<]+?)\s*</li>")


@dataclass(frozen=True)
class CaseLine:
    mark: str  # "✓", "✗" or "○"
    name: str
    why: str = ""  # for ○: why it was not checked


@dataclass(frozen=True)
class Headline:
    name: str
    passed: int
    total: int
    later: int  # "K not checked yet"
    well_done: bool


def headline(text: str) -> Headline | None:
    """The verdict's first line, read; None when it is not in the course's format."""
    first = text.splitlines()[0] if text else ""
    found = _HEADLINE.match(first)
    if found is None:
        return None
    if found["all"]:
        n = int(found["all"])
        return Headline(found["name"], n, n, 0, True)
    return Headline(
        found["name"], int(found["passed"]), int(found["total"]), int(found["later"] or 0), False
    )


def case_lines(text: str) -> list[CaseLine]:
    """Every marked case line of a verdict, in order."""
    found = (_CASE.match(line) for line in text.splitlines())
    return [CaseLine(m["mark"], m["name"], m["why"] or "") for m in found if m]


def html_case_lines(page: str) -> list[CaseLine]:
    """The marked case lines of a verdict's HTML, unescaped (no reason for ○ there)."""
    return [
        CaseLine(m["mark"], _NOT_YET.sub("", html.unescape(m["name"])))
        for m in _HTML_CASE.finditer(page)
    ]


_NOT_YET = re.compile(r" \(not checked yet: .+\)$")


def refusal_line(text: str, check: str) -> re.Match | None:
    """The one-line refusal "<check>: you passed <what>; <check> wants <wanted>, as in
    <call>." as a match with groups what, wanted and call; None otherwise."""
    pattern = (
        rf"^{re.escape(check)}: you passed (?P<what>.+); {re.escape(check)} wants "
        r"(?P<wanted>.+), as in (?P<call>.+)\.$"
    )
    return re.match(pattern, text.strip()) if "\n" not in text.strip() else None


def has_traceback(*texts: str) -> bool:
    return any(TRACEBACK in t for t in texts)


def sentences(text: str) -> list[str]:
    """A verdict's text as sentences, one per line part, for reading what checks say."""
    parts = []
    for line in text.splitlines():
        body = re.sub(r"^\s*(?:[✓✗○-]|expected:|got:|how to fix it:|read more:)\s*", "", line)
        parts += [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(`])", body) if s.strip()]
    return parts
