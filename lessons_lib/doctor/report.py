"""The doctor's Report: its verdict on one Function, as plain text and as HTML."""

import html
import re
from collections.abc import Sequence

from lessons_lib.display import message_box
from lessons_lib.doctor.findings import CODES, Finding


class Report:
    """The doctor's verdict on one Function: `ok`, `codes`, and readable text or HTML."""

    def __init__(
        self,
        name: str,
        findings: Sequence[Finding],
        checked: str = "",
        notes: Sequence[str] = (),
        dtype: str = "",
    ) -> None:
        self.name = name
        self.dtype = dtype  # what the doctor computed in: "float64", or "float32 and float64"
        self.findings = sorted(findings, key=lambda f: CODES.index(f.code))
        self.checked = checked  # what a clean bill of health covered
        self.notes = list(notes)  # what is worth knowing but is not a mistake

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def codes(self) -> list[str]:
        return [f.code for f in self.findings]

    def _headline(self) -> str:
        judged = f" (checked in {self.dtype})" if self.dtype else ""
        if self.ok:
            return f"{self.name}: no problems found{judged}"
        count = len(self.findings)
        return f"{self.name}: {count} problem{'s' if count > 1 else ''} found{judged}"

    def __str__(self) -> str:
        lines = [self._headline()]
        if self.ok:
            lines.append(f"  {self.checked}")
        for f in self.findings:
            lines.append(f"[{f.code}] {f.what}")
            lines += [f"    {e}" for e in f.evidence]
            lines += [f"  Why it matters: {f.why}", f"  How to fix it: {f.fix}"]
            lines.append(f"  Read more: {f.section}")
            if f.further:
                lines.append(f"  Further reading: {f.further}")
        lines += [f"  Note: {n}" for n in self.notes]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        notes = "".join(f"<p><i>Note:</i> {html.escape(n)}</p>" for n in self.notes)
        if self.ok:
            body = f"<p>{html.escape(self.checked)}</p>{notes}"
            return message_box(self._headline(), body, "ok")
        parts = []
        for f in self.findings:
            evidence = "".join(f"<li><code>{html.escape(e)}</code></li>" for e in f.evidence)
            parts.append(
                f"<p><b>{html.escape(f.what)}</b> <small>({f.code})</small></p>"
                + (f"<ul>{evidence}</ul>" if evidence else "")
                + f"<p><i>Why it matters:</i> {html.escape(f.why)}<br>"
                f"<i>How to fix it:</i> {html.escape(f.fix)}<br>"
                f"<i>Read more:</i> {html.escape(f.section)}"
                + (f"<br><i>Further reading:</i> {html.escape(f.further)}" if f.further else "")
                + "</p>"
            )
        return message_box(self._headline(), "".join(parts) + notes, "problem")


def clean_bill(
    points: list[str],
    skipped: int,
    kinks: list[float],
    *,
    declared: bool,
    scaling: bool,
    layout: bool,
    double_backward: bool,
    jvp: bool,
) -> str:
    """What a report with no findings says the doctor checked, and where."""
    what = (
        "Forward values match the reference and gradients match grad_reference (the rule you "
        "declared)"
        if declared
        else "Forward values and gradients match the reference"
    )
    parts = [
        f"{what} at {_listed(points)}"
        + (
            f" ({skipped} skipped where the reference itself gives inf or NaN: outside its "
            "domain, or too large for the dtype)"
            if skipped
            else ""
        )
    ]
    if kinks:
        where = ", ".join(f"{k:g}" for k in kinks[:4]) + (", ..." if len(kinks) > 4 else "")
        parts[0] += (
            f", except at {_counted(len(kinks), 'points')} where the reference has a kink "
            f"({where}): there backward's gradient differs from the reference's but lies "
            "between its one-sided slopes, which is valid at a kink"
        )
    if scaling:
        parts.append("the gradient scales with grad_out")
    if layout:
        parts.append("a non-contiguous grad_out gives the same gradient")
    if double_backward:
        parts.append(
            "double backward gives the reference's second derivatives (along a random "
            "direction, at the sample and the random points)"
        )
    if jvp:
        parts.append("jvp (forward mode) matches the reference's, at the same points")
    parts.append("no tensor is kept as a plain attribute of ctx (ctx.x = x).")
    return "; ".join(parts)


def _counted(count: int, label: str) -> str:
    """'1 point of the sample', '12 points of the sample': the label's "points" in number."""
    label = re.sub(r"\bpoints\b", "point", label) if count == 1 else label
    return f"{count} {label}"


def _listed(parts: list[str]) -> str:
    """Parts such as "12 points of the sample" as one list, the tail samples merged."""
    merged: dict[str, int] = {}
    for part in parts:  # several tail samples read as one
        count, label = part.split(" ", 1)
        merged[label] = merged.get(label, 0) + int(count)
    items = [f"{_counted(count, label)}" for label, count in merged.items()]
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]
