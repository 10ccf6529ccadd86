"""Claim-checkers for what the verdict says of the Clamp01s and of the learner's own checks:
a correct Clamp01 and its value at the edges, the property test, gradcheck."""

import ast
import functools
import re

import torch

from tests.exercises.attempts.clamp_claim_context import Context, relevant_clamp
from tests.exercises.attempts.clamp_facts import CORRECT


@functools.cache
def _at_edges(clamp: str) -> str:
    """What a correct Clamp01 gives back at exactly 0 and 1, found by running it."""
    cls = CORRECT[clamp]()
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    cls.apply(x).backward(torch.tensor([3.0, 3.0]))
    return (
        "0"
        if x.grad.tolist() == [0.0, 0.0]
        else "grad_out"
        if x.grad.tolist() == [3.0, 3.0]
        else "other"
    )


def correct_clamp(ctx: Context) -> list[str]:
    """ "This Clamp01 is correct", "at exactly 0 and 1 it gives back X", "your test passes
    another correct one that gives back Y there" are true."""
    text, false = ctx.verdict.problem_block, []
    clamp = relevant_clamp(ctx.verdict.first_problem)
    if "This Clamp01 is correct" in text and clamp not in CORRECT:
        false.append(f"said the Clamp01 is correct, but the first problem is about {clamp}")
    if ctx.attempt.facts is None:
        if "This Clamp01 is correct" in text or "a check that fails it" in text:
            false.append(
                f"spoke of a check failing a correct Clamp01, but {ctx.attempt.wrong.label} was passed, no check"
            )
        return false
    said = re.search(r"At exactly 0 and 1 it gives (?:back )?(0|grad_out)", text, re.I)
    if said and clamp in CORRECT and said[1] != _at_edges(clamp):
        false.append(
            f"said this Clamp01 gives {said[1]} at 0 and 1, but it gives {_at_edges(clamp)}"
        )
    other = re.search(r"pass(?:es)? another correct one that gives (?:back )?(0|grad_out)", text)
    if other:
        passing = [
            c for c in CORRECT if not ctx.attempt.facts.runs[c].fails and _at_edges(c) == other[1]
        ]
        if not passing:
            false.append(
                f"said the test passes another correct Clamp01 giving {other[1]} at the edges, but it passes none"
            )
    return false


def _given_functions(tree: ast.AST | None) -> tuple[list[str], set[str]]:
    if tree is None:
        return [], set()
    given = [
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef)
        and any("given" in ast.unparse(d) for d in n.decorator_list)
    ]
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    return given, called


def property_claims(ctx: Context) -> list[str]:
    """What the verdict says of the property test: how many drawn inputs reached apply,
    "defined but never called", "has no property test", "never received what hypothesis
    drew", whether backward ran in it, NaN and infinity drawn."""
    if ctx.attempt.facts is None:
        return []
    text, false = ctx.verdict.text, []
    course = ctx.attempt.facts.course
    drawn = len(course.drawn_inputs())
    given, called = _given_functions(ctx.tree)
    for n in re.findall(r"ran on (\d+) drawn inputs", text) + re.findall(
        r"only (\d+) different input\(s\) reached", text
    ):
        if int(n) != drawn:
            false.append(f"said {n} drawn inputs reached apply, but {drawn} did")
    for name in set(re.findall(r"(\w+) is defined but never called", text)):
        if name not in given or name in called:
            false.append(
                f"said {name} is defined but never called, but its source {'calls it' if name in called else 'has no such property test'}"
            )
    if "has no property test" in text and (given or drawn):
        false.append(
            f"said there is no property test, but the source has {given} and {drawn} drawn inputs"
        )
    if "never received what hypothesis drew" in text and drawn:
        false.append(
            f"said apply never received what hypothesis drew, but {drawn} drawn inputs reached it"
        )
    probe = ctx.attempt.facts.runs.get("wrong-while-hypothesis-draws")
    if (
        probe is not None
        and "(backward never ran in it)" in text
        and any(b.drawn for b in probe.backwards)
    ):
        false.append("said backward never ran in the property test, but it did")
    if (
        probe is not None
        and "(backward ran in it)" in text
        and not any(b.drawn for b in probe.backwards)
    ):
        false.append("said backward ran in the property test, but it never did")
    said = re.search(r"Your property test drew (nan and inf|nan|inf)", text)
    if said and ctx.run is not None:
        seen = {
            kind
            for a in ctx.run.applied
            if a.drawn
            for kind, bad in (("nan", a.x.isnan().any()), ("inf", a.x.isinf().any()))
            if bad
        }
        seen |= {
            kind
            for b in ctx.run.backwards
            if b.drawn
            for kind, bad in (("nan", b.grad_out.isnan().any()), ("inf", b.grad_out.isinf().any()))
            if bad
        }
        if not set(said[1].split(" and ")) <= seen:
            false.append(
                f"said the property test drew {said[1]}, but it drew {sorted(seen) or 'only finite numbers'}"
            )
    return false


def gradcheck_claims(ctx: Context) -> list[str]:
    """gradcheck's result dropped with raise_exception=False, gradcheck run in float32, or
    at a kink (a point within eps of 0 or 1): each as the attempt in fact did."""
    text, false = ctx.verdict.text, []
    if "drops that result" in text:
        dropped = ctx.tree is not None and any(
            isinstance(n, ast.Expr)
            and isinstance(n.value, ast.Call)
            and any(k.arg == "raise_exception" for k in n.value.keywords)
            for n in ast.walk(ctx.tree)
        )
        if not dropped:
            false.append(
                "said a gradcheck(..., raise_exception=False) result is dropped, but none is"
            )
    if ctx.run is None:
        return false
    in_gradcheck = [a.x for a in ctx.run.applied if a.in_gradcheck]
    if (
        "gradcheck ran in float32" in text
        and in_gradcheck
        and not any(x.dtype == torch.float32 for x in in_gradcheck)
    ):
        false.append(
            f"said gradcheck ran in float32, but its inputs were {sorted({str(x.dtype) for x in in_gradcheck})}"
        )
    if "gradcheck met a kink" in text and in_gradcheck:  # unseen when gradcheck ran on no apply
        near = any(
            ((x - 0).abs() <= 1e-5).any() or ((x - 1).abs() <= 1e-5).any()
            for x in in_gradcheck
            if x.is_floating_point()
        )
        if not near:
            false.append(
                "said gradcheck met a kink, but no point it ran on was within eps of 0 or 1"
            )
    if "gradcheck failed on correct code" in text and ctx.run.error_type != "GradcheckError":
        false.append(
            f"said gradcheck failed, but the attempt raised {ctx.run.error_type or 'nothing'}"
        )
    return false
