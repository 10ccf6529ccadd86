"""The words for a wrong gradient: chain-rule (grad_out misused) and gradient (a wrong derivative)."""

import dataclasses

from lessons_lib.doctor.findings import Finding
from lessons_lib.sections import read_more

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


GRADIENT_FIX = (
    "Work out again the slope of what forward computes (its local derivative: 3·x² for x³, "
    "say), and return grad_out times that slope (lesson 2 shows how to confirm it with "
    "gradcheck)."
)
SURROGATE_NOTE = " If a different gradient is deliberate (a surrogate), pass it as grad_reference."
FORWARD_FIRST_FIX = (
    "Make forward and the reference agree first (see the forward problem above), then run "
    "the doctor again. Your "
    "backward may be right for the forward you wrote: the doctor compares it with the "
    "intended forward's gradient, while gradcheck, which trusts your forward, would pass it. "
    "Either way, backward must then match the corrected forward: grad_out times its slope."
)


def gradient(
    name: str,
    evidence: tuple[str, ...],
    surrogate: bool = False,
    *,
    declared: bool = False,
    outside: str | None = None,
    shape: tuple[str, str] | None = None,
    off_centre: str = "",
) -> Finding:
    """surrogate: the true gradient is zero here, so a different one may be a deliberate rule;
    declared: backward is held to grad_reference; outside: a tensor backward reads from the
    notebook's globals (a fact of its code); shape: what backward does and a grad_reference
    for it, read off its numbers (surrogates.shape_of); off_centre: where forward's step is."""
    what = f"The gradient for {name} is wrong: backward's values differ from the intended ones."
    fix = GRADIENT_FIX + (SURROGATE_NOTE if surrogate else "")
    if declared:
        what = (
            f"The gradient for {name} differs from grad_reference, the rule you declared, and "
            "from the reference's true gradient."
        )
        fix = (
            "Make backward return what grad_reference(*inputs, *grad_outs) returns (grad_out "
            "times your rule's slope), or correct grad_reference if backward is what you meant."
        )
    elif outside:
        fix = (
            f"backward reads {outside}, a tensor from outside it (the notebook's own "
            f"{outside}), not the {outside} forward was given: take it from what forward saved, "
            f"({outside},) = ctx.saved_tensors."
        )
    elif shape:
        does, rule = shape
        fix = (
            f"backward {does}?{off_centre} If that is deliberate, declare it, so that the "
            f"doctor holds backward to it: grad_reference=lambda x, grad_out: {rule}. If not: "
            + GRADIENT_FIX[0].lower()
            + GRADIENT_FIX[1:]
        )
    return Finding(
        "gradient",
        what,
        "A wrong-but-plausible backward trains quietly worse, with no error anywhere.",
        fix,
        evidence,
        read_more=_surrogate_section(surrogate or declared or bool(shape), off_centre),
    )


def _surrogate_section(looks_deliberate: bool, off_centre: str) -> str:
    """Where lesson 3 teaches what this wrong gradient may be: a surrogate (else "")."""
    if off_centre:  # a bump away from forward's step is taught where a surrogate is centred
        return read_more("surrogate-centre")
    return read_more("surrogate-test") if looks_deliberate else ""


def declared_rule_differs(name: str, evidence: tuple[str, ...]) -> Finding:
    """backward gives the reference's true gradient, where the declared grad_reference differs."""
    return Finding(
        "gradient",
        f"The gradient for {name} differs from grad_reference, the rule you declared; backward "
        "gives the reference's true gradient there.",
        "With grad_reference given, the doctor holds backward to that rule, so one of the two "
        "is not what you meant.",
        "If backward is right, check grad_reference: it is called as grad_reference(*inputs, "
        "*grad_outs) and must return the gradient already multiplied by grad_out, as backward "
        "does (for a straight-through estimator, lambda x, grad_out: grad_out).",
        evidence,
    )


def after_wrong_forward(finding: Finding) -> Finding:
    """A gradient finding in a report that also says forward is wrong: fix forward first."""
    return dataclasses.replace(finding, fix=FORWARD_FIRST_FIX)


def inexact(name: str, error: float, accuracy: float) -> str:
    """The note for a gradient right within tolerance but only to a finite difference's accuracy."""
    return (
        f"backward's gradient for {name} is within the doctor's tolerance, but differs from "
        f"the reference's gradient by up to {error:.1e} times the largest entry. Derivatives "
        f"computed from a formula in float64 agree far more closely (within {accuracy:g} for "
        "every correct Function the doctor is tested on); an error this size is what a "
        "finite difference leaves. If backward nudges its input and subtracts, write the "
        "derivative's formula instead: in float32 a finite difference keeps at best about "
        "five digits, and with gradcheck's step of 1e-6 it can be wrong in the first or second."
    )
