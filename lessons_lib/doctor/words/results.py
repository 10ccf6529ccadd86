"""The words for what a Function runs and returns: not-a-function, error, forward, and backward's results."""

import re

import torch

from lessons_lib.doctor.findings import Finding
from lessons_lib.running import Failure, describe_non_function


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
        "'tuple'",
        "The message names a tuple. ctx.saved_tensors is a tuple even when it holds one "
        "tensor: unpack it, (x,) = ctx.saved_tensors.",
    ),
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


def error(
    failure: Failure, where: str = "", saved: int | None = None, old_style: str | None = None
) -> Finding:
    """An error in the learner's forward or backward, with what the run recorded about it:
    the line it came through, whether it was their own raise, what forward had saved, and
    (old_style) the first parameter of a forward or backward that is not a @staticmethod."""
    stage, line = failure.stage, failure.line
    evidence = ((f"on {where}",) if where else ()) + ((f"the line: {line}",) if line else ())
    missing = re.search(r"object has no attribute '(\w+)'", failure.message)
    if old_style and missing:
        name = missing[1]
        fix = (
            f"{stage} is not a @staticmethod, so its first parameter, {old_style}, is autograd's "
            f"ctx, not an instance of your class: apply never runs __init__, so "
            f"{old_style}.{name} was never set. Make forward and backward @staticmethods "
            f"(ctx first), pass {name} to forward as an input, keep it on ctx for backward "
            f"(ctx.{name} = {name}), and return None as its gradient."
        )
    elif failure.own:
        fix = (
            f"This is your own {line.split()[0] if line.startswith('assert') else 'raise'}: "
            f"{stage} refused what the doctor sent{f' ({where})' if where else ''}. If your "
            "Function should accept it, loosen that condition; the doctor sends float tensors "
            "of the dtype of the inputs you give it (inputs=...)."
        )
    elif stage == "backward" and saved == 0 and "saved_tensors" in line:
        fix = (
            "forward saved nothing: ctx.saved_tensors was empty when backward read it. Call "
            "ctx.save_for_backward(...) in forward with every tensor backward needs."
        )
    else:
        raised_on = f" It was raised on this line of {stage}: {line}." if line else ""
        hint = error_hint(failure.message)
        fix = (
            f"Read the message above.{raised_on} The cause is on that line or in a value made "
            "before it." + (f" {hint}" if hint else "")
        )
    return Finding(
        "error",
        str(failure),
        "A step that raises stops every forward or backward pass through it.",
        fix,
        evidence,
    )


def forward(what: str, evidence: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "forward",
        what,
        "Every gradient is meaningless if the forward step is not the intended one, and later "
        "steps expect the outputs the operation is meant to produce.",
        "forward and the reference differ, so one of them is not what you meant. The reference "
        "must compute what forward should (x**3 for a cube, not its slope 3*x**2): check it "
        "first, then compare forward with it (the same number of outputs, each of the same "
        "shape and kind), on one number by hand.",
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


def output_dtype(lowered: list[str], widest: torch.dtype) -> Finding:
    return Finding(
        "output-dtype",
        f"{'; '.join(lowered)}, from {widest} inputs.",
        "Everything computed after it runs in the lower precision, the gradient included "
        "(float32 keeps about 7 significant digits of float64's 16), and gradcheck fails even "
        "a correct backward: its finite differences see only the output's digits.",
        "Keep the input's dtype: (x > 0).to(x.dtype) rather than (x > 0).float(), and give "
        "constants the input's dtype (torch.tensor(c, dtype=x.dtype)).",
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
