"""The words for a NaN or an infinity in the gradient: the operation that made it, its cause and fix."""

import math

import torch

from lessons_lib.doctor.findings import NON_FINITE_UNCOVERED, Finding
from lessons_lib.doctor.non_finite import Step

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
