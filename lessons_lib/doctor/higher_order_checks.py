"""The checks beyond the first derivative: double backward and forward mode (jvp) against the reference.

higher_order.py runs them safely; this module compares what they give and adds findings
and notes to the Examination.
"""

from typing import TYPE_CHECKING

import torch

from lessons_lib.doctor import words as say
from lessons_lib.doctor.compare import (
    between_slopes,
    close,
    elementwise_finite,
    output_mask,
    single_upstream,
)
from lessons_lib.doctor.evidence import MAX_EVIDENCE, evidence_lines
from lessons_lib.doctor.higher_order import (
    REFUSED,
    defines_jvp,
    forward_mode,
    is_once_differentiable,
    jvp_of,
    second_derivatives,
)
from lessons_lib.doctor.samples import Sample, random_directions, upstream_gradient

if TYPE_CHECKING:  # the examination passes itself in; importing it here would be circular
    from lessons_lib.doctor.record import Record

ONCE_DIFFERENTIABLE = (
    "PyTorch then raises when a second derivative needs this backward with a grad_out that "
    "carries a graph (as in the gradient of y**2), but where grad_out carries none (the "
    "gradient of y.sum()), this backward's share of the second derivative is silently zero."
)


def check_double_backward(exam: "Record", sample: Sample, ref_output, kinks: dict) -> None:
    """Differentiate backward along a random direction; compare with the reference's."""
    if is_once_differentiable(exam.fn):
        exam.note(f"Double backward was not checked: {REFUSED}. {ONCE_DIFFERENTIABLE}")
        return
    directions = random_directions(sample.inputs, seed=1)
    args = (sample.inputs, upstream_gradient, directions, exam.grad_reference, "reference")
    want = second_derivatives(exam.reference, *args)
    if want.failure:
        exam.note(
            "Double backward was not checked: the reference's own gradient could not be "
            f"differentiated ({want.failure})."
        )
        return
    got = second_derivatives(exam.fn.apply, *args[:3])
    if got.failure:
        if got.failure.message == REFUSED:  # a @once_differentiable helper inside backward
            exam.note(f"Double backward was not checked: {REFUSED}. {ONCE_DIFFERENTIABLE}")
            return
        exam.add(
            say.double_backward(
                f"Double backward raised {got.failure.kind}: {got.failure.message}",
                raised=True,
            )
        )
        return
    evidence = []
    first = next(d for d in directions if d is not None)
    for i, (g, w) in enumerate(zip(got.inputs, want.inputs, strict=True)):
        if w is not None:
            mask = w.isfinite() & ~kinks.get(i, torch.zeros_like(w, dtype=torch.bool))
            wrong = ~close(g, w) & mask & elementwise_finite(ref_output, w)
            quotes = (("grad_out", single_upstream(ref_output)), ("direction", directions[i]))
            prefix = f"d/d{exam.names[i]} of (direction · backward) "
            evidence += evidence_lines(
                wrong, sample.inputs, exam.names, w, g, at=i, prefix=prefix, quotes=quotes
            )
    for k, w in want.outputs.items():
        g = got.outputs.get(k, torch.zeros_like(w))
        mask = output_mask(w, kinks)
        if mask is not None:
            wrong = ~close(g, w) & mask
            label = "grad_out" if len(want.outputs) == 1 else f"grad_out {k}"
            evidence += evidence_lines(
                wrong,
                sample.inputs,
                exam.names,
                w,
                g,
                output=k,
                prefix=f"d/d{label} of (direction · backward) ",
                quotes=(("direction", first),),
            )
    if evidence:
        exam.add(
            say.double_backward(
                "Double backward is wrong: differentiating your backward does not give the "
                "reference's second derivatives.",
                tuple(evidence[:MAX_EVIDENCE]),
                intermediates=exam.saved_intermediates,
            )
        )
    exam.double_checked = True


def check_jvp(exam: "Record", sample: Sample, ref_output, kinks: dict) -> None:
    """Push a random tangent through the Function's jvp; compare with the reference's."""
    if not defines_jvp(exam.fn):
        return
    tangents = random_directions(sample.inputs, seed=2)
    want = forward_mode(exam.reference, sample.inputs, tangents, exam.grad_reference)
    if want.failure:
        exam.note(f"jvp was not checked: the reference's forward mode failed ({want.failure}).")
        return
    got = jvp_of(exam.fn, sample.inputs, tangents)
    if got.failure and got.failure.kind == "NotImplementedError":
        exam.note(
            "jvp was not checked: your jvp raises NotImplementedError, an honest refusal of "
            "forward mode, as torch's own does for a Function without a jvp."
        )
        return
    if got.failure:
        exam.add(say.jvp(f"jvp raised {got.failure.kind}: {got.failure.message}"))
        return
    evidence = []
    i = next(j for j, t in enumerate(tangents) if t is not None)
    for k, w in want.outputs.items():
        g = got.outputs.get(k, torch.zeros_like(w))
        if g.shape != w.shape:
            evidence.append(
                f"output {k}'s tangent has shape {tuple(g.shape)}, not {tuple(w.shape)}"
            )
            continue
        mask = output_mask(w, kinks)
        if mask is None:
            continue
        wrong = ~close(g, w) & mask & elementwise_finite(ref_output, w)
        if len(want.outputs) == 1 and i in kinks and kinks[i].shape == w.shape:
            wrong |= _jvp_off_kinks(exam, sample, ref_output, i, kinks[i], g, w, tangents[i])
        evidence += evidence_lines(
            wrong,
            sample.inputs,
            exam.names,
            w,
            g,
            output=k,
            prefix="tangent ",
            quotes=(("tangent", tangents[i]),),
        )
    if evidence:
        exam.add(
            say.jvp(
                "jvp is wrong: forward mode through your Function does not match the "
                "reference's derivative.",
                tuple(evidence[:MAX_EVIDENCE]),
            )
        )
    exam.jvp_checked = True


def _jvp_off_kinks(
    exam: "Record", sample, ref_output, i, kinks, got, want, tangent
) -> torch.Tensor:
    """At a kink, jvp may push any slope between the one-sided ones: flag only the others."""
    wrong = torch.zeros_like(kinks)
    upstream = single_upstream(ref_output)
    for index in (kinks & ~close(got, want)).nonzero().tolist():
        spot = tuple(index)
        scale = tangent[spot].item() / upstream[spot].item()  # slopes come weighted by grad_out
        value = got[spot].item()
        wrong[spot] = not between_slopes(exam.reference, sample.inputs, i, spot, value, scale)
    return wrong
