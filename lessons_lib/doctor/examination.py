"""The gradient doctor: run a learner's Function as training would, name each mistake, say how to fix it.

check_function differentiates the Function through the real autograd engine (so every
engine rule applies: broadcast gradients summed, trailing Nones accepted, dtypes cast),
on several sets of points: a hand-picked sample, random points over a wider range and
the tails. It compares forward, the gradient, double backward and (when defined) jvp
with a plain torch reference. The words of each finding live in findings.py.
"""

import dataclasses
import html
import inspect
import warnings
from collections.abc import Callable, Sequence

import torch

from lessons_lib.display import message_box
from lessons_lib.doctor import findings as say
from lessons_lib.doctor.compare import (
    MAX_EVIDENCE,
    accepted_at_kinks,
    all_finite,
    between_slopes,
    chain_rule_kind,
    close,
    elementwise_finite,
    evidence_lines,
    one_number,
    output_mask,
    single_upstream,
)
from lessons_lib.doctor.findings import CODES, LESSON_SECTIONS, Finding
from lessons_lib.doctor.higher_order import (
    REFUSED,
    defines_jvp,
    forward_mode,
    is_once_differentiable,
    jvp_of,
    second_derivatives,
)
from lessons_lib.doctor.non_finite import trace_non_finite
from lessons_lib.doctor.samples import (
    Sample,
    default_inputs,
    non_contiguous,
    random_directions,
    sample_sets,
    transposable,
    upstream_gradient,
    validated_inputs,
)
from lessons_lib.running import (
    SCALE,
    EngineRun,
    Failure,
    InputError,
    LessonError,
    SavedChange,
    Upstream,
    as_function,
    as_tuple,
    differentiable,
    engine_run,
    fresh_inputs,
    ones_upstream,
    preserved_global_state,
    vjp,
)

__all__ = ["CODES", "LESSON_SECTIONS", "Report", "check_function", "default_inputs"]

ONCE_DIFFERENTIABLE = (
    "PyTorch then raises when a second derivative needs this backward with a grad_out that "
    "carries a graph (as in the gradient of y**2), but where grad_out carries none (the "
    "gradient of y.sum()), this backward's share of the second derivative is silently zero."
)


class Report:
    """The doctor's verdict on one Function: `ok`, `codes`, and readable text or HTML."""

    def __init__(
        self,
        name: str,
        findings: Sequence[Finding],
        checked: str = "",
        notes: Sequence[str] = (),
    ) -> None:
        self.name = name
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
        if self.ok:
            return f"{self.name}: no problems found"
        count = len(self.findings)
        return f"{self.name}: {count} problem{'s' if count > 1 else ''} found"

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


# --- the examination ---------------------------------------------------------------


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
        if not self.sample.first and finding.evidence and finding.code != "error":
            where = (f"(found among the {self.sample.label})",)
            finding = dataclasses.replace(finding, evidence=finding.evidence + where)
        self.found.setdefault((finding.code, key), finding)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def has(self, *codes: str) -> bool:
        return any(code in codes for code, _ in self.found)

    def report(self, name: str) -> Report:
        checked = "" if self.found else self._checked()
        findings = list(self.found.values())
        if self.has("forward"):  # the gradient may be right for the forward that was written
            findings = [say.after_wrong_forward(f) if f.code == "gradient" else f for f in findings]
        return Report(name, findings, checked, self.notes)

    def _checked(self) -> str:
        parts = [
            f"Forward values and gradients match the reference at {_listed(self.points)}"
            + (f" ({self.skipped} outside the reference's domain skipped)" if self.skipped else "")
        ]
        if self.scaling_checked:
            parts.append("the gradient scales with grad_out")
        if self.layout_checked:
            parts.append("a non-contiguous grad_out gives the same gradient")
        if self.double_checked:
            parts.append(
                "double backward gives the reference's second derivatives (along a random "
                "direction, at the sample and the random points)"
            )
        if self.jvp_checked:
            parts.append("jvp (forward mode) matches the reference's, at the same points")
        parts.append("no tensor is kept on ctx.")
        return "; ".join(parts)

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
        outputs_match = self._compare_forward(run.outputs, as_tuple(ref.output), sample)
        if not outputs_match:
            return True
        if run.refused is not None:
            self.add(self._refusal(run, sample.inputs))
            return False
        for change in run.mutated_saved:
            self.add(self._mutated_saved(change, run, sample))
        if run.mutated_grad_outs:
            self.add(self._mutated_grad_out(run, sample))
        if run.scaled_failure is not None:  # training sends negative grad_outs too
            failure = run.scaled_failure
            where = f"{sample.label}, with grad_out doubled and negated"
            self.add(say.error(failure.stage, failure.kind, failure.message, where))
        self._compare_dtypes_and_shapes(run, sample.inputs)
        kinks = self._compare_gradients(run, expected, ref.output, sample)
        self._compare_layouts(run, sample)
        self._check_undefined(run)
        if sample.higher:
            self._check_jvp(sample, ref.output, kinks)
            if not self.has(*FIRST_ORDER):
                self._check_double_backward(sample, ref.output, kinks)
        self.points.append(_count(sample))
        return True

    def _compare_forward(self, got: tuple, want: tuple, sample: Sample) -> bool:
        """Add a `forward` finding if outputs differ; False when they cannot even be paired."""
        if len(got) != len(want):
            self.add(
                say.forward(
                    f"forward returned {len(got)} output(s); the reference gives {len(want)}."
                )
            )
            return False
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            label = "forward" if len(got) == 1 else f"forward's output {k}"
            if not isinstance(w, torch.Tensor):
                continue  # a non-tensor output (a NumPy array, a shape) is not compared
            if not isinstance(g, torch.Tensor):
                self.add(say.forward(f"{label} is a {type(g).__name__}, not a tensor."))
                return False
            if g.shape != w.shape:
                self.add(
                    say.forward(
                        f"{label} has shape {tuple(g.shape)}; the reference gives {tuple(w.shape)}."
                    )
                )
                return False
            if g.is_floating_point() != w.is_floating_point():
                self.add(say.forward(f"{label} is {g.dtype}; the reference gives {w.dtype}."))
                return False
            # Floats within tolerance where the reference is defined; indices and flags exactly.
            wrong = ~close(g, w) & w.isfinite() if w.is_floating_point() else g != w.to(g.dtype)
            if wrong.any():
                evidence = evidence_lines(wrong, sample.inputs, self.names, w, g, output=k)
                self.add(
                    say.forward(f"{label} computes different values from the reference.", evidence)
                )
        return True

    def _scaled_evidence(self, run: EngineRun, i: int, sample: Sample, ref_output, domain) -> tuple:
        """One line from the second run, where grad_out was doubled and negated.

        "expected" is the intended gradient for that grad_out, computed afresh.
        """
        scaled = run.scaled[i]
        if not isinstance(scaled, torch.Tensor) or scaled.shape != sample.inputs[i].shape:
            return ()

        def doubled_and_negated(output: torch.Tensor, index: int) -> torch.Tensor:
            return SCALE * upstream_gradient(output, index)

        want = self._intended_for(sample, ref_output, doubled_and_negated, i)
        if want is None or want.shape != scaled.shape:
            return ()
        upstream = single_upstream(ref_output)
        quotes = (("grad_out", None if upstream is None else SCALE * upstream),)
        wrong = ~close(scaled, want) & domain & want.isfinite()
        prefix = "then, with grad_out doubled and negated, "
        lines = evidence_lines(
            wrong, sample.inputs, self.names, want, scaled, at=i, prefix=prefix, quotes=quotes
        )
        return lines[:1]

    def _intended_for(self, sample: Sample, ref_output, upstream: Upstream, i: int):
        """The intended gradient for input i when grad_out is `upstream`; None if unknown."""
        if self.grad_reference is None:
            truth = vjp(self.reference, sample.inputs, upstream)
            return None if truth.failure else truth.grads[i]
        return _intended(self.grad_reference, sample.inputs, ref_output, upstream)[i]

    def _output_label(self, k: int) -> str:
        """output 1 (g3 in backward): forward's output k, with backward's name for its grad_out."""
        named = len(self.grad_out_names) > k
        return f"output {k} ({self.grad_out_names[k]} in backward)" if named else f"output {k}"

    def _misused_grad_out(self, run: EngineRun, i: int, got, wrong, sample: Sample, ref_output):
        """How a gradient that scales with grad_out, yet is wrong, misuses grad_out.

        (how, detail, evidence line) for chain_rule when the derivative is right and grad_out
        is misused: one output's grad_out ignored (the gradient is right with it set to
        zero), or grad_out used as one number (the gradient is the right one for a grad_out
        of all ones, times a number). None when the derivative itself looks wrong.
        """
        first = torch.zeros_like(wrong)
        first[tuple(wrong.nonzero()[0].tolist())] = True
        mask = got.isfinite()
        if len(run.tracked) > 1:  # each output's grad_out in turn set to zero
            for k in run.tracked:

                def without_k(output: torch.Tensor, index: int, k: int = k) -> torch.Tensor:
                    grad = upstream_gradient(output, index)
                    return torch.zeros_like(grad) if index == k else grad

                want = self._intended_for(sample, ref_output, without_k, i)
                if want is None or want.shape != got.shape:
                    continue
                here = mask & want.isfinite()
                # a gradient of zeros "ignores" every output's grad_out: that is [gradient]
                if want[here].any() and close(got, want)[here].all():
                    says = (
                        f"with the grad_out of output {k} set to zero, the intended gradient is "
                        "{expected}, and backward gave {got}"
                    )
                    line = evidence_lines(
                        first, sample.inputs, self.names, want, got, at=i, says=says
                    )
                    return "ignores-output", self._output_label(k), line
        uniform = self._intended_for(sample, ref_output, ones_upstream, i)
        if uniform is None or uniform.shape != got.shape or not _uneven(run):
            return None
        factor = one_number(got, uniform, mask & uniform.isfinite())
        if factor is None:
            return None
        detail = f"{factor:.4g}"
        upstream = single_upstream(ref_output)
        if upstream is not None:  # name the number where it is a familiar reduction
            detail += next(
                (f", {what}" for what, v in _reductions(upstream) if _near(factor, v)), ""
            )
        says = (
            "with a grad_out of all ones, the right gradient is {expected}; backward gave "
            f"{factor:.4g} times that, " + "{got}"
        )
        line = evidence_lines(first, sample.inputs, self.names, uniform, got, at=i, says=says)
        return "one-number", detail, line

    def _mutated_grad_out(self, run: EngineRun, sample: Sample) -> Finding:
        """What backward wrote into grad_out, against what autograd had put there."""
        evidence, which = [], ""
        for k, after in run.mutated_grad_outs.items():
            before = upstream_gradient(run.outputs[k], k)
            changed = ~close(after, before)
            evidence += evidence_lines(
                changed,
                sample.inputs,
                self.names,
                before,
                after,
                output=k,
                prefix="grad_out ",
                says="autograd passed {expected}, backward left {got}",
            )
            which = "" if len(run.outputs) == 1 else f" for output {k}"
        return say.mutates_grad_out(which, tuple(evidence[:MAX_EVIDENCE]))

    def _mutated_saved(self, change: SavedChange, run: EngineRun, sample: Sample) -> Finding:
        """Which saved tensor backward changed, and its values before and after."""
        before, after = change.before, change.after
        evidence = ()
        if before.is_floating_point() and before.shape == after.shape:
            changed = ~close(after, before) | (after.isnan() != before.isnan())
            kind, index = change.role or ("", 0)
            if kind == "input" and before.shape == sample.inputs[index].shape:
                evidence = evidence_lines(
                    changed,
                    sample.inputs,
                    self.names,
                    before,
                    after,
                    at=index,
                    says="backward changed it to {got}",
                )
            elif kind == "output":
                evidence = evidence_lines(
                    changed,
                    sample.inputs,
                    self.names,
                    before,
                    after,
                    output=index,
                    prefix="the output ",
                    says="was {expected}, backward changed it to {got}",
                )
        return say.mutates_saved(change, self.names, evidence[:MAX_EVIDENCE])

    def _compare_layouts(self, run: EngineRun, sample: Sample) -> None:
        """Backward again with a non-contiguous grad_out of the same values: same answer?"""
        if run.rearranged is None and run.rearranged_failure is None:
            return
        outputs = [run.outputs[k] for k in run.tracked]
        layout = (
            "stored transposed (as y.t() * w hands them back)"
            if any(transposable(o.shape) for o in outputs)
            else "as every other element of a longer tensor (torch.zeros(2 * n)[::2])"
        )
        failure = run.rearranged_failure
        if failure is not None:
            self.add(say.non_contiguous_grad_out(layout, f"{failure.kind}: {failure.message}", []))
            return
        evidence, names = [], []
        for i, (plain, moved) in enumerate(zip(run.raw, run.rearranged, strict=False)):
            if not (isinstance(plain, torch.Tensor) and isinstance(moved, torch.Tensor)):
                continue
            if plain.shape != moved.shape or not plain.is_floating_point():
                continue
            differs = ~close(moved, plain) & ~(plain.isnan() & moved.isnan())
            if differs.any():
                names.append(self.names[i] if i < len(self.names) else f"input {i}")
                at = i if plain.shape == sample.inputs[i].shape else None
                evidence += evidence_lines(
                    differs,
                    sample.inputs,
                    self.names,
                    plain,
                    moved,
                    at=at,
                    says="with a contiguous grad_out {expected}, with a non-contiguous one {got}",
                )
        if names:
            found = say.non_contiguous_grad_out(layout, None, names, tuple(evidence[:MAX_EVIDENCE]))
            self.add(found)
        else:
            self.layout_checked = True

    def _check_undefined(self, run: EngineRun) -> None:
        """backward with undefined grad_outs, as gradcheck's check_undefined_grad sends them."""
        several = len(run.tracked) > 1
        for case in run.undefined:
            which = "" if case.output is None else self._output_label(case.output)
            if case.failure is not None:
                failure = f"{case.failure.kind}: {case.failure.message}"
                self.add(say.undefined_grad_out(which, failure, [], several))
            elif case.nonzero and not self.has(*FIRST_ORDER):  # grad_out + slope shows here too
                names = [self.names[i] for i in case.nonzero]
                self.add(say.undefined_grad_out(which, None, names, several))

    def _refusal(self, run: EngineRun, inputs: tuple) -> Finding:
        """Name what the engine refused in backward's result, from what backward returned."""
        raw = run.raw
        if len(raw) < len(inputs) or any(g is not None for g in raw[len(inputs) :]):
            return say.grad_count(len(raw), self.names, inputs)
        for i, (got, x) in enumerate(zip(raw, inputs, strict=False)):
            if got is not None and not isinstance(x, torch.Tensor):
                return say.non_tensor_grad(self.names[i], i, x)
        for i, (got, x) in enumerate(zip(raw, inputs, strict=False)):
            wrong_kind = not isinstance(got, torch.Tensor) or got.shape != x.shape
            if differentiable(x) and got is not None and wrong_kind:
                return say.grad_shape(self.names[i], got, x)
        return say.error("backward", "RuntimeError", f"autograd refused its result: {run.refused}")

    def _compare_dtypes_and_shapes(self, run: EngineRun, inputs: tuple) -> None:
        """grad-dtype from what backward returned; a note where the engine summed a broadcast."""
        changes = []
        for name, got, x in zip(self.names, run.raw, inputs, strict=False):
            if not (differentiable(x) and isinstance(got, torch.Tensor)):
                continue
            if got.dtype != x.dtype:
                changes.append(f"{got.dtype} for {name}, which is {x.dtype}")
            if got.shape != x.shape:
                self.note(
                    f"backward's gradient for {name} had shape {tuple(got.shape)}; the engine "
                    f"summed it to {name}'s shape {tuple(x.shape)}, as it does for an input "
                    "that forward broadcast. That is allowed."
                )
        if changes:
            self.add(say.grad_dtype(changes))

    def _compare_gradients(self, run: EngineRun, expected: tuple, ref_output, sample: Sample):
        """Compare the engine's gradients with the intended ones; return the accepted kinks."""
        kinks = {}
        quoted = _grad_out_quotes(ref_output)
        output = run.outputs[0] if len(run.outputs) == 1 else None
        self.scaling_checked |= run.scaled is not None
        for i, (got, want, x) in enumerate(zip(run.grads, expected, sample.inputs, strict=True)):
            if not differentiable(x):
                continue
            name = self.names[i]
            if got is None:
                if want is not None and want.any():
                    self.add(say.no_gradient(name), i)
                continue
            want = torch.zeros_like(x) if want is None else want
            how = chain_rule_kind(run, i)
            domain = want.isfinite() & elementwise_finite(ref_output, x)
            self.skipped += int((~domain).sum())
            wrong = ~close(got, want) & domain
            if wrong.any() and self.grad_reference is None:
                kinks[i] = accepted_at_kinks(self.reference, wrong, sample.inputs, i, got)
                wrong &= ~kinks[i]
            if how is not None:
                evidence = evidence_lines(
                    wrong, sample.inputs, self.names, want, got, at=i, quotes=quoted
                )
                domain_here = domain & ~kinks.get(i, torch.zeros_like(domain))
                evidence = evidence[:2] + self._scaled_evidence(
                    run, i, sample, ref_output, domain_here
                )
                self.add(say.chain_rule(name, how, evidence), i)
                continue
            blown = wrong & ~got.isfinite()
            if blown.any():
                self.add(self._non_finite(blown, got, want, i, sample, output), i)
            wrong &= got.isfinite()
            if wrong.any():
                evidence = evidence_lines(
                    wrong, sample.inputs, self.names, want, got, at=i, quotes=quoted
                )
                misused = self._misused_grad_out(run, i, got, wrong, sample, ref_output)
                if misused is not None:
                    how, detail, line = misused
                    self.add(say.chain_rule(name, how, evidence[:2] + line, detail), i)
                    continue
                self.add(say.gradient(name, evidence, surrogate=not want[domain].any()), i)
        return kinks

    def _non_finite(self, blown, got, want, i: int, sample: Sample, output) -> Finding:
        """NaN or inf in the gradient: the input, output and grad_out there, and what made it."""
        quotes = (("output", output), ("grad_out", single_upstream(output)))
        evidence = evidence_lines(blown, sample.inputs, self.names, want, got, at=i, quotes=quotes)
        first = tuple(blown.nonzero()[0].tolist())
        steps = trace_non_finite(self.fn, sample.inputs, upstream_gradient, i, first)
        return say.non_finite(self.names[i], evidence, got[blown], steps)

    def _check_double_backward(self, sample: Sample, ref_output, kinks: dict) -> None:
        if is_once_differentiable(self.fn):
            self.note(f"Double backward was not checked: {REFUSED}. {ONCE_DIFFERENTIABLE}")
            return
        directions = random_directions(sample.inputs, seed=1)
        args = (sample.inputs, upstream_gradient, directions, self.grad_reference, "reference")
        want = second_derivatives(self.reference, *args)
        if want.failure:
            self.note(
                "Double backward was not checked: the reference's own gradient could not be "
                f"differentiated ({want.failure})."
            )
            return
        got = second_derivatives(self.fn.apply, *args[:3])
        if got.failure:
            if got.failure.message == REFUSED:  # a @once_differentiable helper inside backward
                self.note(f"Double backward was not checked: {REFUSED}. {ONCE_DIFFERENTIABLE}")
                return
            self.add(
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
                prefix = f"d/d{self.names[i]} of (direction · backward) "
                evidence += evidence_lines(
                    wrong, sample.inputs, self.names, w, g, at=i, prefix=prefix, quotes=quotes
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
                    self.names,
                    w,
                    g,
                    output=k,
                    prefix=f"d/d{label} of (direction · backward) ",
                    quotes=(("direction", first),),
                )
        if evidence:
            self.add(
                say.double_backward(
                    "Double backward is wrong: differentiating your backward does not give the "
                    "reference's second derivatives.",
                    tuple(evidence[:MAX_EVIDENCE]),
                )
            )
        self.double_checked = True

    def _check_jvp(self, sample: Sample, ref_output, kinks: dict) -> None:
        if not defines_jvp(self.fn):
            return
        tangents = random_directions(sample.inputs, seed=2)
        want = forward_mode(self.reference, sample.inputs, tangents, self.grad_reference)
        if want.failure:
            self.note(f"jvp was not checked: the reference's forward mode failed ({want.failure}).")
            return
        got = jvp_of(self.fn, sample.inputs, tangents)
        if got.failure:
            self.add(say.jvp(f"jvp raised {got.failure.kind}: {got.failure.message}"))
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
                wrong |= self._jvp_off_kinks(sample, ref_output, i, kinks[i], g, w, tangents[i])
            evidence += evidence_lines(
                wrong,
                sample.inputs,
                self.names,
                w,
                g,
                output=k,
                prefix="tangent ",
                quotes=(("tangent", tangents[i]),),
            )
        if evidence:
            self.add(
                say.jvp(
                    "jvp is wrong: forward mode through your Function does not match the "
                    "reference's derivative.",
                    tuple(evidence[:MAX_EVIDENCE]),
                )
            )
        self.jvp_checked = True

    def _jvp_off_kinks(self, sample, ref_output, i, kinks, got, want, tangent) -> torch.Tensor:
        """At a kink, jvp may push any slope between the one-sided ones: flag only the others."""
        wrong = torch.zeros_like(kinks)
        upstream = single_upstream(ref_output)
        for index in (kinks & ~close(got, want)).nonzero().tolist():
            spot = tuple(index)
            scale = tangent[spot].item() / upstream[spot].item()  # slopes come weighted by grad_out
            value = got[spot].item()
            wrong[spot] = not between_slopes(self.reference, sample.inputs, i, spot, value, scale)
        return wrong


# Mistakes in the first derivative: double backward is only worth checking without them.
FIRST_ORDER = (
    "mutates-saved",  # its saved tensors change under double backward as well
    "mutates-grad-out",  # its in-place write also breaks double backward: one mistake, one code
    "grad-count",
    "non-tensor-grad",
    "grad-shape",
    "no-gradient",
    "chain-rule",
    "non-finite",
    "gradient",
)


# --- helpers ---------------------------------------------------------------------


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


def _grad_out_quotes(ref_output) -> tuple[tuple[str, torch.Tensor], ...]:
    """grad_out to quote beside the evidence: one per float output ("grad_out 1") if several."""
    outputs = [
        (k, o)
        for k, o in enumerate(as_tuple(ref_output))
        if isinstance(o, torch.Tensor) and o.is_floating_point()
    ]
    if len(outputs) == 1:
        return (("grad_out", upstream_gradient(outputs[0][1], outputs[0][0])),)
    return tuple((f"grad_out {k}", upstream_gradient(o, k)) for k, o in outputs)


def _uneven(run: EngineRun) -> bool:
    """Whether the grad_outs sent had at least two different values (else one number is right)."""
    values = torch.cat([upstream_gradient(run.outputs[k], k).flatten() for k in run.tracked])
    return bool((values != values[0]).any())


def _reductions(grad_out: torch.Tensor) -> list[tuple[str, float]]:
    """The one numbers a backward most often makes of grad_out, most common first."""
    flat = grad_out.flatten()
    return [
        ("the sum of grad_out", flat.sum().item()),
        ("the mean of grad_out", flat.mean().item()),
        ("grad_out's first element", flat[0].item()),
        ("grad_out's last element", flat[-1].item()),
        ("grad_out's largest element", flat.max().item()),
        ("grad_out's smallest element", flat.min().item()),
        ("the norm of grad_out", flat.norm().item()),
    ]


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def _where(sample: Sample) -> str:
    return "" if sample.first else sample.label


def _count(sample: Sample) -> str:
    points = sum(a.numel() for a in sample.inputs if differentiable(a))
    return f"{points} points of {sample.label}" if sample.first else f"{points} {sample.label}"


def _listed(parts: list[str]) -> str:
    merged: dict[str, int] = {}
    for part in parts:  # several tail samples read as one
        count, label = part.split(" ", 1)
        merged[label] = merged.get(label, 0) + int(count)
    items = [f"{count} {label}" for label, count in merged.items()]
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]


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
