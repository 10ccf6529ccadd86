"""The doctor's record of one examination: the Function, its reference, what was found.

Every check (first_order.py, higher_order_checks.py, evidence.py) reads the record and adds
its findings and notes to it; examination.py runs the checks in order, sample by sample.
"""

import dataclasses
import inspect
from collections.abc import Callable

import torch

from lessons_lib.doctor import words as say
from lessons_lib.doctor.compare import FORMULA_ACCURACY
from lessons_lib.doctor.findings import Finding
from lessons_lib.doctor.report import Report, clean_bill
from lessons_lib.doctor.samples import Sample, upstream_gradient
from lessons_lib.running import (
    Failure,
    LessonError,
    Upstream,
    as_tuple,
    differentiable,
    fresh_inputs,
    vjp,
)


class Record:
    """What the examination has found so far, and what every check reads: the Function, its
    reference, the names of its inputs; the checks add their findings and notes here."""

    def __init__(self, fn: type, reference: Callable, grad_reference, inputs: tuple) -> None:
        self.fn, self.reference, self.grad_reference = fn, reference, grad_reference
        self.names = _input_names(fn, len(inputs))
        dtypes = sorted({str(a.dtype).removeprefix("torch.") for a in inputs if differentiable(a)})
        self.dtype = " and ".join(dtypes)  # what the doctor computes in: the inputs' dtypes
        self.grad_out_names = _grad_out_names(fn)
        self.found: dict[tuple, Finding] = {}
        self.notes: list[str] = []
        self.points: list[str] = []  # "12 values of the sample", ...
        self.skipped = 0  # points where the reference gives inf or NaN
        self.kinks: set[float] = set()  # inputs where backward differed at a kink, accepted
        self.true_grads: tuple | None = None  # the reference's own gradient, on this sample
        self.double_checked = self.jvp_checked = False
        self.scaling_checked = self.layout_checked = False  # what the clean bill may claim
        self.sample: Sample | None = None  # the sample being examined
        self.saved_intermediates = 0  # saved tensors neither inputs nor outputs (first run)
        self.inexact: dict[int, float] = {}  # input: its gradient's largest relative error, passed

    # -- bookkeeping --

    def add(self, finding: Finding, key: object = None) -> None:
        """Keep the first finding of each code (per input, with `key`), saying where it was."""
        if not self.sample.first and finding.evidence and finding.code != "error":
            where = (f"(found among the {self.sample.label})",)
            finding = dataclasses.replace(finding, evidence=finding.evidence + where)
        self.found.setdefault((finding.code, key), finding)

    def note(self, text: str) -> None:
        """Keep something worth knowing that is not a mistake, once."""
        if text not in self.notes:
            self.notes.append(text)

    def has(self, *codes: str) -> bool:
        return any(code in codes for code, _ in self.found)

    def report(self, name: str) -> Report:
        checked = "" if self.found else self._clean_bill()
        findings = list(self.found.values())
        if self.has("forward"):  # the gradient may be right for the forward that was written
            findings = [say.after_wrong_forward(f) if f.code == "gradient" else f for f in findings]
        wrong = {
            key for code, key in self.found if code in ("gradient", "chain-rule", "non-finite")
        }
        inexact = [
            say.inexact(self.names[i], error, FORMULA_ACCURACY)
            for i, error in self.inexact.items()
            if i not in wrong  # a wrong gradient somewhere: its finding says more
        ]
        return Report(name, findings, checked, self.notes + inexact, self.dtype)

    def _clean_bill(self) -> str:
        return clean_bill(
            self.points,
            self.skipped,
            sorted(self.kinks),
            declared=self.grad_reference is not None,
            scaling=self.scaling_checked,
            layout=self.layout_checked,
            double_backward=self.double_checked,
            jvp=self.jvp_checked,
        )

    # -- what the Function is compared with --

    def intended_for(self, sample: Sample, ref_output, upstream: Upstream, i: int):
        """The intended gradient for input i when grad_out is `upstream`; None if unknown."""
        if self.grad_reference is None:
            truth = vjp(self.reference, sample.inputs, upstream)
            return None if truth.failure else truth.grads[i]
        return intended(self.grad_reference, sample.inputs, ref_output, upstream)[i]

    def output_label(self, k: int) -> str:
        """output 1 (g3 in backward): forward's output k, with backward's name for its grad_out."""
        named = len(self.grad_out_names) > k
        return f"output {k} ({self.grad_out_names[k]} in backward)" if named else f"output {k}"


def intended(
    grad_reference: Callable, inputs: tuple, ref_output, upstream: Upstream = upstream_gradient
) -> tuple:
    """The surrogate gradient for `upstream`, one entry per input (None for non-tensors)."""
    args = fresh_inputs(inputs)
    outputs = as_tuple(ref_output)
    grad_outs = [
        upstream(o, k)
        for k, o in enumerate(outputs)
        if isinstance(o, torch.Tensor) and o.is_floating_point()
    ]
    try:
        with torch.no_grad():
            given = list(as_tuple(grad_reference(*args, *grad_outs)))
    except Exception as error:
        raise LessonError(
            f"grad_reference itself failed, so nothing can be checked: "
            f"{Failure.of('grad_reference', error)}."
        ) from None
    if len(given) == len(inputs):
        return tuple(given)
    return tuple(given.pop(0) if differentiable(a) and given else None for a in inputs)


def _input_names(fn: type, count: int) -> list[str]:
    """forward's own parameter names (after ctx in the classic form), else input 0, 1, ..."""
    params = list(inspect.signature(fn.forward).parameters.values())
    if not _uses_setup_context(fn):
        params = params[1:]
    names = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    return names[:count] if len(names) >= count else [f"input {i}" for i in range(count)]


def _grad_out_names(fn: type) -> list[str]:
    """backward's names for its grad_outs (after ctx), or [] when it takes *args."""
    try:
        params = list(inspect.signature(fn.backward).parameters.values())[1:]
    except (TypeError, ValueError):
        return []
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        return []
    return [p.name for p in params]


def _uses_setup_context(fn: type) -> bool:
    return fn.setup_context is not torch.autograd.Function.setup_context
