"""An attempt, and deduplication by behaviour: two attempts that do the same thing on the
probe inputs (same values, same exceptions, same notepad) count once.

The signature is computed by running the attempt itself, never from a check's output.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

MISSING = object()  # the check called with no argument at all


@dataclass
class Attempt:
    """One thing a learner might pass to a check: a loaded mutant of a course source, or a
    wrong argument."""

    check: str  # the check's name: "check_cube"
    label: str  # the mutations that made it, or what the argument is
    learner: object = MISSING  # what is passed to the check
    source: str = ""  # the mutant's whole source ("" for a wrong argument)
    base: str = ""  # the source it was mutated from
    argument: bool = False  # True for a wrong argument
    facts: object = None  # what running the attempt recorded (the exercise's own kind)
    signature: tuple = ()
    notes: dict = field(default_factory=dict)


def distinct(attempts: Iterable[Attempt], signature: Callable[[Attempt], tuple]) -> list[Attempt]:
    """The first attempt (by label) of each behaviour, sorted by label."""
    kept: dict[tuple, Attempt] = {}
    for attempt in sorted(attempts, key=lambda a: a.label):
        attempt.signature = signature(attempt)
        kept.setdefault(attempt.signature, attempt)
    return sorted(kept.values(), key=lambda a: a.label)
