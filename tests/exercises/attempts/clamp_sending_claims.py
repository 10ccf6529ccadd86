"""Claim-checkers for what the learner's test sent: the points and grad_outs it quoted,
grad_outs repeated or never negative, and whether apply and backward ran."""

import re

from tests.exercises.attempts.clamp_claim_context import Context, numbers
from tests.exercises.attempts.clamp_facts import Run


def _formatted_grad_outs(run: Run) -> set[str]:
    return {numbers(b.grad_out) for b in run.backwards}


def quoted_numbers(ctx: Context) -> list[str]:
    """Numbers quoted as x, grad_out or x.grad are ones the attempt sent or got back."""
    if ctx.run is None:
        return []
    false = []
    text = ctx.verdict.problem_block
    runs = [ctx.run, ctx.attempt.facts.runs["abs-grad-out"]]
    grad_outs = set().union(*(_formatted_grad_outs(r) for r in runs))
    points = {numbers(a.x) for r in runs for a in r.applied}
    grads = {numbers(b.grad) for r in runs for b in r.backwards}
    for said in re.findall(r"grad_out = (\[[^\]]*\])", text):
        if said not in grad_outs:
            false.append(
                f"quoted grad_out = {said}, but the grad_outs sent were {sorted(grad_outs)}"
            )
    for said in re.findall(r"\bx = (\[[^\]]*\])", text):
        if said not in points:
            false.append(f"quoted x = {said}, but the points sent were {sorted(points)}")
    for said in re.findall(r"(?:x\.grad = |gave back )(\[[^\]]*\])", text):
        if said not in grads:
            false.append(f"quoted a gradient {said}, but backward gave back {sorted(grads)}")
    return false


def repeated_grad_out(ctx: Context) -> list[str]:
    """ "grad_out = [..], one number repeated / a single number / in which v (and w) are
    repeated" describes that grad_out: the numbers named are exactly those it repeats."""
    false = []
    for said, kind, named in re.findall(
        r"grad_out = (\[[^\]]*\]), (one number repeated|a single number|in which (.+?) (?:is|are) "
        r"repeated)",
        ctx.verdict.problem_block,
    ):
        values = said.strip("[]").split(", ")
        if kind == "a single number" and len(values) != 1:
            false.append(f"called {said} a single number")
        if kind == "one number repeated" and (len(values) < 2 or len(set(values)) != 1):
            false.append(f"called {said} one number repeated")
        twice = {v for v in values if values.count(v) > 1}
        if named and set(re.split(r", | and ", named)) != twice:
            false.append(f"said {named} repeated in {said}")
    return false


def every_grad_out_repeated(ctx: Context) -> list[str]:
    """ "every grad_out my_checks sent held one value repeated (v, ...)" is true of the suite's
    own grad_outs on the course's Clamp01."""
    said = re.search(
        r"every grad_out \w+ sent held one value repeated \(([^)]*)\)", ctx.verdict.text
    )
    if not said or ctx.attempt.facts is None:
        return []
    sent = [b.grad_out for b in ctx.attempt.facts.course.own_grad_outs()]
    if not sent or any(len(set(g.flatten().tolist())) > 1 and g.numel() > 1 for g in sent):
        return [
            f"said every grad_out held one value repeated, but it sent {[numbers(g) for g in sent]}"[
                :300
            ]
        ]
    return []


def backward_never_ran(ctx: Context) -> list[str]:
    """ "backward never ran" / "backward ran only inside gradcheck" are true."""
    false = []
    text = ctx.verdict.problem_block
    course = ctx.attempt.facts.course if ctx.attempt.facts else None
    if course is None:
        return []
    if "the Clamp01's backward never ran" in text and course.backwards:
        false.append(f"said backward never ran, but it ran {len(course.backwards)} time(s)")
    only_inside = course.own_grad_outs() or not course.backwards
    if "backward ran only inside gradcheck" in text and only_inside:
        false.append(
            f"said backward ran only inside gradcheck, but it ran {len(course.own_grad_outs())} "
            f"time(s) outside and {len(course.backwards) - len(course.own_grad_outs())} inside"
        )
    return false


def never_applied(ctx: Context) -> list[str]:
    """ "never called Clamp01Candidate.apply" and "called ... forward by hand N time(s)"."""
    false = []
    text = ctx.verdict.problem_block
    if ctx.run is None:
        return []
    if "never called Clamp01Candidate.apply" in text and ctx.run.applied:
        false.append(
            f"said apply was never called, but it was called {len(ctx.run.applied)} time(s)"
        )
    for n in re.findall(r"called Clamp01Candidate\.forward by hand (\d+) time", text):
        if int(n) != ctx.run.forward_direct:
            false.append(
                f"said forward was called by hand {n} time(s), but it was {ctx.run.forward_direct}"
            )
    return false


def abs_grad_out_claims(ctx: Context) -> list[str]:
    """ "every grad_out my_checks sent was 0 or more" is true of the abs-grad-out run."""
    if (
        ctx.attempt.facts is None
        or "every grad_out my_checks sent was 0 or more" not in ctx.verdict.text
    ):
        return []
    run = ctx.attempt.facts.runs["abs-grad-out"]
    negative = [numbers(b.grad_out) for b in run.own_grad_outs() if (b.grad_out < 0).any()]
    return [f"said every grad_out was 0 or more, but it sent {negative}"[:300]] if negative else []
