"""How the doctor quotes what it found: lines such as "at x = 2: expected 12, got 6"."""

from typing import TYPE_CHECKING

import torch

from lessons_lib.doctor import words as say
from lessons_lib.doctor.compare import close, single_upstream
from lessons_lib.doctor.findings import Finding
from lessons_lib.doctor.samples import Sample, upstream_gradient
from lessons_lib.running import SCALE, EngineRun, SavedChange, as_tuple, differentiable

if TYPE_CHECKING:  # the examination passes itself in; importing it here would be circular
    from lessons_lib.doctor.record import Record

MAX_EVIDENCE = 3


def evidence_lines(
    wrong: torch.Tensor,
    inputs: tuple,
    names: list[str],
    expected: torch.Tensor,
    got: torch.Tensor,
    *,
    at: int | None = None,
    output: int = 0,
    prefix: str = "",
    quotes: tuple[tuple[str, torch.Tensor | None], ...] = (),
    says: str = "expected {expected}, got {got}",
) -> tuple[str, ...]:
    """A few 'at ...: expected ..., got ...' lines where values disagree.

    Values shaped like input `at` are placed by that input's element ("x[0, 1] = -1.5");
    otherwise they are output-shaped and placed by output element, with the input's
    value beside it where the shapes match. `quotes` adds the named values (grad_out,
    a direction, a tangent) at the same element, where their shape matches too. `says`
    words the two values where "expected" would not be the true value.
    """
    x_index = at if at is not None else next(i for i, a in enumerate(inputs) if differentiable(a))
    x, x_name = inputs[x_index], names[x_index]
    lines = []
    for index in wrong.nonzero()[:MAX_EVIDENCE].tolist():
        spot, subscript = tuple(index), ", ".join(map(str, index))
        same_shape = isinstance(x, torch.Tensor) and x.shape == wrong.shape
        x_at = f"{x_name}[{subscript}]" if same_shape and x.dim() > 1 else x_name
        x_at = f"{x_at} = {x[spot].item():.4g}" if same_shape else ""
        extras = [
            f"{name} {t[spot].item():.4g}"
            for name, t in quotes
            if t is not None and t.shape == wrong.shape
        ]
        if at is not None and x_at:
            where = x_at
        else:
            where = f"output[{subscript}]" if output == 0 else f"output {output}[{subscript}]"
            extras = [x_at, *extras] if x_at else extras
        where += f" ({', '.join(extras)})" if extras else ""
        shown = distinct(expected[spot].item(), got[spot].item())
        lines.append(f"{prefix}at {where}: {says.format(expected=shown[0], got=shown[1])}")
    return tuple(lines)


def distinct(a: float, b: float) -> tuple[str, str]:
    """a and b with 4 significant digits, or the fewest up to 17 at which they read differently.

    The doctor flags values that differ by more than RTOL (1e-5 relative), finer than 4
    digits show: "expected 36.75, got 36.75" would contradict the finding it supports.
    """
    for digits in range(4, 18):
        shown = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if shown[0] != shown[1]:
            return shown
    return f"{a:.4g}", f"{b:.4g}"  # equal values (a NaN flagged for its position, say)


def grad_out_quotes(ref_output) -> tuple[tuple[str, torch.Tensor], ...]:
    """grad_out to quote beside the evidence: one per float output ("grad_out 1") if several."""
    outputs = [
        (k, o)
        for k, o in enumerate(as_tuple(ref_output))
        if isinstance(o, torch.Tensor) and o.is_floating_point()
    ]
    if len(outputs) == 1:
        return (("grad_out", upstream_gradient(outputs[0][1], outputs[0][0])),)
    return tuple((f"grad_out {k}", upstream_gradient(o, k)) for k, o in outputs)


def scaled_evidence(
    exam: "Record", run: EngineRun, i: int, sample: Sample, ref_output, domain
) -> tuple:
    """One line from the second run, where grad_out was doubled and negated.

    "expected" is the intended gradient for that grad_out, computed afresh.
    """
    scaled = run.scaled[i]
    if not isinstance(scaled, torch.Tensor) or scaled.shape != sample.inputs[i].shape:
        return ()

    def doubled_and_negated(output: torch.Tensor, index: int) -> torch.Tensor:
        return SCALE * upstream_gradient(output, index)

    want = exam.intended_for(sample, ref_output, doubled_and_negated, i)
    if want is None or want.shape != scaled.shape:
        return ()
    upstream = single_upstream(ref_output)
    quotes = (("grad_out", None if upstream is None else SCALE * upstream),)
    wrong = ~close(scaled, want) & domain & want.isfinite()
    prefix = "then, with grad_out doubled and negated, "
    lines = evidence_lines(
        wrong, sample.inputs, exam.names, want, scaled, at=i, prefix=prefix, quotes=quotes
    )
    return lines[:1]


def mutated_grad_out(run: EngineRun, sample: Sample, names: list[str]) -> Finding:
    """What backward wrote into grad_out, against what autograd had put there."""
    evidence, which = [], ""
    for k, after in run.mutated_grad_outs.items():
        before = upstream_gradient(run.outputs[k], k)
        changed = ~close(after, before)
        evidence += evidence_lines(
            changed,
            sample.inputs,
            names,
            before,
            after,
            output=k,
            prefix="grad_out ",
            says="autograd passed {expected}, backward left {got}",
        )
        which = "" if len(run.outputs) == 1 else f" for output {k}"
    return say.mutates_grad_out(which, tuple(evidence[:MAX_EVIDENCE]))


def mutated_saved(change: SavedChange, sample: Sample, names: list[str]) -> Finding:
    """Which saved tensor backward changed, and its values before and after."""
    before, after = change.before, change.after
    evidence = ()
    if before.is_floating_point() and before.shape == after.shape:
        changed = ~close(after, before) | (after.isnan() != before.isnan())
        kind, index = change.role or ("", 0)
        placed = {  # where the changed tensor came from, and how its lines read
            "input": {"at": index, "says": "backward changed it to {got}"},
            "output": {
                "output": index,
                "prefix": "the output ",
                "says": "was {expected}, backward changed it to {got}",
            },
        }.get(kind)
        if kind == "input" and before.shape != sample.inputs[index].shape:
            placed = None
        if placed is not None:
            evidence = evidence_lines(changed, sample.inputs, names, before, after, **placed)
    return say.mutates_saved(change, names, evidence[:MAX_EVIDENCE])
