"""The verdict an exercise's self-check shows: one Case per check, the first failure in full,
and hints revealed one step at a time (the idea, then the API, then the answer)."""

import html
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from lessons_lib.display import message_box


@dataclass(frozen=True)
class Case:
    """One check of a learner's answer: what was tried and, if it failed, what to do."""

    name: str
    passed: bool
    expected: str = ""
    got: str = ""
    fix: str = ""
    read: str = ""  # where the course teaches this (sections.read_more)


@dataclass(frozen=True)
class Hint:
    """One step of an exercise's hint ladder: what kind of help it is, and the help."""

    label: str  # "the idea", "the PyTorch calls", "the answer"
    text: str
    code: str = ""  # shown after the text as a code block (the answer's source)


class ExerciseCheck:
    """The verdict on one exercise answer: `ok`, one Case per check, plain text or HTML.

    `hints` is a ladder revealed on request: `.hint(n)` shows the first n steps, and an
    unfinished verdict ends by saying how to ask (`hint_call` with `{}` for the level).
    """

    def __init__(
        self,
        name: str,
        cases: Sequence[Case],
        hints: Sequence[Hint] = (),
        hint_call: str = "",
        shown: int = 0,
    ) -> None:
        self.name = name
        self.cases = list(cases)
        self.hints = tuple(hints)
        self.hint_call = hint_call
        self.shown = shown

    def hint(self, level: object = 1) -> "ExerciseCheck":
        """The same verdict with the first `level` hints shown (0 hides them); never raises."""
        wanted = level if isinstance(level, int) else 0  # a bool is an int: True asks for 1
        shown = max(0, min(int(wanted), len(self.hints)))
        return ExerciseCheck(self.name, self.cases, self.hints, self.hint_call, shown)

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
            lines.append("Fix this one first, then run the check again.")
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
                "<p>Fix this one first, then run the check again.</p>"
            )
        for title, h in self._shown_hints():
            code = f"<pre>{html.escape(h.code)}</pre>" if h.code else ""
            body += f"<p><b>{html.escape(title)}:</b> {html.escape(h.text)}</p>{code}"
        ask = self._ask_for_hint()
        if ask:
            body += f"<p><i>{html.escape(ask)}</i></p>"
        return message_box(self._headline(), body, "ok" if self.ok else "problem")


def short(value: object) -> str:
    """A one-line description of a value: its repr, trimmed, plus dtype for tensors."""
    if isinstance(value, torch.Tensor):
        text = " ".join(repr(value.detach()).split())
        if value.dtype != torch.float32 and "dtype=" not in text:
            text = text[:-1] + f", dtype={value.dtype})"
        return text if len(text) <= 120 else text[:117] + "..."
    try:
        text = " ".join(repr(value).split())
    except Exception:  # a learner's object whose repr is broken
        text = f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def plain(value: object) -> str:
    """A short 1-d float tensor as plain numbers, "[0.5, 2, -1, 3]"; anything else as short()."""
    short_1d = isinstance(value, torch.Tensor) and value.dim() == 1 and value.numel() <= 8
    if short_1d and (value.is_floating_point() or value.dtype == torch.int64):
        return "[" + ", ".join(f"{v:g}" for v in value.tolist()) + "]"
    return short(value)
