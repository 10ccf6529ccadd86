"""The gradient doctor: run a learner's Function as training would, name each mistake, say how to fix it.

check_function differentiates the Function through the real autograd engine (so every
engine rule applies: broadcast gradients summed, trailing Nones accepted, dtypes cast),
on several sets of points: a hand-picked sample, random points over a wider range and
the tails. It compares forward, the gradient, double backward and (when defined) jvp
with a plain torch reference. The Examination runs the checks in order, first_order.py
(one engine run) and higher_order_checks.py (double backward, jvp), which add what they
find to its record (record.py); evidence.py quotes the numbers, words/ says each finding,
report.py shows the Report.
"""

import inspect
import warnings
from collections.abc import Callable, Sequence

import torch

from lessons_lib.doctor import first_order
from lessons_lib.doctor import words as say
from lessons_lib.doctor.compare import all_finite
from lessons_lib.doctor.evidence import mutated_grad_out, mutated_saved
from lessons_lib.doctor.frozen import check_frozen_inputs
from lessons_lib.doctor.higher_order_checks import check_double_backward, check_jvp
from lessons_lib.doctor.record import Record, intended
from lessons_lib.doctor.report import Report
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
    as_function,
    as_tuple,
    differentiable,
    engine_run,
    preserved_global_state,
    vjp,
)
from lessons_lib.running.arguments import MISSING

__all__ = ["Report", "check_function"]


def check_function(
    fn: object = MISSING,
    reference: Callable = MISSING,
    *,
    grad_reference: Callable | None = None,
    inputs: Sequence | torch.Tensor | None = None,
    hint: object = None,
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
        name = "check_function" if fn is MISSING else getattr(fn, "__name__", type(fn).__name__)
        return Report(name, [say.not_a_function(fn)])
    fn = function
    if hint is not None:
        raise InputError(
            "check_function has no hints in steps: each problem it finds comes with its own "
            "“How to fix it” line. Hints in steps belong to the exercises' checks, such as "
            "check_cube(Cube, hint=1)."
        )
    if as_function(reference) is not None:
        raise InputError(
            f"check_function: the reference is the Function {as_function(reference).__name__}; "
            "it must be a plain torch function computing what forward should, such as "
            "lambda x: x**3, so that autograd can give the true gradient to compare with."
        )
    if reference is MISSING:
        raise InputError(
            "check_function needs a reference after your Function: a plain torch function "
            f"that computes what forward should, as in check_function({fn.__name__}, "
            "lambda x: x**3) for a cube."
        )
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


class Examination(Record):
    """Checks one Function sample by sample, keeping the first evidence for each finding."""

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
        expected = self.true_grads = ref.grads
        if self.grad_reference is not None:
            expected = intended(self.grad_reference, sample.inputs, ref.output)
        relayout = non_contiguous if sample.higher else None
        run = engine_run(self.fn, sample.inputs, upstream, relayout, undefined=sample.first)
        if run.failure:
            if not sample.first and not all_finite(ref.output):
                return True  # the reference is undefined here too
            failure = run.failure
            self.add(say.error(failure, _where(sample), run.saved, old_style(self.fn, failure)))
            return False
        if sample.first:
            self.saved_intermediates = run.saved_intermediates
        if run.mutated_inputs:
            self.add(say.mutates_input([self.names[i] for i in run.mutated_inputs]))
        if run.ctx_tensors:
            self.add(say.ctx_tensor(run.ctx_tensors))
        if not first_order.compare_forward(self, run.outputs, as_tuple(ref.output), sample):
            return True
        first_order.compare_output_dtypes(self, run.outputs, sample.inputs)
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
            self.add(say.error(failure, where, run.saved))
        first_order.compare_dtypes_and_shapes(self, run, sample.inputs)
        kinks = first_order.compare_gradients(self, run, expected, ref.output, sample)
        first_order.compare_layouts(self, run, sample)
        first_order.check_undefined(self, run)
        if sample.first and not self.has(*first_order.FIRST_ORDER):
            check_frozen_inputs(self, run, sample, upstream)
        if sample.higher:
            check_jvp(self, sample, ref.output, kinks)
            if not self.has(*first_order.FIRST_ORDER):
                check_double_backward(self, sample, ref.output, kinks)
        self.points.append(_count(sample))
        return True


def old_style(fn: type, failure: Failure) -> str | None:
    """The first parameter of the failed forward or backward if it is a plain method, not a
    @staticmethod (the legacy style, with state set in __init__); else None."""
    method = vars(fn).get(failure.stage)
    if method is None or isinstance(method, (staticmethod, classmethod)):
        return None
    parameters = list(inspect.signature(method).parameters)
    return parameters[0] if parameters else None


def _where(sample: Sample) -> str:
    return "" if sample.first else sample.label


def _count(sample: Sample) -> str:
    floats = [a.numel() for a in sample.inputs if differentiable(a)]
    if sample.first:
        return f"{sum(floats)} points of {sample.label}"
    return f"{floats[0]} {sample.label}"  # only the first float input moves (samples.py)
