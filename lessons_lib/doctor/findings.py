"""What the gradient doctor can find: the codes, where each is taught, and the words a learner reads.

Each constructor returns one Finding: what went wrong, why it matters, how to fix it,
and the evidence. checks.py decides *whether* a mistake is there; this module only
says it, so the wording of every code lives in one place.
"""

import dataclasses
import math
from dataclasses import dataclass

import torch

from lessons_lib.doctor.non_finite import Step
from lessons_lib.running import SavedChange, describe_non_function
from lessons_lib.sections import TAUGHT, cite

# Most important first: a later finding is often a consequence of an earlier one.
CODES = (
    "not-a-function",
    "error",
    "mutates-input",
    "forward",
    "grad-count",
    "non-tensor-grad",
    "grad-shape",
    "no-gradient",
    "mutates-saved",  # what backward computes from the changed tensor may be wrong too
    "mutates-grad-out",
    "chain-rule",
    "non-finite",
    "gradient",
    "non-contiguous-grad-out",
    "undefined-grad-out",
    "grad-dtype",
    "double-backward",
    "jvp",
    "ctx-tensor",
)

# Where each mistake is taught: sections.TAUGHT under the code's own name, or nowhere
# (NO_SECTION then says what the report itself explains). A developer reads their own track
# first; the researcher track is further reading, or the one place an idea is taught
# (ONLY_RESEARCHER).
NO_SECTION = {  # what "Read more" says where no lesson section covers the idea
    "error": "no lesson section covers errors in your own code: PyTorch's message above names "
    "the problem, and for the messages learners meet most, “How to fix it” adds the usual cause",
    "grad-shape": "no developer section covers a gradient's shape: “Why it matters” and "
    "“How to fix it” above explain it",
    "grad-dtype": "no lesson section covers a gradient's dtype: “Why it matters” and “How to "
    "fix it” above explain it",
}
FURTHER_READING = {  # sections.TAUGHT's "<code>-further" entries
    code: (TAUGHT[f"{code}-further"],) for code in CODES if f"{code}-further" in TAUGHT
}
ONLY_RESEARCHER = {  # no developer track teaches these: what "Read more" adds
    "non-finite": "the developer tracks do not cover NaN and overflow in a derivative",
}
# A NaN or inf whose traced cause no section shows (3.3 shows overflow, and 0 * inf after it).
NON_FINITE_UNCOVERED = (
    "no lesson section covers this cause of a NaN or an infinity: the evidence (“there, "
    "backward computed ...”) and “How to fix it” above explain it"
)


LESSON_SECTIONS = {
    code: cite(TAUGHT[code]) if code in TAUGHT else NO_SECTION[code] for code in CODES
}


@dataclass(frozen=True)
class Finding:
    """One diagnosed mistake: what went wrong, the evidence, why it matters, how to fix it."""

    code: str
    what: str
    why: str
    fix: str
    evidence: tuple[str, ...] = ()
    read_more: str = ""  # where this finding, unlike others of its code, is taught (or not)

    @property
    def section(self) -> str:
        """Where the learner's own track teaches this ("Read more")."""
        if self.read_more:
            return self.read_more
        only = ONLY_RESEARCHER.get(self.code)
        return f"{LESSON_SECTIONS[self.code]} ({only})" if only else LESSON_SECTIONS[self.code]

    @property
    def further(self) -> str:
        """Deeper sections, in another track ("Further reading"), or ""."""
        return "; ".join(cite(section) for section in FURTHER_READING.get(self.code, ()))


def shape_of(value: object) -> str:
    """(3, 4) for a tensor, the type's name for anything else."""
    return str(tuple(value.shape)) if isinstance(value, torch.Tensor) else type(value).__name__


def not_a_function(fn: object) -> Finding:
    return Finding(
        "not-a-function",
        describe_non_function(fn, "check_function({}, reference)"),
        "Only a Function subclass carries both a forward step and its own backward rule.",
        "Write `class MyStep(torch.autograd.Function)` with @staticmethod forward(ctx, x) "
        "and backward(ctx, grad_out), and pass MyStep.",
    )


ERROR_HINTS = (  # (words in PyTorch's message, the usual cause and its fix)
    (
        "positional argument",
        "forward takes ctx first, then one parameter per input given to apply.",
    ),
    (
        "must implement either the backward or vjp",
        "Define a @staticmethod backward(ctx, grad_out).",
    ),
    (
        "Boolean value of Tensor with more than one value is ambiguous",
        "Python's and, or, not and if, and a chained comparison such as 0 <= x <= 1, each ask "
        "a tensor for one True or False, which a tensor of several numbers cannot give (with "
        "one number it works, which hides the mistake). Combine masks elementwise with &, | and "
        "~, each comparison in parentheses: (x >= 0) & (x <= 1).",
    ),
)
_BITWISE = (
    "& and | bind more tightly than comparisons, so x >= 0 & x <= 1 means x >= (0 & x) <= 1: "
    "it computes 0 & x first, and & has no meaning for floating-point numbers. Put each "
    "comparison in parentheses: (x >= 0) & (x <= 1)."
)


def error_hint(message: str) -> str:
    """The usual cause of an error message learners meet, and its fix; "" for any other."""
    if "bitwise_" in message and "not implemented for" in message:  # 0 & x on floats
        return _BITWISE
    return next((hint for words, hint in ERROR_HINTS if words in message), "")


def error(stage: str, kind: str, message: str, where: str = "") -> Finding:
    hint = error_hint(message)
    return Finding(
        "error",
        f"{stage} raised {kind}: {message}",
        "A step that raises stops every forward or backward pass through it.",
        f"Read the message above and fix that line of {stage}." + (f" {hint}" if hint else ""),
        (f"on {where}",) if where else (),
    )


def mutates_input(names: list[str]) -> Finding:
    return Finding(
        "mutates-input",
        f"forward changed its input {', '.join(names)} in place.",
        "The caller's tensor silently changes, and any gradient that needs its old value is "
        "corrupted. A change made through .data or NumPy also slips past the version counter, "
        "so not even saved_tensors can notice it.",
        "Compute a new tensor (x * 2, not x.mul_(2) or x.data.mul_(2)); if in place is truly "
        "needed, change x with torch ops, call ctx.mark_dirty(x) and return x.",
    )


def forward(what: str, evidence: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "forward",
        what,
        "Every gradient is meaningless if the forward step is not the intended one, and later "
        "steps expect the outputs the operation is meant to produce.",
        "Compare your forward with the reference: the same number of outputs, each of the same "
        "shape and kind; run it on one number by hand.",
        evidence,
    )


def grad_count(returned: int, names: list[str], inputs: tuple) -> Finding:
    expected = ", ".join(
        f"a gradient for {n}" if isinstance(a, torch.Tensor) else f"None for {n}"
        for n, a in zip(names, inputs, strict=True)
    )
    return Finding(
        "grad-count",
        f"backward returned {returned} value(s); it should return {len(inputs)}, one per "
        f"forward input: {expected}.",
        "Autograd pairs backward's results with forward's inputs by position; a miscount is an "
        "error (extra trailing Nones are the one thing it forgives).",
        "Return exactly one value per forward input, in order, with None for inputs that are "
        "not tensors.",
    )


def non_tensor_grad(name: str, position: int, value: object) -> Finding:
    return Finding(
        "non-tensor-grad",
        f"backward returned a gradient for {name} (value number {position + 1}), but {name} is "
        f"a {type(value).__name__}, not a tensor.",
        "Only tensors can receive gradients: autograd refuses the whole backward pass "
        '("returned a gradient different than None ... not a Variable").',
        f"Return None in that position, for {name}; keep one value per forward input.",
    )


def grad_shape(name: str, got: object, x: torch.Tensor) -> Finding:
    target = tuple(x.shape)
    if not isinstance(got, torch.Tensor):
        what = f"The gradient for {name} is a {type(got).__name__}, not a tensor."
        fix = f"Return a tensor shaped like {name}: grad_out times the local derivative."
    elif got.numel() > x.numel():
        what = (
            f"The gradient for {name} has shape {shape_of(got)}; {name} has shape {target}, and "
            "the engine cannot sum the one down to the other."
        )
        fix = (
            f"If {name} was broadcast in forward, sum the gradient over the broadcast "
            f"dimensions (grad.sum_to_size({name}.shape) does exactly that); otherwise build it "
            f"elementwise, one value per element of {name}."
        )
    else:
        what = f"The gradient for {name} has shape {shape_of(got)}; {name} has shape {target}."
        fix = (
            f"Keep one value per element of {name}: build the gradient elementwise from "
            f"grad_out and the saved {name}, with no reduction (.sum() or .mean()) at the end."
        )
    return Finding(
        "grad-shape",
        what,
        "A gradient holds one value per element of its input. The engine repairs only one "
        "mismatch, a gradient that is larger along dimensions the input was broadcast over, "
        "by summing them; it refuses anything else.",
        fix,
    )


def no_gradient(name: str) -> Finding:
    return Finding(
        "no-gradient",
        f"backward returned None for {name}, which needs a gradient.",
        "None means 'no gradient here': everything before this step stops learning.",
        f"Return grad_out times the derivative with respect to {name}; None is only for "
        "inputs that are not tensors or that the output does not depend on.",
    )


def mutates_saved(change: SavedChange, names: list[str], evidence: tuple[str, ...]) -> Finding:
    kind, index = change.role or ("", 0)
    if kind == "input":
        tensor = f"the saved input {names[index]}"
        lands = (
            f"It lands on the caller's own tensor: {names[index]} silently holds the new numbers "
            "afterwards, and whatever reads it next (optimizer.step(), say) uses them."
        )
    elif kind == "output":
        tensor = "the saved output" if index == 0 else f"the saved output {index}"
        lands = (
            "It lands on your Function's output, which the caller holds: whatever reads that "
            "output next sees the new numbers."
        )
    else:
        tensor = f"a tensor made in forward and saved (argument {change.position + 1} of "
        tensor += "save_for_backward)"
        lands = "Nothing else holds this tensor, so nothing else changes now."
    if change.counted:
        later = (
            'Only a later backward that needs the same tensor raises ("modified by an inplace '
            'operation"): a second backward through this graph, or another step that saved it '
            "and runs after yours."
        )
    else:
        later = (
            "The change went around the version counter (.data or NumPy), so not even a second "
            "backward through this graph notices: it silently computes with the changed values."
        )
    return Finding(
        "mutates-saved",
        f"backward changed {tensor} in place.",
        "In one training step nothing raises: autograd checks a saved tensor's version when "
        f"backward reads ctx.saved_tensors, and your change comes after that. {lands} {later}",
        "Compute out of place: x.pow(2) or x * x, not x.pow_(2), x.mul_(...) or x *= ...; leave "
        "every saved tensor as forward saved it.",
        evidence,
    )


def mutates_grad_out(outputs: str, evidence: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "mutates-grad-out",
        f"backward changed grad_out{outputs} in place.",
        "grad_out is not yours to change: autograd may hand the same tensor to another step "
        "that runs later (the other input of an addition, say), or it is the caller's own "
        "tensor (the g in y.backward(g)); either way, they then read your numbers instead of "
        "theirs.",
        "Compute a new tensor: return grad_out * (local derivative), not grad_out.mul_(...) "
        "or grad_out *= ...",
        evidence,
    )


CHAIN_RULE_WHAT = {
    "ignores": "backward ignores grad_out: its gradient for {name} came back unchanged when "
    "grad_out was doubled and negated.",
    "adds": "backward adds grad_out instead of multiplying by it: when grad_out was doubled and "
    "negated, its gradient for {name} moved by grad_out itself, not in proportion.",
    "other": "backward does not scale with grad_out: when grad_out was doubled and negated, its "
    "gradient for {name} did not double and change sign.",
    # {detail}: the one number, and what it is if the doctor recognises it
    "one-number": "backward uses grad_out as one number: its gradient for {name} is the right "
    "gradient for a grad_out of all ones, times {detail}, instead of each element times its "
    "own grad_out.",
    # {detail}: which output, and backward's name for its grad_out
    "ignores-output": "backward ignores the grad_out of {detail}: its gradient for {name} is "
    "the right one for that grad_out set to zero, and wrong for the grad_out it was given.",
}
CHAIN_RULE_WHY = (
    "By the chain rule every gradient is grad_out times a local derivative, so it is "
    "proportional to grad_out, which carries everything the later steps know. Dropping "
    "grad_out, or adding it instead of multiplying, silently gives every earlier step the "
    "wrong gradient."
)
CHAIN_RULE_FIX = "Multiply by grad_out: return grad_out * (local derivative)."
CHAIN_RULE_WORDS = {  # why and fix, where the generic words would send the learner astray
    "one-number": (
        "Each element of grad_out is what the later steps say about its own output element, "
        "so backward must use each one where it belongs. Reducing grad_out to one number "
        "(grad_out.sum(), grad_out.mean(), grad_out[0]) gives every element the same share. "
        "A grad_out whose elements are all equal, like the ones .sum().backward() sends, hides "
        "the mistake (with .mean() the gradient is then exactly right); any loss that weighs "
        "the output's elements differently gets wrong gradients, with no error.",
        "Keep the local derivative and use grad_out element by element: return grad_out * "
        "(local derivative), with no .sum(), .mean() or indexing of grad_out.",
    ),
    "ignores-output": (
        "A Function with several outputs receives one grad_out per output, and the gradient "
        "for an input adds up what every output passes back: grad_out_0 * d(output 0)/dx + "
        "grad_out_1 * d(output 1)/dx + .... Leaving one out silently drops everything the "
        "loss says about that output.",
        "Add the share of every output that depends on the input: grad_out of each output "
        "times that output's local derivative, summed.",
    ),
}


def chain_rule(name: str, how: str, evidence: tuple[str, ...], detail: str = "") -> Finding:
    why, fix = CHAIN_RULE_WORDS.get(how, (CHAIN_RULE_WHY, CHAIN_RULE_FIX))
    return Finding(
        "chain-rule", CHAIN_RULE_WHAT[how].format(name=name, detail=detail), why, fix, evidence
    )


NON_FINITE_CAUSES = {
    "overflow": "an overflow (a result too large for the dtype)",
    "zero": "a division by zero (or the log of 0)",
    "zero-by-zero": "",  # the operation says it all
    "fractional-power": "a negative number to a fractional power",
    "negative-root": "the square root or log of a negative number",
    "undefined": "an operation undefined for these values",
}
_DIVIDES = {"div", "reciprocal", "log", "log2", "log10", "rsqrt", "pow", "xlogy"}
_ROOTS = {"sqrt", "rsqrt", "log", "log2", "log10"}
OVERFLOW_FIX = (
    "Rewrite the derivative so no intermediate value overflows: reuse the saved output (for a "
    "sigmoid, s * (1 - s) instead of exp(-x) / (1 + exp(-x))**2), or pick a stable formula per "
    "region with torch.where."
)
NON_FINITE_FIXES = {
    "overflow": OVERFLOW_FIX,
    "zero": "Do not divide by a value that can be 0 there: simplify the derivative (the zero "
    "often cancels), or give its limit at that point with torch.where.",
    "fractional-power": "In floating point a negative number to a fractional power is NaN "
    "((-8) ** (1/3) is NaN, not -2). Compute the derivative from a value where its formula is "
    "defined, such as the saved input (3 * x**2 for a cube) rather than the output through a "
    "fractional power; where a fractional power of a signed value is needed, use "
    "y.abs() ** p, times y.sign() where the sign matters.",
    "negative-root": "sqrt and log give NaN for a negative number: make sure their argument "
    "cannot be negative for any input (compute it from a saved value that cannot be), or pick "
    "a formula per region with torch.where.",
    "undefined": "Rewrite the derivative so every operation in it is defined for every input, "
    "or pick a formula per region with torch.where.",
}
NON_FINITE_FIXES["zero-by-zero"] = NON_FINITE_FIXES["zero"]
USUAL_CAUSES = {
    "NaN": "a fractional power, square root or log of a negative number; 0 / 0; or an overflow "
    "to inf followed by inf / inf, inf - inf or 0 * inf",
    "inf": "an overflow (exp of a large number, a high power) or a division by 0",
}


def non_finite_cause(step: Step) -> str:
    """Why an operation on finite numbers gave NaN or inf: a key of NON_FINITE_CAUSES."""
    numbers = [v for v in step.args if isinstance(v, int | float) and not isinstance(v, bool)]
    if math.isinf(step.result):
        return "zero" if step.op in _DIVIDES and 0 in numbers else "overflow"
    if step.op == "pow" and len(numbers) >= 2 and numbers[0] < 0 and numbers[1] % 1:
        return "fractional-power"
    if step.op in _ROOTS and numbers and numbers[0] < 0:
        return "negative-root"
    if step.op == "div" and numbers[:2] == [0, 0]:
        return "zero-by-zero"
    return "undefined"


SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}


def step_text(step: Step) -> str:
    """An operation at one element as arithmetic: (-15.62) ** 0.6667 = nan, exp(1000) = inf."""

    def shown(value: object, bare: bool = False) -> str:
        if isinstance(value, float | int) and not isinstance(value, bool):
            text = f"{value:.4g}"
            return f"({text})" if value < 0 and not bare else text
        return str(value)

    args = step.args
    if step.op in SYMBOLS and len(args) >= 2:
        text = f"{shown(args[0])} {SYMBOLS[step.op]} {shown(args[1])}"
    elif step.op == "rsub" and len(args) >= 2:
        text = f"{shown(args[1])} - {shown(args[0])}"
    else:
        text = f"{step.op}({', '.join(shown(a, bare=True) for a in args)})"
    return f"{text} = {step.result}"


def non_finite(
    name: str, evidence: tuple[str, ...], got: torch.Tensor, steps: list[Step]
) -> Finding:
    """NaN or inf in backward's gradient: what backward computed there, and the fix for that."""
    nan, inf = bool(got.isnan().any()), bool(got.isinf().any())
    kind = "NaN or infinite" if nan and inf else "NaN" if nan else "infinite"
    cause = non_finite_cause(steps[0]) if steps else None
    if steps:
        traced = f"there, backward computed {step_text(steps[0])}"
        traced += f": {NON_FINITE_CAUSES[cause]}" if NON_FINITE_CAUSES[cause] else ""
        traced += "".join(f"; then {step_text(s)}" for s in steps[1:])
        evidence = (*evidence[:1], traced, *evidence[1:])
        fix = NON_FINITE_FIXES[cause]
        # 3.3 shows an overflow and the NaN it turns into, and no other cause
        read_more = "" if cause == "overflow" else NON_FINITE_UNCOVERED
    else:  # not traced (NumPy, or values that cannot be placed): the usual causes
        seen = [value for value, found in (("NaN", nan), ("inf", inf)) if found]
        fix = (
            f"Find the operation in backward that gives {' or '.join(seen)} there, by evaluating "
            "its formula at that point step by step."
        )
        fix += "".join(f" The usual causes of {value}: {USUAL_CAUSES[value]}." for value in seen)
        read_more = ""  # overflow is one of the usual causes: 3.3 shows it
    return Finding(
        "non-finite",
        f"The gradient for {name} is {kind} where the true gradient is finite.",
        "A NaN or an infinity in a gradient spreads: every weight it updates becomes NaN or "
        "infinite, and from then on training computes NaN everywhere.",
        fix,
        evidence,
        read_more,
    )


GRADIENT_FIX = (
    "Work out again the slope of what forward computes (its local derivative: 3·x² for x³, "
    "say), and return grad_out times that slope (lesson 2 shows how to confirm it with "
    "gradcheck)."
)
SURROGATE_NOTE = " If a different gradient is deliberate (a surrogate), pass it as grad_reference."
FORWARD_FIRST_FIX = (
    "Fix forward first (its problem is reported above), then run the doctor again. Your "
    "backward may be right for the forward you wrote: the doctor compares it with the "
    "intended forward's gradient, while gradcheck, which trusts your forward, would pass it. "
    "Either way, backward must then match the corrected forward: grad_out times its slope."
)


def gradient(name: str, evidence: tuple[str, ...], surrogate: bool = False) -> Finding:
    # surrogate: the true gradient is zero here, so a different one may be a deliberate rule
    return Finding(
        "gradient",
        f"The gradient for {name} is wrong: backward's values differ from the intended ones.",
        "A wrong-but-plausible backward trains quietly worse, with no error anywhere.",
        GRADIENT_FIX + (SURROGATE_NOTE if surrogate else ""),
        evidence,
    )


def after_wrong_forward(finding: Finding) -> Finding:
    """A gradient finding in a report that also says forward is wrong: fix forward first."""
    return dataclasses.replace(finding, fix=FORWARD_FIRST_FIX)


def non_contiguous_grad_out(
    layout: str, failure: str | None, names: list[str], evidence: tuple[str, ...] = ()
) -> Finding:
    """`failure`: what backward raised; otherwise `names` got another gradient, per `evidence`."""
    sent = f"with the same grad_out values {layout}"
    if failure is not None:
        what = "backward raises when grad_out is not contiguous."
        evidence = (f"{sent}, backward raised {failure}",)
    else:
        what = f"backward gives another gradient for {', '.join(names)} when grad_out is not contiguous."
        evidence = (f"{sent}:", *evidence)
    return Finding(
        "non-contiguous-grad-out",
        what,
        "In training, grad_out arrives in whatever memory layout the later steps produced, and "
        "that is often not contiguous: after y.sum(0) it is expanded, after y.t() * w "
        "transposed. grad_out.view(...) raises on such a layout, and code that reads the memory "
        "as if contiguous reads the wrong numbers; a contiguous grad_out, like the doctor's "
        "first one, hides both.",
        "Write grad_out.reshape(...) where you wrote grad_out.view(...) (reshape copies only "
        "when the layout needs it), or start backward with grad_out = grad_out.contiguous() "
        "when later code needs contiguous memory.",
        evidence,
    )


def undefined_grad_out(
    which: str, failure: str | None, names: list[str], several: bool = False
) -> Finding:
    """backward mishandles an undefined grad_out: `failure` is what it raised, else `names`
    got a non-zero gradient. `which`: the output whose grad_out was undefined, "" for all
    of them; `several`: the Function has several outputs."""
    sent = f"the grad_out of {which}" if which else "every grad_out" if several else "grad_out"
    if failure is not None:
        got = "None" if "None" in failure else "undefined"  # None when not materialized
        what = f"backward raises when {sent} is {got}."
        evidence = (f"with {sent} {got}, backward raised {failure}",)
        harm = (
            "backward then receives None, and training stops with this error. gradcheck's "
            "check_undefined_grad (on by default) sends the same undefined grad_out."
        )
    else:
        what = (
            f"backward returns a non-zero gradient for {', '.join(names)} when {sent} is undefined."
        )
        evidence = ()
        harm = (
            "backward then receives None. Either way, with no gradient coming back, the "
            "gradient for every input is zero: a backward that returns anything else moves "
            "weights the loss does not depend on. gradcheck's check_undefined_grad (on by "
            "default) expects None or zeros back."
        )
    return Finding(
        "undefined-grad-out",
        what,
        "An output's gradient is undefined when nothing after it sends one back: the step "
        "that used it returned None for it, or (with several outputs) the loss does not use "
        "that output. Autograd then hands backward zeros in its place, unless forward called "
        f"ctx.set_materialize_grads(False): {harm}",
        "Handle None before using grad_out: start backward with `if grad_out is None: return "
        "None` (one None per input), or, with several outputs, skip the share of each output "
        "whose grad_out is None. Or leave materialization on (drop "
        "ctx.set_materialize_grads(False)) if backward gains nothing from skipping the zeros.",
        evidence,
    )


def grad_dtype(changes: list[str]) -> Finding:
    return Finding(
        "grad-dtype",
        f"backward returned a gradient of another dtype: {'; '.join(changes)}.",
        "The engine casts it back to the input's dtype without a word, but the precision lost "
        "on the way is gone (float32 keeps about 7 significant digits of float64's 16).",
        "Compute the gradient in the input's dtype: build it from grad_out and the saved "
        "tensors, without .float() or .half(), and give constants the input's dtype "
        "(torch.tensor(c, dtype=x.dtype)).",
    )


def double_backward(what: str, evidence: tuple[str, ...] = (), raised: bool = False) -> Finding:
    if raised:
        why = (
            "First derivatives work, so nothing shows in ordinary training; but anything that "
            "differentiates a gradient (torch.autograd.grad with create_graph=True, gradient "
            "penalties, torch.func.hessian) stops with this error."
        )
        fix = (
            "Build backward from differentiable torch ops on the saved tensors and grad_out (no "
            "NumPy, .item() or torch.tensor(...)), so it can be differentiated. If it must leave "
            "torch, decorate it with @once_differentiable, an honest refusal. Do not silence the "
            "error with .detach(): the second derivative is then silently wrong."
        )
    else:
        why = (
            "Anything that differentiates a gradient (torch.autograd.grad with "
            "create_graph=True, gradient penalties, torch.func.hessian) gets these wrong "
            "numbers, with no error."
        )
        fix = (
            "Build backward from differentiable torch ops on the saved tensors and grad_out: no "
            ".detach(), .data, NumPy or in-place tricks. If it cannot be differentiable (foreign "
            "code), decorate it with @once_differentiable, so a second derivative through it "
            "raises (at least when grad_out itself carries a graph) instead of being wrong."
        )
    return Finding("double-backward", what, why, fix, evidence)


def jvp(what: str, evidence: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "jvp",
        what,
        "Forward mode (torch.func.jvp, jacfwd, and hessian whenever the output feeds something "
        "nonlinear) uses jvp, not backward, so it gets these wrong numbers while backward and "
        "gradcheck's default, reverse-mode checks look right.",
        "jvp(ctx, *tangents) pushes each input's tangent forward: for y = f(x) it returns "
        "f'(x) * x_tangent. Save what it needs with ctx.save_for_forward in setup_context.",
        evidence,
    )


def ctx_tensor(names: list[str]) -> Finding:
    stored = ", ".join(f"ctx.{n}" for n in names)
    return Finding(
        "ctx-tensor",
        f"A tensor is stored as a plain attribute ({stored}) instead of through save_for_backward.",
        "It may give the right numbers today, but it skips the official route: the version "
        "check that catches a saved tensor changed in place before backward, and saved-tensor "
        "hooks (torch.autograd.graph.saved_tensors_hooks, which activation checkpointing and "
        "CPU offloading use) never see it. A stashed output also forms a reference cycle "
        "(output → grad_fn → ctx → output), so its memory is held until Python's garbage "
        "collector runs rather than freed at once.",
        "Save tensors with ctx.save_for_backward(x) and read them with ctx.saved_tensors; "
        "only non-tensors (numbers, shapes, flags) belong on ctx attributes.",
    )
