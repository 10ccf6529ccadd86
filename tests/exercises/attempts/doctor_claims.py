"""Claim-checkers for the gradient doctor's words on a learner's Cube (check_function(Cube,
lambda x: x**3), and check_cube's last case, which quotes the doctor's first finding):
each finding's "what" line by its code, the numbers its evidence quotes, and its headline.

Verified against CubeFacts (cube_facts.py): the attempt run on two probes, once more with
grad_out doubled and negated, and gradcheck / gradgradcheck in float64.
"""

import math
import re

import torch

from tests.exercises.attempts.claims import ClaimKind, claim
from tests.exercises.attempts.cube_facts import forward_cubes, is_right, multiplies
from tests.exercises.attempts.numbers import close


def _one(p):
    got = p.returned
    return got[0] if isinstance(got, tuple) and len(got) == 1 else got


def _chain_rule(found, a) -> bool | None:
    f = a.facts
    what = found["what"]
    base, scaled = _one(f.other), _one(f.scaled)
    if not isinstance(base, torch.Tensor) or not isinstance(scaled, torch.Tensor):
        return None
    if what.startswith("backward ignores grad_out"):
        return close(base, scaled)
    if what.startswith("backward does not scale with grad_out"):
        return not close(scaled, -2 * base)
    if what.startswith("backward adds grad_out instead of multiplying"):
        return close(scaled - base, f.scaled.grad_out - f.other.grad_out)
    if what.startswith("backward uses grad_out as one number"):
        g, slope = f.other.grad_out, 3 * f.other.x**2
        stats = {"the sum of grad_out": g.sum(), "the mean of grad_out": g.mean()}
        stats["grad_out's first element"] = g.flatten()[0]
        named = [v for k, v in stats.items() if k in what]
        if named:
            return close(base, named[0] * slope)
        k = base.flatten()[0] / slope.flatten()[0]  # unnamed: some one number times the slope
        return close(base, k * slope)
    return None


def _error(found, a) -> bool | None:
    said = re.match(r"(?P<stage>forward|backward) raised (?P<kind>\w+)", found["what"])
    if said is None:
        return None
    probes = a.facts.probes
    if said["stage"] == "forward" and said["kind"] == "NoGraph":
        return any(
            p.forward_ok and getattr(p.backward_raised, "kind", "") == "NoGraph" for p in probes
        )
    stage = "forward_raised" if said["stage"] == "forward" else "backward_raised"
    return any(getattr(getattr(p, stage), "kind", "") == said["kind"] for p in probes)


def _shape(found, a) -> bool | None:
    """The gradient's kind or shape is not x's, on a probe where backward gave one back."""
    kind = re.match(r"The gradient for x is an? (?P<kind>\w+), not a tensor", found["what"])
    gots = [(p, _one(p)) for p in a.facts.probes if p.backward_raised is None]
    if kind:
        return any(type(got).__name__ == kind["kind"] for _, got in gots) if gots else None
    tensors = [(p, got) for p, got in gots if isinstance(got, torch.Tensor)]
    if not tensors:
        return None  # backward failed on our probes: its shape there is unknown
    # The shapes quoted are of the doctor's 3x4 sample; on our probes: not x's shape.
    return any(got.shape != p.x.shape for p, got in tensors)


def _dtype(found, a) -> bool | None:
    said = re.search(r"(?P<dtype>torch\.\w+) for x, which is (?P<x>torch\.\w+)", found["what"])
    p = a.facts.other  # the float64 probe
    got = _one(p)
    if said is None or str(p.x.dtype) != said["x"]:
        return None
    return isinstance(got, torch.Tensor) and str(got.dtype) == said["dtype"]


def _gradient(found, a) -> bool | None:
    wrong = any(multiplies(p) is False for p in a.facts.probes)
    return True if wrong else None  # right on our probes: the doctor may have seen more


def _forward(found, a) -> bool | None:
    if "has shape" in found["what"]:
        p = a.facts.other
        return isinstance(p.output, torch.Tensor) and p.output.shape != p.x.shape
    return not all(forward_cubes(p) for p in a.facts.probes)


def _count(found, a) -> bool:
    n = re.search(r"returned (\d+) value", found["what"])
    got = a.facts.other.returned
    return bool(n) and isinstance(got, tuple) and len(got) == int(n[1])


_BY_CODE = {
    "chain-rule": _chain_rule,
    "double-backward": lambda found, a: (not a.facts.gradgradcheck) if a.facts.gradcheck else None,
    "error": _error,
    "forward": _forward,
    "grad-count": _count,
    "grad-dtype": _dtype,
    "grad-shape": _shape,
    "gradient": _gradient,
    "mutates-grad-out": lambda found, a: any(p.grad_out_changed for p in a.facts.probes),
    "mutates-input": lambda found, a: any(p.x_changed_by_forward for p in a.facts.probes),
    "mutates-saved": lambda found, a: any(
        p.saved_changed_by_backward or p.x_changed_by_backward for p in a.facts.probes
    ),
    "ctx-tensor": lambda found, a: bool(a.facts.check.ctx_tensors),
    "no-gradient": lambda found, a: _one(a.facts.other) is None,
    "not-a-function": lambda found, a: a.argument,
}


def _code_claim(code: str) -> ClaimKind:
    return claim(
        f"doctor [{code}]",
        rf"\[{re.escape(code)}\] (?P<what>.+)$",
        lambda found, a: _BY_CODE[code](found, a) if a.facts is not None or a.argument else None,
    )


def _arithmetic(found, a) -> bool:
    """ "backward computed A op B = R": R is what A op B gives in floating point."""
    left, right = float(found["a"].strip("()")), float(found["b"].strip("()"))
    value = torch.tensor(left, dtype=torch.float64)
    result = {"**": lambda: value**right, "/": lambda: value / right, "*": lambda: value * right}
    got, said = float(result[found["op"]]()), float(found["r"])
    if math.isnan(said) or math.isnan(got):
        return math.isnan(said) and math.isnan(got)
    return math.isclose(got, said, rel_tol=1e-2) or (math.isinf(said) and abs(got) > 1e30)


def _expected_gradient(found, a) -> bool:
    """ "at x = X (grad_out G): expected E": E is G·3X² (to the 4 digits printed)."""
    x, g, e = float(found["x"]), float(found["g"]), float(found["e"])
    return math.isclose(e, g * 3 * x**2, rel_tol=2e-2, abs_tol=1e-2)


def _expected_forward(found, a) -> bool:
    x, e = float(found["x"]), float(found["e"])
    return math.isclose(e, x**3, rel_tol=2e-2, abs_tol=1e-2)


def doctor_line_claims() -> list[ClaimKind]:
    """One claim kind per finding code, plus the evidence's arithmetic and expected values."""
    return [
        *(_code_claim(code) for code in _BY_CODE),
        claim(
            "doctor evidence: backward computed <a op b> = <r>",
            r"backward computed (?P<a>\(?-?[\d.e+-]+\)?) (?P<op>\*\*|/|\*) "
            r"(?P<b>\(?-?[\d.e+-]+\)?) = (?P<r>-?(?:[\d.e+-]+|nan|inf))",
            _arithmetic,
        ),
        claim(
            "doctor evidence: expected gradient at x",
            r"at x(?:\[[\d, ]+\])? = (?P<x>-?[\d.e+-]+) \((?:output [^,]+, )?grad_out "
            r"(?P<g>-?[\d.e+-]+)\): expected (?P<e>-?[\d.e+-]+)",
            _expected_gradient,
        ),
        claim(
            "doctor evidence: expected forward at x",
            r"at output(?:\[[\d, ]+\])? \(x(?:\[[\d, ]+\])? = (?P<x>-?[\d.e+-]+)\): "
            r"expected (?P<e>-?[\d.e+-]+)",
            _expected_forward,
        ),
    ]


def doctor_headline_claims() -> list[ClaimKind]:
    """The report's first line: no problems found only for a right Cube."""
    return [
        claim(
            "doctor headline: no problems found",
            r"^\w+: no problems found(?: \(checked in \w+\))?$",
            lambda found, a: None if a.argument else is_right(a.facts),
        ),
        claim(
            "doctor headline: problems found",
            r"^\w+: (?P<n>\d+) problems? found(?: \(checked in \w+\))?$",
            lambda found, a: True if a.argument else not is_right(a.facts),
        ),
    ]


def fix_claims() -> list[ClaimKind]:
    """The one "How to fix it" line that states a fact about the code."""
    return [
        claim(
            "doctor fix: forward's problem is reported above",
            r"Fix forward first \(its problem is reported above\)",
            lambda found, a: not all(forward_cubes(p) for p in a.facts.probes),
        )
    ]


UNVERIFIED = [
    (
        "evidence 'got' values at the doctor's points",
        "the doctor's sample (a 3x4 grid, random points, its own grad_outs) is not in the text, "
        "and a backward that sums or indexes grad_out gives per-point values that depend on all "
        "of it",
    ),
    (
        "[non-finite] NaN or infinite where the true gradient is finite",
        "found at the doctor's random and tail points; its arithmetic evidence is verified",
    ),
    ("[chain-rule] numbers such as 'times 1.96'", "of the doctor's own random grad_out"),
    ("'How to fix it' advice", "advice on what to write, not a statement about the code"),
    ("clean bill's list of what was checked", "a statement about the doctor, not the code"),
]
