"""The one harness every exercise's self-check runs in.

- `contained()`: a learner's code runs with torch's global state put back and its warnings
  caught, whatever it does.
- `refusal()`: the first case when the learner passed the wrong kind of thing, under the
  course's one policy: `Cube` and `Cube.apply` both mean the Function.
- `ExerciseCheck`: the verdict, one Case per check, the first failure in full, an optional
  aside (such as every other bug missed), and hints revealed one step at a time (the idea,
  then the API, then the answer); as plain text or HTML.
"""

import copy
import html
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from lessons_lib.display import message_box
from lessons_lib.running import as_function, describe_non_function, preserved_global_state, short

FIX_FIRST = "Fix this one first, then run the check again."


@dataclass(frozen=True)
class Case:
    """One check of a learner's answer: what was tried and, if it failed, what to do."""

    name: str
    passed: bool
    expected: str = ""
    got: str = ""
    fix: str = ""
    read: str = ""  # where the course teaches this (sections.read_more)
    counted: bool = True  # False: not judged, because an earlier problem makes it meaningless

    @classmethod
    def not_counted(cls, name: str, why: str) -> "Case":
        """A check left unjudged: shown as not passed, with the reason, and never a 'fix'."""
        return cls(name, False, got=f"not counted: {why}", counted=False)


@dataclass(frozen=True)
class Hint:
    """One step of an exercise's hint ladder: what kind of help it is, and the help."""

    label: str  # "the idea", "the PyTorch calls", "the answer"
    text: str
    code: str = ""  # shown after the text as a code block (the answer's source)


@dataclass(frozen=True)
class Aside:
    """A titled list the verdict shows after the first problem, before "Fix this one first"."""

    title: str
    items: tuple[str, ...] = field(default_factory=tuple)


class ExerciseCheck:
    """The verdict on one exercise answer: `ok`, one Case per check, plain text or HTML.

    `hints` is a ladder revealed on request: `.hint(n)` shows the first n steps, and an
    unfinished verdict ends by saying how to ask (`hint_call` with `{}` for the level).
    `aside` is shown under the first problem, when there is one.
    """

    def __init__(
        self,
        name: str,
        cases: Sequence[Case],
        hints: Sequence[Hint] = (),
        hint_call: str = "",
        shown: int = 0,
        aside: Aside | None = None,
    ) -> None:
        self.name = name
        self.cases = list(cases)
        self.hints = tuple(hints)
        self.hint_call = hint_call
        self.shown = shown
        self.aside = aside

    def hint(self, level: object = 1) -> "ExerciseCheck":
        """The same verdict with the first `level` hints shown (0 hides them); never raises."""
        wanted = level if isinstance(level, int) else 0  # a bool is an int: True asks for 1
        shown = copy.copy(self)  # of the same class, with everything else kept
        shown.shown = max(0, min(int(wanted), len(self.hints)))
        return shown

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return all(c.passed for c in self.cases)

    @property
    def first_failure(self) -> Case | None:
        """The first check that failed, or None."""
        return next((c for c in self.cases if not c.passed), None)

    def _headline(self) -> str:
        passed = sum(c.passed for c in self.cases)
        if self.ok:
            return f"{self.name}: all {passed} checks passed. Well done!"
        return f"{self.name}: {passed} of {len(self.cases)} checks passed"

    def _shown_hints(self) -> list[tuple[str, Hint]]:
        total = len(self.hints)
        return [(f"Hint {n} of {total} ({h.label})", h) for n, h in enumerate(self.hints, 1)][
            : self.shown
        ]

    def _ask_for_hint(self) -> str:
        """How to reveal the next hint, or "" when none is left or none is needed."""
        if self.ok or self.shown >= len(self.hints) or not self.hint_call:
            return ""
        following = [
            f"hint={n} {h.label}" for n, h in enumerate(self.hints, 1) if n > self.shown + 1
        ]
        nxt = self.hints[self.shown]
        text = f"Stuck? {self.hint_call.format(self.shown + 1)} shows {nxt.label}"
        return text + (f" ({', then '.join(following)})." if following else ".")

    def _aside_shown(self) -> Aside | None:
        return self.aside if self.aside is not None and self.aside.items else None

    def __str__(self) -> str:
        lines = [self._headline()]
        lines += [f"  {'✓' if c.passed else '✗'} {c.name}" for c in self.cases]
        failure = self.first_failure
        if failure is not None:
            lines += [
                f"First problem: {failure.name}",
                f"  expected: {failure.expected}",
                f"  got:      {failure.got}",
                f"  how to fix it: {failure.fix}",
            ]
            if failure.read:
                lines.append(f"  read more: {failure.read}")
            aside = self._aside_shown()
            if aside is not None:
                lines += [aside.title, *(f"  - {item}" for item in aside.items)]
            lines.append(FIX_FIRST)
        for title, h in self._shown_hints():
            lines.append(f"{title}: {h.text}")
            lines += ["    " + line if line else "" for line in h.code.splitlines()]
        ask = self._ask_for_hint()
        if ask:
            lines.append(ask)
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        items = "".join(
            f"<li>{'✓' if c.passed else '✗'} {html.escape(c.name)}</li>" for c in self.cases
        )
        body = f'<ul style="list-style: none; padding-left: 0.5em;">{items}</ul>'
        failure = self.first_failure
        if failure is not None:
            read = f"<br><i>Read more:</i> {html.escape(failure.read)}" if failure.read else ""
            body += (
                f"<p><b>First problem: {html.escape(failure.name)}</b><br>"
                f"<i>Expected:</i> <code>{html.escape(failure.expected)}</code><br>"
                f"<i>Got:</i> <code>{html.escape(failure.got)}</code><br>"
                f"<i>How to fix it:</i> {html.escape(failure.fix)}{read}</p>"
            )
            aside = self._aside_shown()
            if aside is not None:
                listed = "".join(f"<li>{html.escape(item)}</li>" for item in aside.items)
                body += f"<p><b>{html.escape(aside.title)}</b></p><ul>{listed}</ul>"
            body += f"<p>{FIX_FIRST}</p>"
        for title, h in self._shown_hints():
            code = f"<pre>{html.escape(h.code)}</pre>" if h.code else ""
            body += f"<p><b>{html.escape(title)}:</b> {html.escape(h.text)}</p>{code}"
        ask = self._ask_for_hint()
        if ask:
            body += f"<p><i>{html.escape(ask)}</i></p>"
        return message_box(self._headline(), body, "ok" if self.ok else "problem")


@contextmanager
def contained() -> Iterator[list[warnings.WarningMessage]]:
    """Run learner code so that nothing it does outlives it: torch's grad mode, default dtype,
    RNG and anomaly mode are put back, and its warnings are caught (and given back), never
    shown: the learner reads the verdict, not torch's warnings."""
    with preserved_global_state(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


@dataclass(frozen=True)
class Refusal:
    """The words of an exercise's first case, for when the wrong kind of thing was passed.

    `call` is the check's right call with `{}` for the learner's name ("check_cube({})").
    `got` describes a refused value for a check that wants a plain
    function (a check that wants a class says it with running.describe_non_function); `fix`
    may depend on the value.
    """

    name: str
    expected: str
    call: str
    fix: str | Callable[[object], str]
    got: Callable[[object], str] | None = None


def refusal(value: object, words: Refusal, wants_class: bool) -> Case | None:
    """The first case when `value` is not what the check wants; None when it is.

    `wants_class=True`: the check wants the learner's Function (check_cube(Cube)), and
    accepts `Cube` and `Cube.apply` alike. `wants_class=False`: it wants a plain function
    (check_cube_grad(cube_grad)), and refuses a Function in either form, and anything not
    callable.
    """
    if wants_class:
        if as_function(value) is not None:
            return None
        got = describe_non_function(value, words.call)
    else:
        plain_function = callable(value) and as_function(value) is None
        if plain_function and not isinstance(value, torch.Tensor):
            return None
        # A Function in either form is named as one; the exercise's words say the rest.
        got = (words.got if words.got and as_function(value) is None else what_was_passed)(value)
    fix = words.fix(value) if callable(words.fix) else words.fix
    return Case(words.name, False, words.expected, got, fix)


def what_was_passed(value: object) -> str:
    """What was passed where a plain function was wanted: a Function, its apply, or a value."""
    function = as_function(value)
    if function is not None and function is not value:
        return f"{function.__name__}.apply, a Function's apply"
    if function is not None:
        return f"the Function {function.__name__}"
    return f"{type(value).__name__} {short(value)}"


def learners_name(value: object, fallback: str = "") -> str:
    """The name a learner gave what they passed, or its type's name (or `fallback`)."""
    function = as_function(value)
    if function is not None and function is not value:  # Cube.apply: "apply" says nothing
        return f"{function.__name__}.apply"
    name = getattr(value, "__name__", None)
    if isinstance(name, str) and (name.isidentifier() or not fallback):
        return name
    return fallback or type(value).__name__
