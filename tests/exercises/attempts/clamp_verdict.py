"""A verdict's text read back into its parts, in the format the checks print: the headline,
one line per case (✓, ✗, or ○ "not checked yet"), the first problem's block, the aside, and
the one-line refusal of a wrong argument."""

import re
from dataclasses import dataclass, field

CASE = re.compile(r"^  ([✓✗○]) (.+?)(?: \(not checked yet: (.*)\))?$")
HEADLINE = re.compile(
    r"^(?P<name>[^\n:]+): (?:all (?P<all>\d+) checks passed\. Well done!|"
    r"(?P<passed>\d+) of (?P<total>\d+) checks passed(?:, (?P<open>\d+) not checked yet)?)$"
)
REFUSAL = re.compile(
    r"^(?P<check>\w+): you passed (?P<what>.+); (?P=check) wants (?P<wanted>.+), as in (?P<call>.+)\.$"
)
TRACEBACK = "Traceback (most recent call last)"


@dataclass
class CaseLine:
    mark: str  # ✓, ✗ or ○
    name: str
    why_open: str = ""


@dataclass
class Verdict:
    """The parts of one verdict's plain text."""

    text: str
    headline: str = ""
    cases: list[CaseLine] = field(default_factory=list)
    first_problem: str = ""  # the name after "First problem: "
    problem_block: str = ""  # from "First problem:" to the end, hints left out
    aside: list[str] = field(default_factory=list)

    @property
    def well_done(self) -> bool:
        return "Well done" in self.headline


def parse(text: str) -> Verdict:
    lines = text.splitlines()
    verdict = Verdict(text, lines[0] if lines else "")
    in_aside = False
    for i, line in enumerate(lines[1:], 1):
        match = CASE.match(line)
        if match and not verdict.first_problem:
            verdict.cases.append(CaseLine(match[1], match[2], match[3] or ""))
        elif line.startswith("First problem: "):
            verdict.first_problem = line.removeprefix("First problem: ")
            end = next(
                (j for j in range(i, len(lines)) if lines[j].startswith(("Hint ", "Stuck?"))),
                len(lines),
            )
            verdict.problem_block = "\n".join(lines[i:end])
        elif line.startswith("Also ") and line.endswith(":"):
            in_aside = True
        elif in_aside and line.startswith("  - "):
            verdict.aside.append(line[4:])
        else:
            in_aside = False
    return verdict


def sentences(text: str) -> list[str]:
    """The sentences of `text`: split after . ! or ? followed by a space, and at line ends."""
    found = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:- |how to fix it: |expected: |got: +|read more: )", "", line.strip())
        found += [s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip()]
    return found
