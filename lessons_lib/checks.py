"""The gradient doctor: run a learner's Function, name each mistake, and say how to fix it."""

import html
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from lessons_lib.display import message_box
from lessons_lib.errors import InputError, LessonError
from lessons_lib.probe import (
    Failure,
    as_tuple,
    describe_non_function,
    differentiable,
    fresh_inputs,
    is_function,
    preserved_global_state,
    run_function,
    vjp,
)

# Most important first: a later finding is often a consequence of an earlier one.
CODES = (
    "not-a-function",
    "error",
    "mutates-input",
    "forward",
    "grad-count",
    "grad-shape",
    "no-gradient",
    "chain-rule",
    "gradient",
    "ctx-tensor",
)

# Where each mistake is taught; the notebooks use these headings.
DEV = "Developer track"
LESSON_SECTIONS = {
    "not-a-function": f"{DEV}, “A complete custom operation”",
    "error": f"{DEV}, “The walkthrough”",
    "mutates-input": f"{DEV}, “The walkthrough” (why save_for_backward)",
    "forward": f"{DEV}, “A complete custom operation”",
    "grad-count": f"{DEV}, “Common mistakes”: the wrong number of gradients",
    "grad-shape": f"{DEV}, “The walkthrough” (one gradient per input)",
    "no-gradient": f"{DEV}, “The walkthrough” (one gradient per input)",
    "chain-rule": f"{DEV}, “Common mistakes”: breaking the chain",
    "gradient": f"{DEV}, “Common mistakes”: a wrong derivative that runs fine",
    "ctx-tensor": f"{DEV}, “Common mistakes”: tensors stashed on ctx",
}

RTOL, ATOL = 1e-5, 1e-7
MAX_EVIDENCE = 3


@dataclass(frozen=True)
class Finding:
    """One diagnosed mistake: what went wrong, the evidence, why it matters, how to fix it."""

    code: str
    what: str
    why: str
    fix: str
    evidence: tuple[str, ...] = ()

    @property
    def section(self) -> str:
        return LESSON_SECTIONS[self.code]


class Report:
    """The doctor's verdict on one Function: `ok`, `codes`, and readable text or HTML."""

    def __init__(self, name: str, findings: Sequence[Finding], checked: str = "") -> None:
        self.name = name
        self.findings = sorted(findings, key=lambda f: CODES.index(f.code))
        self.checked = checked  # what a clean bill of health covered

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
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        if self.ok:
            return message_box(self._headline(), f"<p>{html.escape(self.checked)}</p>", "ok")
        parts = []
        for f in self.findings:
            evidence = "".join(f"<li><code>{html.escape(e)}</code></li>" for e in f.evidence)
            parts.append(
                f"<p><b>{html.escape(f.what)}</b> <small>({f.code})</small></p>"
                + (f"<ul>{evidence}</ul>" if evidence else "")
                + f"<p><i>Why it matters:</i> {html.escape(f.why)}<br>"
                f"<i>How to fix it:</i> {html.escape(f.fix)}<br>"
                f"<i>Read more:</i> {html.escape(f.section)}</p>"
            )
        return message_box(self._headline(), "".join(parts), "problem")


def default_inputs() -> tuple[torch.Tensor]:
    """A float64 sample that exposes the classic bugs: signs, 0, (0, 1), >1, half-integers, 2-d."""
    x = torch.tensor(
        [[-2.5, -1.5, -1.0, -0.5], [0.0, 0.25, 0.5, 0.75], [1.0, 1.5, 2.0, 2.5]],
        dtype=torch.float64,
    )
    return (x,)


def check_function(
    fn: object,
    reference: Callable,
    *,
    grad_reference: Callable | None = None,
    inputs: Sequence | torch.Tensor | None = None,
) -> Report:
    """Diagnose a learner's Function against a plain torch `reference` of its forward.

    The intended gradient is autograd's gradient of `reference`, or, for surrogate
    gradients, `grad_reference(*inputs, grad_out)`. Never raises for a broken `fn`;
    raises a LessonError only when the check itself is set up wrongly.
    """
    owner = getattr(fn, "__self__", None)  # Cube.apply was passed for Cube
    name = (
        f"{owner.__name__}.apply"
        if is_function(owner)
        else getattr(fn, "__name__", type(fn).__name__)
    )
    if not is_function(fn):
        return Report(name, [_not_a_function(fn)])
    if not callable(reference):
        raise InputError(
            f"reference must be a function computing the intended forward, got {reference!r}."
        )
    inputs = _validated(default_inputs() if inputs is None else inputs)
    names = _input_names(fn, len(inputs))
    with preserved_global_state():
        return Report(
            name, _diagnose(fn, reference, grad_reference, inputs, names), _checked(inputs)
        )


def _diagnose(fn, reference, grad_reference, inputs, names) -> list[Finding]:
    run = run_function(fn, inputs, _upstream_gradient)
    if run.failure:
        return [_error(run.failure)]
    findings = []
    if run.mutated_inputs:
        findings.append(_mutates_input([names[i] for i in run.mutated_inputs]))
    if run.ctx_tensors:
        findings.append(_ctx_tensor(run.ctx_tensors))

    ref = vjp(reference, inputs, _upstream_gradient)
    if ref.failure:
        raise LessonError(f"The reference itself failed, so nothing can be checked: {ref.failure}.")
    forward = _compare_forward(run.output, ref.output, inputs, names[0])
    if forward:
        findings.append(forward)

    expected = ref.grads if grad_reference is None else _intended(grad_reference, inputs, ref)
    upstream = _upstream_gradient(ref.output)
    findings += _compare_gradients(fn, inputs, names, run.grads, expected, upstream)
    return findings


def _upstream_gradient(output: torch.Tensor) -> torch.Tensor:
    """A fixed, non-uniform grad_out: a backward that ignores it cannot match by luck."""
    generator = torch.Generator().manual_seed(0)
    return torch.empty_like(output).uniform_(0.5, 2.0, generator=generator).round(decimals=2)


def _intended(grad_reference: Callable, inputs: tuple, ref) -> tuple:
    """The surrogate gradient, aligned one entry per input (None for non-differentiable ones)."""
    args = fresh_inputs(inputs)
    try:
        with torch.no_grad():
            given = list(as_tuple(grad_reference(*args, _upstream_gradient(ref.output))))
    except Exception as error:
        raise LessonError(
            f"grad_reference itself failed, so nothing can be checked: "
            f"{Failure.of('grad_reference', error)}."
        ) from None
    if len(given) == len(inputs):
        return tuple(given)
    return tuple(given.pop(0) if differentiable(a) and given else None for a in inputs)


def _compare_forward(output, expected: torch.Tensor, inputs, x_name: str) -> Finding | None:
    if not isinstance(output, torch.Tensor):
        return Finding(
            "forward",
            f"forward returned {type(output).__name__}, not a single tensor.",
            "Whatever forward returns is what the next step receives.",
            "Return one tensor computed from the inputs.",
        )
    if output.shape != expected.shape:
        return Finding(
            "forward",
            f"forward returned shape {tuple(output.shape)}; the reference gives {tuple(expected.shape)}.",
            "Later steps expect the shape the operation is meant to produce.",
            "Compute elementwise on the input, without reshaping or reducing it.",
        )
    wrong = ~torch.isclose(output.to(expected.dtype), expected, RTOL, ATOL, equal_nan=True)
    if not wrong.any():
        return None
    return Finding(
        "forward",
        "forward computes different values from the reference.",
        "Every gradient is meaningless if the forward step is not the intended one.",
        "Compare your forward line with the formula; run it on one number by hand.",
        _evidence(wrong, inputs[0], x_name, expected, output),
    )


def _compare_gradients(fn, inputs, names, grads, expected, upstream) -> list[Finding]:
    if len(grads) != len(inputs) or any(
        g is not None and not isinstance(a, torch.Tensor)
        for g, a in zip(grads, inputs, strict=True)
    ):
        return [_grad_count(len(grads), names, inputs)]
    findings = []
    for i, (got, want, x) in enumerate(zip(grads, expected, inputs, strict=True)):
        if not differentiable(x):
            continue
        if got is None:
            findings.append(_no_gradient(names[i]))
        elif not isinstance(got, torch.Tensor) or got.shape != x.shape:
            findings.append(_grad_shape(names[i], got, x))
        else:
            wrong = ~torch.isclose(got.to(want.dtype), want, RTOL, ATOL, equal_nan=True)
            if wrong.any():
                evidence = _evidence(wrong, x, names[i], want, got, upstream)
                if _ignores_upstream(fn, inputs, i, got):
                    findings.append(_chain_rule(names[i], evidence))
                else:
                    findings.append(_gradient(names[i], evidence, surrogate=not want.any()))
    return findings


def _ignores_upstream(fn, inputs, i: int, got: torch.Tensor) -> bool:
    """True when doubling grad_out does not double the gradient: the chain is broken."""
    doubled = run_function(fn, inputs, lambda out: 2 * _upstream_gradient(out))
    if doubled.failure or len(doubled.grads) <= i or not isinstance(doubled.grads[i], torch.Tensor):
        return False
    again = doubled.grads[i].to(got.dtype)
    return again.shape == got.shape and not torch.allclose(
        again, 2 * got, RTOL, ATOL, equal_nan=True
    )


def _evidence(wrong, x, x_name, expected, got, upstream=None) -> tuple[str, ...]:
    """A few 'at x = ...: expected ..., got ...' lines where values disagree."""
    lines = []
    for index in wrong.nonzero()[:MAX_EVIDENCE].tolist():
        at, subscript = tuple(index), ", ".join(map(str, index))
        if isinstance(x, torch.Tensor) and x.shape == wrong.shape:
            where = f"{x_name}[{subscript}]" if x.dim() > 1 else x_name
            where = f"{where} = {x[at].item():.4g}"
        else:
            where = f"output[{subscript}]"
        if upstream is not None and upstream.shape == wrong.shape:
            where += f" (grad_out {upstream[at].item():.4g})"
        lines.append(f"at {where}: expected {expected[at].item():.4g}, got {got[at].item():.4g}")
    return tuple(lines)


def _checked(inputs) -> str:
    count = sum(a.numel() for a in inputs if differentiable(a))
    return (
        f"Forward values and gradients match the reference at {count} sample points, "
        "the gradient scales with grad_out, and no tensor is kept on ctx."
    )


def _validated(inputs) -> tuple:
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, list | tuple):
        raise InputError(
            f"inputs must be a tuple of arguments for forward, got {type(inputs).__name__}."
        )
    inputs = tuple(inputs)
    if not any(differentiable(a) for a in inputs):
        dtypes = ", ".join(str(a.dtype) for a in inputs if isinstance(a, torch.Tensor)) or "none"
        raise InputError(
            "inputs need at least one floating-point tensor, because only those have gradients "
            f"(tensor dtypes given: {dtypes}). Try x.double()."
        )
    return inputs


def _input_names(fn: type, count: int) -> list[str]:
    """forward's own parameter names (after ctx in the classic form), else input 0, 1, ..."""
    params = list(inspect.signature(fn.forward).parameters.values())
    if not _uses_setup_context(fn):
        params = params[1:]
    names = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    return names if len(names) == count else [f"input {i}" for i in range(count)]


def _uses_setup_context(fn: type) -> bool:
    return fn.setup_context is not torch.autograd.Function.setup_context


# --- one constructor per code: the words a learner reads -------------------------


def _not_a_function(fn: object) -> Finding:
    return Finding(
        "not-a-function",
        describe_non_function(fn, "check_function({}, reference)"),
        "Only a Function subclass carries both a forward step and its own backward rule.",
        "Write `class MyStep(torch.autograd.Function)` with @staticmethod forward(ctx, x) "
        "and backward(ctx, grad_out), and pass MyStep.",
    )


def _error(failure: Failure) -> Finding:
    hint = ""
    if "positional argument" in failure.message:
        hint = " forward takes ctx first, then one parameter per input given to apply."
    elif failure.kind == "NotImplementedError" and failure.stage == "backward":
        hint = " Define a @staticmethod backward(ctx, grad_out)."
    return Finding(
        "error",
        f"{failure.stage} raised {failure.kind}: {failure.message}",
        "A step that raises stops every forward or backward pass through it.",
        f"Read the message above and fix that line of {failure.stage}.{hint}",
    )


def _mutates_input(names: list[str]) -> Finding:
    return Finding(
        "mutates-input",
        f"forward changed its input {', '.join(names)} in place.",
        "The caller's tensor silently changes, and any gradient that needs its old value is corrupted.",
        "Compute a new tensor (x * 2, not x.mul_(2)); if in place is truly needed, call ctx.mark_dirty(x).",
    )


def _ctx_tensor(names: list[str]) -> Finding:
    stored = ", ".join(f"ctx.{n}" for n in names)
    return Finding(
        "ctx-tensor",
        f"A tensor is stored as a plain attribute ({stored}) instead of through save_for_backward.",
        "It may give the right numbers today, but it skips the version check that catches a saved "
        "tensor changed in place, breaks double backward, and, for an output, makes a reference cycle that leaks memory.",
        "Save tensors with ctx.save_for_backward(x) and read them with ctx.saved_tensors; "
        "only non-tensors (numbers, shapes, flags) belong on ctx attributes.",
    )


def _grad_count(returned: int, names: list[str], inputs) -> Finding:
    expected = ", ".join(
        n if differentiable(a) else f"None for {n}" for n, a in zip(names, inputs, strict=True)
    )
    return Finding(
        "grad-count",
        f"backward returned {returned} value(s); forward has {len(inputs)} input(s): {expected}.",
        "Autograd pairs backward's results with forward's inputs by position; a miscount is an error.",
        "Return exactly one value per forward input, in order, with None for inputs that are not tensors.",
    )


def _grad_shape(name: str, got: object, x: torch.Tensor) -> Finding:
    shape = f"shape {tuple(got.shape)}" if isinstance(got, torch.Tensor) else type(got).__name__
    return Finding(
        "grad-shape",
        f"The gradient for {name} is {shape}; {name} has shape {tuple(x.shape)}.",
        "Each gradient says how the loss changes with each element of its input, so it is shaped like that input.",
        "Build the gradient elementwise from grad_out and the saved input; do not sum or reshape it.",
    )


def _no_gradient(name: str) -> Finding:
    return Finding(
        "no-gradient",
        f"backward returned None for {name}, which needs a gradient.",
        "None means 'no gradient here': everything before this step stops learning.",
        f"Return grad_out times the derivative with respect to {name}; None is only for non-tensor inputs.",
    )


def _chain_rule(name: str, evidence: tuple[str, ...]) -> Finding:
    return Finding(
        "chain-rule",
        f"backward ignores grad_out: its gradient for {name} does not scale with the upstream gradient.",
        "grad_out carries everything the later steps know; dropping it silently discards them.",
        "Multiply by grad_out: return grad_out * (local derivative).",
        evidence,
    )


def _gradient(name: str, evidence: tuple[str, ...], surrogate: bool = False) -> Finding:
    fix = "Re-derive the local derivative of forward, and confirm with torch.autograd.gradcheck in float64."
    if surrogate:  # the true gradient is zero here: perhaps a deliberate straight-through rule
        fix += " If a different gradient is deliberate (a surrogate), pass it as grad_reference."
    return Finding(
        "gradient",
        f"The gradient for {name} is wrong: backward's values differ from the intended ones.",
        "A wrong-but-plausible backward trains quietly worse, with no error anywhere.",
        fix,
        evidence,
    )
