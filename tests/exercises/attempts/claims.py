"""Claim-checkers: each finds one kind of sentence about the learner's code in a verdict (a
pattern) and checks it against what the test itself recorded by running the attempt (a
verifier), independently of the lessons_lib code that wrote the sentence.

A verifier returns True (the claim is true), False (false: a problem) or None (this test
cannot tell, which is not counted). Kinds a test cannot verify at all are listed, with why,
in the module of the check they belong to (UNVERIFIED).
"""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tests.exercises.attempts.arguments import describes, what_it_is
from tests.exercises.attempts.distinct import Attempt


@dataclass
class Problem:
    kind: str
    said: str  # the line (or excerpt) of the output at fault
    why: str


@dataclass(frozen=True)
class ClaimKind:
    """One kind of sentence, and how to tell whether it is true of an attempt."""

    name: str
    pattern: re.Pattern
    verify: Callable[[re.Match, Attempt], bool | None]
    why: Callable[[re.Match, Attempt], str] = lambda found, attempt: ""
    needs_facts: bool = True  # False: verified from the attempt itself (what was passed)


def false_claims(kinds: Sequence[ClaimKind], text: str, attempt: Attempt) -> list[Problem]:
    """Every sentence of `text` some kind recognises and finds false, once per kind and line."""
    found = []
    for kind in kinds:
        if kind.needs_facts and attempt.facts is None:
            continue  # a refused argument: nothing ran
        for line in text.splitlines():
            for match in kind.pattern.finditer(line):
                if kind.verify(match, attempt) is False:
                    why = kind.why(match, attempt)
                    found.append(Problem(f"e: {kind.name}", line.strip(), why))
                    break
    return found


def claim(name: str, pattern: str, verify, why=None, needs_facts: bool = True) -> ClaimKind:
    return ClaimKind(
        name, re.compile(pattern), verify, why or (lambda found, attempt: ""), needs_facts
    )


def _passed(what: str, attempt: Attempt) -> bool:
    """ "you passed <what>" is true of what the attempt passed."""
    if not attempt.argument:  # the learner's own answer
        return what in ("your class", "your function") or what.startswith("the function ")
    if what.startswith("the result of calling"):
        return attempt.label.endswith("the result of a call")
    return describes(what, attempt.learner)


YOU_PASSED = claim(
    '"you passed <what>"',
    r"\b[Yy]ou passed (?!to )(?P<what>your class|your function|the [Ff]unction class \w+|[^;:\n]+?)"
    r"(?=; |, not |: |\.$|$)",
    lambda found, attempt: _passed(found["what"], attempt),
    lambda found, attempt: f"what was passed: {what_it_is(attempt.learner)}",
    needs_facts=False,
)
