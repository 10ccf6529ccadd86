"""The gradient doctor: run a learner's Function as training would, name each mistake, say how to fix it.

check_function differentiates the Function through the real autograd engine (so every
engine rule applies: broadcast gradients summed, trailing Nones accepted, dtypes cast),
on several sets of points: a hand-picked sample, random points over a wider range and
the tails. It compares forward, the gradient, double backward and (when defined) jvp
with a plain torch reference. The Examination keeps what is found and runs the checks in
order: first_order.py (one engine run), higher_order_checks.py (double backward, jvp);
evidence.py quotes the numbers, words/ says each finding, report.py shows the Report.
"""

import dataclasses
import inspect
import warnings
from collections.abc import Callable, Sequence

import torch

from lessons_lib.doctor import first_order
from lessons_lib.doctor import words as say
from lessons_lib.doctor.compare import all_finite
from lessons_lib.doctor.evidence import mutated_grad_out, mutated_saved
from lessons_lib.doctor.findings import Finding
from lessons_lib.doctor.higher_order_checks import check_double_backward, check_jvp
from lessons_lib.doctor.report import Report, clean_bill
from lessons_lib.doctor.samples import (
    Sample,
    non_contiguous,
    sample_sets,
    upstream_gradient,
    validated_inputs,
)
from lessons_lib.running import (
    Failure,
    InputError,
    LessonError,
    Upstream,
    as_function,
    as_tuple,
    differentiable,
    engine_run,
    fresh_inputs,
    preserved_global_state,
    vjp,
)

__all__ = ["Report", "check_function"]


def check_function(
    fn: object,
    reference: Callable,
    *,
    grad_reference: Callable | None = None,
    inputs: Sequence | torch.Tensor | None = None,
) -> Report:
    """Diagnose a learner's Function against a plain torch `reference` of its forward.

    The reference may return one tensor or a tuple (one entry per output of forward).
    The intended gradient is autograd's gradient of `reference`, or, for surrogate
    gradients, `grad_reference(*inputs, *grad_outs)`. `inputs` are checked besides random
    points and the tails. Never raises for a broken `fn`; raises a LessonError only when
    the check itself is set up wrongly.
    """
    function = as_function(fn)  # Cube.apply means Cube
    if function is None:
        return Report(getattr(fn, "__name__", type(fn).__name__), [say.not_a_function(fn)])
    fn = function
    for role, given in (("reference", reference), ("grad_reference", grad_reference)):
        if given is not None and not callable(given):
            raise InputError(
                f"{role} must be a function computing the intended "
                f"{'forward' if role == 'reference' else 'gradient'}, got {given!r}."
            )
    samples = sample_sets(None if inputs is None else validated_inputs(inputs))
    examination = Examination(fn, reference, grad_reference, samples[0].inputs)
    with preserved_global_state():
        for sample in samples:
            with warnings.catch_warnings():
                if not sample.first:  # overflow warnings from points the learner never chose
                    warnings.simplefilter("ignore")
                if not examination.examine(sample):
                    break
    return examination.report(fn.__name__)


class Examination:
    """Checks one Function sample by sample, keeping the first evidence for each finding."""

    def __init__(self, fn: type, reference: Callable, grad_reference, inputs: tuple) -> None:
        self.fn, self.reference, self.grad_reference = fn, reference, grad_reference
        self.names = _input_names(fn, len(inputs))
        self.grad_out_names = _grad_out_names(fn)
        self.found: dict[tuple, Finding] = {}
        self.notes: list[str] = []
        self.points: list[str] = []  # "12 values of the sample", ...
        self.skipped = 0  # points outside the reference's domain
        self.double_checked = self.jvp_checked = False
        self.scaling_checked = self.layout_checked = False  # what the clean bill may claim
        self.sample: Sample | None = None  # the sample being examined

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
        return Report(name, findings, checked, self.notes)

    def _clean_bill(self) -> str:
        return clean_bill(
            self.points,
            self.skipped,
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
        return _intended(self.grad_reference, sample.inputs, ref_output, upstream)[i]

    def output_label(self, k: int) -> str:
        """output 1 (g3 in backward): forward's output k, with backward's name for its grad_out."""
        named = len(self.grad_out_names) > k
        return f"output {k} ({self.grad_out_names[k]} in backward)" if named else f"output {k}"

    # -- one sample --

    def examine(self, sample: Sample) -> bool:
        """Check at one sample; False when nothing more can be learned from later ones."""
        self.sample = sample
        upstream = upstream_gradient
        ref = vjp(self.reference, sample.inputs, upstream)
        if ref.failure:
            if sample.first:
                raise LessonError(
                    f"The reference itself failed, so nothing can be checked: {ref.failure}."
                )
            return True  # outside the reference's domain: nothing to compare with
        expected = ref.grads
        if self.grad_reference is not None:
            expected = _intended(self.grad_reference, sample.inputs, ref.output)
        relayout = non_contiguous if sample.higher else None
        run = engine_run(self.fn, sample.inputs, upstream, relayout, undefined=sample.first)
        if run.failure:
            if not sample.first and not all_finite(ref.output):
                return True  # the reference is undefined here too
            failure = run.failure
            self.add(say.error(failure.stage, failure.kind, failure.message, _where(sample)))
            return False
        if run.mutated_inputs:
            self.add(say.mutates_input([self.names[i] for i in run.mutated_inputs]))
        if run.ctx_tensors:
            self.add(say.ctx_tensor(run.ctx_tensors))
        if not first_order.compare_forward(self, run.outputs, as_tuple(ref.output), sample):
            return True
        if run.refused is not None:
            self.add(first_order.refusal(run, sample.inputs, self.names))
            return False
        for change in run.mutated_saved:
            self.add(mutated_saved(change, sample, self.names))
        if run.mutated_grad_outs:
            self.add(mutated_grad_out(run, sample, self.names))
        if run.scaled_failure is not None:  # training sends negative grad_outs too
            failure = run.scaled_failure
            where = f"{sample.label}, with grad_out doubled and negated"
            self.add(say.error(failure.stage, failure.kind, failure.message, where))
        first_order.compare_dtypes_and_shapes(self, run, sample.inputs)
        kinks = first_order.compare_gradients(self, run, expected, ref.output, sample)
        first_order.compare_layouts(self, run, sample)
        first_order.check_undefined(self, run)
        if sample.higher:
            check_jvp(self, sample, ref.output, kinks)
            if not self.has(*first_order.FIRST_ORDER):
                check_double_backward(self, sample, ref.output, kinks)
        self.points.append(_count(sample))
        return True


def _intended(
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


def _where(sample: Sample) -> str:
    return "" if sample.first else sample.label


def _count(sample: Sample) -> str:
    points = sum(a.numel() for a in sample.inputs if differentiable(a))
    return f"{points} points of {sample.label}" if sample.first else f"{points} {sample.label}"


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
