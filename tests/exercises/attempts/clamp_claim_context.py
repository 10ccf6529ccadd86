"""What a claim-checker reads (the attempt, its verdict, the run the first problem is about,
the attempt's source tree), and how a verdict may fairly write a value it quotes.
"""

import ast
import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import torch

from tests.exercises.attempts.clamp_attempts import Attempt
from tests.exercises.attempts.clamp_facts import BROKEN, Run
from tests.exercises.attempts.clamp_oracles import CORRECT_WORDS, EDGE_BUG_WORDS
from tests.exercises.attempts.clamp_verdict import Verdict


@dataclass(frozen=True)
class Context:
    """What a claim-checker reads: the attempt (its facts), the verdict, the run the first
    problem is about (the Clamp01 its case names), and the attempt's source tree."""

    attempt: Attempt
    verdict: Verdict
    run: Run | None
    tree: ast.AST | None


Checker = Callable[[Context], list[str]]


def relevant_clamp(case: str) -> str:
    """The Clamp01 a case line is about: a correct one, a broken one, or the course's."""
    if case.startswith("passes "):
        return next((c for w, c in CORRECT_WORDS.items() if w in case), "course_clamp01")
    if case.startswith("catches "):
        key = re.match(r"catches ([a-z-]+):", case)
        if key and key.group(1) in BROKEN:
            return key.group(1)
        return next((b for w, b in EDGE_BUG_WORDS.items() if w in case), "course_clamp01")
    return "course_clamp01"


def context(attempt: Attempt, verdict: Verdict) -> Context:
    run = None
    if attempt.facts is not None:
        run = attempt.facts.runs[relevant_clamp(verdict.first_problem)]
    tree = None
    if attempt.wrong is None:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(attempt.value)))
        except (OSError, TypeError, SyntaxError):
            tree = None
    return Context(attempt, verdict, run, tree)


def numbers(t: torch.Tensor | None) -> str:
    """A tensor's numbers as the verdicts quote them, [a, b, c] with :g (our own writing)."""
    if t is None:
        return "nothing"
    values = t.flatten().tolist()
    text = ", ".join(f"{v:g}" for v in values[:8])
    return f"[{text}{', ...' if len(values) > 8 else ''}]"


def _value_words(value: object) -> list[str]:
    """Ways a verdict may fairly name a returned value."""
    if isinstance(value, torch.Tensor):
        text = " ".join(repr(value.detach()).split())
        return [text[:60], numbers(value), "a tensor"]
    return [" ".join(repr(value).split())[:60], type(value).__name__]


def _plain(text: str) -> str:
    """Text with spaces and a tensor's dtype left out, to compare two writings of a value."""
    return re.sub(r",\s*dtype=torch\.\w+", "", "".join(text.split()))


def names_the_value(said: str, value: object) -> bool:
    """Whether what a verdict said is one of the ways it may fairly name value."""
    said = _plain(said)
    return any(w and (_plain(w) in said or said in _plain(w)) for w in _value_words(value))
