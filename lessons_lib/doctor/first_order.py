"""The first-order checks of one engine run: forward's values, backward's result and gradients.

Each check takes the Examination, reads the run the engine made (lessons_lib.running's
engine_run), and adds what it finds to the examination.
"""

from typing import TYPE_CHECKING

import torch

from lessons_lib.doctor import words as say
from lessons_lib.doctor.compare import (
    FORMULA_ACCURACY,
    accepted_at_kinks,
    chain_rule_kind,
    close,
    elementwise_finite,
    one_number,
    relative_error,
    single_upstream,
)
from lessons_lib.doctor.evidence import (
    MAX_EVIDENCE,
    evidence_lines,
    grad_out_quotes,
    scaled_evidence,
)
from lessons_lib.doctor.findings import Finding
from lessons_lib.doctor.non_finite import trace_non_finite
from lessons_lib.doctor.samples import Sample, transposable, upstream_gradient
from lessons_lib.doctor.surrogates import jump_of, shape_of
from lessons_lib.running import (
    SCALE,
    EngineRun,
    Failure,
    as_tuple,
    differentiable,
    ones_upstream,
)
from lessons_lib.running.reading import backward_of, outside_tensors

if TYPE_CHECKING:  # the examination passes itself in; importing it here would be circular
    from lessons_lib.doctor.record import Record

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


def compare_forward(exam: "Record", got: tuple, want: tuple, sample: Sample) -> bool:
    """Add a `forward` finding if outputs differ; False when they cannot even be paired."""
    if len(got) != len(want):
        exam.add(
            say.forward(f"forward returned {len(got)} output(s); the reference gives {len(want)}.")
        )
        return False
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        label = "forward" if len(got) == 1 else f"forward's output {k}"
        if not isinstance(w, torch.Tensor):
            continue  # a non-tensor output (a NumPy array, a shape) is not compared
        if not isinstance(g, torch.Tensor):
            exam.add(say.forward(f"{label} is a {type(g).__name__}, not a tensor."))
            return False
        if g.shape != w.shape:
            exam.add(
                say.forward(
                    f"{label} has shape {tuple(g.shape)}; the reference gives {tuple(w.shape)}."
                )
            )
            return False
        if g.is_floating_point() != w.is_floating_point():
            exam.add(say.forward(f"{label} is {g.dtype}; the reference gives {w.dtype}."))
            return False
        # Floats within tolerance where the reference is defined; indices and flags exactly.
        wrong = ~close(g, w) & w.isfinite() if w.is_floating_point() else g != w.to(g.dtype)
        if wrong.any():
            evidence = evidence_lines(wrong, sample.inputs, exam.names, w, g, output=k)
            exam.add(
                say.forward(f"{label} computes different values from the reference.", evidence)
            )
    return True


def compare_output_dtypes(exam: "Record", outputs: tuple, inputs: tuple) -> None:
    """output-dtype: a float output less precise than the most precise float input."""
    floats = [a.dtype for a in inputs if differentiable(a)]
    if not floats:
        return
    widest = max(floats, key=lambda dtype: torch.finfo(dtype).bits)
    lowered = [
        f"forward's output{'' if len(outputs) == 1 else f' {k}'} is {o.dtype}"
        for k, o in enumerate(outputs)
        if differentiable(o) and torch.finfo(o.dtype).bits < torch.finfo(widest).bits
    ]
    if lowered:
        exam.add(say.output_dtype(lowered, widest))


def refusal(run: EngineRun, inputs: tuple, names: list[str]) -> Finding:
    """Name what the engine refused in backward's result, from what backward returned."""
    raw = run.raw
    if len(raw) < len(inputs) or any(g is not None for g in raw[len(inputs) :]):
        return say.grad_count(len(raw), names, inputs)
    for i, (got, x) in enumerate(zip(raw, inputs, strict=False)):
        if got is not None and not isinstance(x, torch.Tensor):
            return say.non_tensor_grad(names[i], i, x)
    for i, (got, x) in enumerate(zip(raw, inputs, strict=False)):
        wrong_kind = not isinstance(got, torch.Tensor) or got.shape != x.shape
        if differentiable(x) and got is not None and wrong_kind:
            return say.grad_shape(names[i], got, x)
    refused = Failure("backward", "RuntimeError", f"autograd refused its result: {run.refused}")
    return say.error(refused)


def compare_dtypes_and_shapes(exam: "Record", run: EngineRun, inputs: tuple) -> None:
    """grad-dtype from what backward returned; a note where the engine summed a broadcast."""
    changes = []
    for name, got, x in zip(exam.names, run.raw, inputs, strict=False):
        if not (differentiable(x) and isinstance(got, torch.Tensor)):
            continue
        if got.dtype != x.dtype:
            changes.append(f"{got.dtype} for {name}, which is {x.dtype}")
        if got.shape != x.shape:
            exam.note(
                f"backward's gradient for {name} had shape {tuple(got.shape)}; the engine "
                f"summed it to {name}'s shape {tuple(x.shape)}, as it does for an input "
                "that forward broadcast. That is allowed."
            )
    if changes:
        exam.add(say.grad_dtype(changes))


def compare_gradients(
    exam: "Record", run: EngineRun, expected: tuple, ref_output, sample: Sample
) -> dict:
    """Compare the engine's gradients with the intended ones; return the accepted kinks."""
    kinks = {}
    quoted = grad_out_quotes(ref_output)
    output = run.outputs[0] if len(run.outputs) == 1 else None
    exam.scaling_checked |= run.scaled is not None
    for i, (got, want, x) in enumerate(zip(run.grads, expected, sample.inputs, strict=True)):
        if not differentiable(x):
            continue
        name = exam.names[i]
        if got is None:
            if want is not None and want.any():
                exam.add(say.no_gradient(name), i)
            continue
        want = torch.zeros_like(x) if want is None else want
        how = chain_rule_kind(run, i)
        if how is not None and follows_declared_rule_when_scaled(exam, run, i, sample, ref_output):
            how = None  # a declared rule may depend on grad_out's sign: backward follows it
        domain = want.isfinite() & elementwise_finite(ref_output, x)
        exam.skipped += int((~domain).sum())
        wrong = ~close(got, want) & domain
        if wrong.any() and exam.grad_reference is None:
            kinks[i] = accepted_at_kinks(exam.reference, wrong, sample.inputs, i, got)
            wrong &= ~kinks[i]
            exam.kinks.update(x.detach()[kinks[i]].flatten().tolist())
        if how is not None:
            evidence = evidence_lines(
                wrong, sample.inputs, exam.names, want, got, at=i, quotes=quoted
            )
            domain_here = domain & ~kinks.get(i, torch.zeros_like(domain))
            evidence = evidence[:2] + scaled_evidence(exam, run, i, sample, ref_output, domain_here)
            exam.add(say.chain_rule(name, how, evidence), i)
            continue
        if not wrong.any():
            note_inexact(exam, run, i, got, want, domain & ~kinks.get(i, torch.zeros_like(domain)))
        blown = wrong & ~got.isfinite()
        if blown.any():
            exam.add(non_finite_gradient(exam, blown, got, want, i, sample, output), i)
        wrong &= got.isfinite()
        if wrong.any():
            evidence = evidence_lines(
                wrong, sample.inputs, exam.names, want, got, at=i, quotes=quoted
            )
            misused = misused_grad_out(exam, run, i, got, wrong, sample, ref_output)
            if misused is not None:
                how, detail, line = misused
                exam.add(say.chain_rule(name, how, evidence[:2] + line, detail), i)
                continue
            truth = exam.true_grads[i] if exam.grad_reference is not None else None
            if isinstance(truth, torch.Tensor) and bool(close(got, truth)[wrong].all()):
                exam.add(say.declared_rule_differs(name, evidence), i)
                continue
            clues = gradient_clues(exam, got, i, sample, ref_output)
            exam.add(say.gradient(name, evidence, not want[domain].any(), **clues), i)
    return kinks


def note_inexact(exam: "Record", run: EngineRun, i: int, got, want, mask) -> None:
    """A float64 gradient within tolerance, yet further from the reference than a formula
    gets: the size of error a finite difference in backward leaves. A note, not a finding:
    it passes, and it is right to within 1e-5."""
    raw = run.raw[i] if len(run.raw) > i else None
    if not (isinstance(raw, torch.Tensor) and raw.dtype == want.dtype == torch.float64):
        return  # rounded through a lower dtype: grad-dtype says so
    if any(differentiable(o) and o.dtype != torch.float64 for o in run.outputs):
        return  # grad_out came back in a lower dtype: output-dtype says so
    error = relative_error(got, want, mask)
    if error > FORMULA_ACCURACY:
        exam.inexact[i] = max(error, exam.inexact.get(i, 0.0))


def follows_declared_rule_when_scaled(
    exam: "Record", run: EngineRun, i: int, sample: Sample, ref_output
) -> bool:
    """Whether backward, given grad_out doubled and negated, still gives what the declared
    grad_reference gives for that grad_out (a rule need not be linear in grad_out: guided
    backpropagation drops the negative ones)."""
    if exam.grad_reference is None or run.scaled is None or len(run.scaled) <= i:
        return False

    def scaled(output: torch.Tensor, index: int) -> torch.Tensor:
        return SCALE * upstream_gradient(output, index)

    want, got = exam.intended_for(sample, ref_output, scaled, i), run.scaled[i]
    if not (isinstance(want, torch.Tensor) and isinstance(got, torch.Tensor)):
        return False
    return got.shape == want.shape and bool(close(got, want.to(got.dtype)).all())


def gradient_clues(exam: "Record", got: torch.Tensor, i: int, sample: Sample, ref_output) -> dict:
    """What the run recorded that says more about a wrong gradient (say.gradient's keywords):
    a declared rule, a tensor backward reads from the notebook, a surrogate's shape."""
    if exam.grad_reference is not None:
        return {"declared": True}
    outside = outside_tensors(backward_of(exam.fn))
    if outside:
        return {"outside": next(iter(outside))}
    floats = [a for a in sample.inputs if differentiable(a)]
    output = single_upstream(ref_output)
    if len(floats) != 1 or output is None:
        return {}
    x = sample.inputs[i]
    shape = shape_of(x, got, output)
    if shape is None:
        return {}
    off_centre = ""
    jump = jump_of(x, as_tuple(ref_output)[0])
    if shape.peak is not None and jump is not None:
        lo, hi = jump
        if not lo - (hi - lo) <= shape.peak <= hi + (hi - lo):
            off_centre = (
                f" Forward's step is between x = {lo:g} and {hi:g}, though: a surrogate is "
                "centred on the step, where a small change of x changes the output."
            )
    return {"shape": (shape.does, shape.rule), "off_centre": off_centre}


def non_finite_gradient(
    exam: "Record", blown, got, want, i: int, sample: Sample, output
) -> Finding:
    """NaN or inf in the gradient: the input, output and grad_out there, and what made it."""
    quotes = (("output", output), ("grad_out", single_upstream(output)))
    evidence = evidence_lines(blown, sample.inputs, exam.names, want, got, at=i, quotes=quotes)
    first = tuple(blown.nonzero()[0].tolist())
    steps = trace_non_finite(exam.fn, sample.inputs, upstream_gradient, i, first)
    return say.non_finite(exam.names[i], evidence, got[blown], steps)


def misused_grad_out(
    exam: "Record", run: EngineRun, i: int, got, wrong, sample: Sample, ref_output
):
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

            want = exam.intended_for(sample, ref_output, without_k, i)
            if want is None or want.shape != got.shape:
                continue
            here = mask & want.isfinite()
            # a gradient of zeros "ignores" every output's grad_out: that is [gradient]
            if want[here].any() and close(got, want)[here].all():
                says = (
                    f"with the grad_out of output {k} set to zero, the intended gradient is "
                    "{expected}, and backward gave {got}"
                )
                line = evidence_lines(first, sample.inputs, exam.names, want, got, at=i, says=says)
                return "ignores-output", exam.output_label(k), line
    uniform = exam.intended_for(sample, ref_output, ones_upstream, i)
    if uniform is None or uniform.shape != got.shape or not _uneven(run):
        return None
    factor = one_number(got, uniform, mask & uniform.isfinite())
    # A reduction of grad_out is a number of grad_out's size; a ratio such as 1e-20 comes
    # from a wrong derivative at points symmetric about 0 (the tails), not from grad_out.
    if factor is None or not 1e-6 < abs(factor) < 1e6:
        return None
    detail = f"{factor:.4g}"
    upstream = single_upstream(ref_output)
    if upstream is not None:  # name the number where it is a familiar reduction
        detail += next((f", {what}" for what, v in _reductions(upstream) if _near(factor, v)), "")
    says = (
        "with a grad_out of all ones, the right gradient is {expected}; backward gave "
        f"{factor:.4g} times that, " + "{got}"
    )
    line = evidence_lines(first, sample.inputs, exam.names, uniform, got, at=i, says=says)
    return "one-number", detail, line


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


def compare_layouts(exam: "Record", run: EngineRun, sample: Sample) -> None:
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
        exam.add(say.non_contiguous_grad_out(layout, f"{failure.kind}: {failure.message}", []))
        return
    evidence, names = [], []
    for i, (plain, moved) in enumerate(zip(run.raw, run.rearranged, strict=False)):
        if not (isinstance(plain, torch.Tensor) and isinstance(moved, torch.Tensor)):
            continue
        if plain.shape != moved.shape or not plain.is_floating_point():
            continue
        differs = ~close(moved, plain) & ~(plain.isnan() & moved.isnan())
        if differs.any():
            names.append(exam.names[i] if i < len(exam.names) else f"input {i}")
            at = i if plain.shape == sample.inputs[i].shape else None
            evidence += evidence_lines(
                differs,
                sample.inputs,
                exam.names,
                plain,
                moved,
                at=at,
                says="with a contiguous grad_out {expected}, with a non-contiguous one {got}",
            )
    if names:
        exam.add(say.non_contiguous_grad_out(layout, None, names, tuple(evidence[:MAX_EVIDENCE])))
    else:
        exam.layout_checked = True


def check_undefined(exam: "Record", run: EngineRun) -> None:
    """backward with undefined grad_outs, as gradcheck's check_undefined_grad sends them."""
    several = len(run.tracked) > 1
    for case in run.undefined:
        which = "" if case.output is None else exam.output_label(case.output)
        if case.failure is not None:
            failure = f"{case.failure.kind}: {case.failure.message}"
            exam.add(say.undefined_grad_out(which, failure, [], several))
        elif case.nonzero and not exam.has(*FIRST_ORDER):  # grad_out + slope shows here too
            names = [exam.names[i] for i in case.nonzero]
            exam.add(say.undefined_grad_out(which, None, names, several))
