"""The one harness every exercise's self-check runs in.

- `contained()`: a learner's code runs with torch's global state put back and its warnings
  caught, whatever it does.
- `refused()`: the one-line verdict when the learner passed the wrong kind of thing (or
  nothing), under the course's one policy: `Cube` and `Cube.apply` both mean the Function.
- `ExerciseCheck`: the verdict, one Case per check (passed, failed, or not checked yet),
  the first failure in full, an optional
  aside (such as every other bug missed), and hints revealed one step at a time (the idea,
  then the API, then the answer); as plain text or HTML.
"""

import copy
import dataclasses
import html
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from lessons_lib.display import message_box
from lessons_lib.running import as_function, preserved_global_state
from lessons_lib.running.arguments import is_plain_function, what_was_passed, wrong_argument

FIX_FIRST = "Fix this one first, then run the check again."
FIX_THE_FIRST = "fix the first problem, then run the check again"


@dataclass(frozen=True)
class Case:
    """One check of a learner's answer: what was tried and, if it failed, what to do.

    Three states: passed (✓), failed (✗), and not checked yet (○, `checked=False`), for a
    check an earlier problem stopped; only a check that ran is ever shown as passed or failed.
    """

    name: str
    passed: bool
    expected: str = ""
    got: str = ""
    fix: str = ""
    read: str = ""  # where the course teaches this (sections.read_more)
    checked: bool = True  # False: not run, because an earlier problem makes it meaningless

    @classmethod
    def not_checked(cls, name: str, why: str = "") -> "Case":
        """A check that did not run: neither ✓ nor ✗, with the reason, and never a 'fix'."""
        return cls(name, False, got=why or FIX_THE_FIRST, checked=False)

    @property
    def mark(self) -> str:
        return "✓" if self.passed else "✗" if self.checked else "○"

    @property
    def line(self) -> str:
        """The case's line in a verdict: its mark, its name and, if it did not run, why."""
        if self.checked:
            return f"{self.mark} {self.name}"
        return f"{self.mark} {self.name} (not checked yet: {self.got})"


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
    unfinished verdict ends by saying how to ask (`hint_call` with `{}` for the level, and
    `{name}` where the learner's own name for what was checked goes).
    `aside` is shown under the first problem, when there is one. `refused` replaces all of
    it with one line, for a wrong or missing argument (exercises.base.refused).
    """

    def __init__(
        self,
        name: str,
        cases: Sequence[Case],
        hints: Sequence[Hint] = (),
        hint_call: str = "",
        shown: int = 0,
        aside: Aside | None = None,
        refused: str = "",
    ) -> None:
        self.name = name
        self.cases = list(cases)
        self.hints = tuple(hints)
        self.hint_call = hint_call
        self.shown = shown
        self.aside = aside
        self.refused = refused
        self.hint_problem = ""  # a hint level that is not one: said, not ignored

    def hint(self, level: object = 1) -> "ExerciseCheck":
        """The same verdict with the first `level` hints shown (0 hides them); never raises."""
        shown = copy.copy(self)  # of the same class, with everything else kept
        if self.refused:  # a refusal is its one line, whatever was asked
            return shown
        whole = isinstance(level, int) and not isinstance(level, bool)
        shown.shown = min(level, len(self.hints)) if whole and level >= 0 else 0
        fits = whole and 0 <= level <= len(self.hints)
        shown.hint_problem = "" if fits else hint_problem(level, len(self.hints))
        return shown

    @property
    def ok(self) -> bool:
        """True when every check ran and passed."""
        return not self.refused and all(c.passed for c in self.cases)

    @property
    def checks_passed(self) -> int:
        """How many checks ran and passed (0 for a refusal): nbgrader's points, the progress line."""
        return 0 if self.refused else sum(c.passed for c in self.cases)

    @property
    def checks_total(self) -> int:
        """How many checks the verdict holds, run or not (0 for a refusal)."""
        return 0 if self.refused else len(self.cases)

    @property
    def first_failure(self) -> Case | None:
        """The first check that ran and failed, or None."""
        return next((c for c in self.cases if c.checked and not c.passed), None)

    def _headline(self) -> str:
        if self.refused:
            return self.refused
        passed = self.checks_passed
        if self.ok:
            return f"{self.name}: all {passed} checks passed. Well done!"
        waiting = sum(not c.checked for c in self.cases)
        later = f", {waiting} not checked yet" if waiting else ""
        return f"{self.name}: {passed} of {self.checks_total} checks passed{later}"

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
        text = f"Stuck? {self.hint_call.format(self.shown + 1, name=self.name)} shows {nxt.label}"
        return text + (f" ({', then '.join(following)})." if following else ".")

    def _aside_shown(self) -> Aside | None:
        return self.aside if self.aside is not None and self.aside.items else None

    def __str__(self) -> str:
        lines = [self._headline()]
        if self.refused:
            return "\n".join(lines + ([self.hint_problem] if self.hint_problem else []))
        lines += [f"  {c.line}" for c in self.cases]
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
        if self.hint_problem:
            lines.append(self.hint_problem)
        for title, h in self._shown_hints():
            lines.append(f"{title}: {h.text}")
            lines += ["    " + line if line else "" for line in h.code.splitlines()]
        ask = self._ask_for_hint()
        if ask:
            lines.append(ask)
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        if self.refused:
            note = f"<p>{html.escape(self.hint_problem)}</p>" if self.hint_problem else ""
            return message_box(self.refused, note, "problem")
        items = "".join(f"<li>{html.escape(c.line)}</li>" for c in self.cases)
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
        if self.hint_problem:
            body += f"<p>{html.escape(self.hint_problem)}</p>"
        for title, h in self._shown_hints():
            code = f"<pre>{html.escape(h.code)}</pre>" if h.code else ""
            body += f"<p><b>{html.escape(title)}:</b> {html.escape(h.text)}</p>{code}"
        ask = self._ask_for_hint()
        if ask:
            body += f"<p><i>{html.escape(ask)}</i></p>"
        return message_box(self._headline(), body, "ok" if self.ok else "problem")


def hint_problem(level: object, ladder: int) -> str:
    """The line a verdict adds for a hint level that is not a whole number from 0 to `ladder`."""
    return f"hint must be a whole number from 0 to {ladder}; you passed {what_was_passed(level)}."


@contextmanager
def contained() -> Iterator[list[warnings.WarningMessage]]:
    """Run learner code so that nothing it does outlives it: torch's grad mode, default dtype,
    RNG and anomaly mode are put back, and its warnings are caught (and given back), never
    shown: the learner reads the verdict, not torch's warnings."""
    with preserved_global_state(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


@dataclass(frozen=True)
class Wanted:
    """What a self-check takes: its name, the learner's thing in words, and the right call."""

    check: str  # "check_cube"
    wanted: str  # "your Cube class"
    call: str  # "check_cube(Cube)"
    wants_class: bool  # a Function (`Cube` or `Cube.apply`), else a plain function


def refused(value: object, wanted: Wanted) -> ExerciseCheck | None:
    """The one-line verdict when `value` is not what the check takes (or is missing); None
    when it is. A Function is `Cube` or `Cube.apply`; a plain function is one the learner
    wrote (def or lambda), never a built-in, a class or a Function's apply."""
    fits = as_function(value) is not None if wanted.wants_class else is_plain_function(value)
    if fits:
        return None
    line = wrong_argument(wanted.check, value, wanted.wanted, wanted.call)
    return ExerciseCheck(wanted.check, [], refused=line)


def named_as_written(cases: Sequence[Case], placeholder: str, name: str) -> list[Case]:
    """The cases with the task's name for the learner's function (my_nudge) replaced by the
    name of the function that was in fact checked (central_difference), so that no line
    says my_nudge ran when another function did."""
    if name == placeholder or not name.isidentifier():
        return list(cases)
    word = re.compile(rf"\b{re.escape(placeholder)}\b")
    fields = ("name", "expected", "got", "fix")
    return [
        dataclasses.replace(c, **{f: word.sub(name, getattr(c, f)) for f in fields}) for c in cases
    ]


def learners_name(value: object, fallback: str = "") -> str:
    """The name a learner gave what they passed, or its type's name (or `fallback`)."""
    function = as_function(value)
    if function is not None and function is not value:  # Cube.apply: "apply" says nothing
        return f"{function.__name__}.apply"
    name = getattr(value, "__name__", None)
    if isinstance(name, str) and (name.isidentifier() or not fallback):
        return name
    return fallback or type(value).__name__
