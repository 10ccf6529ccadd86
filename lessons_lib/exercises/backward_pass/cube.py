"""Part 1 of "Your own backward pass": check_cube checks a learner's fixed Cube in the
beginner track's words (forward is x³, backward returns grad_out * 3x², the doctor agrees).
"""

import math

import torch

from lessons_lib.doctor import check_function
from lessons_lib.exercises.backward_pass.cube_words import (
    CUBE_HINT_CALL,
    CUBE_HINTS,
    DOCTOR,
    DOCTOR_FIXES,
    FORWARD,
    MULTIPLIES,
    ONE_GRADIENT,
    ONE_GRADIENT_WORDS,
    READ_BEGINNER,
    WANTED,
)
from lessons_lib.exercises.base import Case, ExerciseCheck, contained, refused
from lessons_lib.exercises.one_gradient import one_gradient_case
from lessons_lib.running import Run, as_function, plain, run_function
from lessons_lib.running.arguments import MISSING
from lessons_lib.running.reading import backward_of, outside_tensors
from lessons_lib.running.words import untracked

# The upstream gradient starts with 10, the later step of the notebook's demonstration;
# uneven on purpose, so that a backward that drops grad_out cannot match it by luck.
_CUBE_X = (2.0, -1.0, 0.5, 3.0)
_CUBE_GRAD_OUT = (10.0, 2.0, -1.0, 0.5)


def check_cube(fn: object = MISSING, hint: object = 0) -> ExerciseCheck:
    """Check a learner's fixed Cube in plain words: forward is x³, backward returns
    grad_out * 3x², and the gradient doctor agrees; never raises.

    `hint` (1, 2 or 3) also shows that many steps of the hint ladder.
    """
    wrong = refused(fn, WANTED)
    if wrong is not None:
        return wrong.hint(hint)
    function = as_function(fn)
    with contained():
        cases = _cube_cases(function)
    return ExerciseCheck(function.__name__, cases, CUBE_HINTS, CUBE_HINT_CALL).hint(hint)


def _cube_cases(fn: type) -> list[Case]:
    x, grad_out = torch.tensor(_CUBE_X), torch.tensor(_CUBE_GRAD_OUT)
    run = run_function(fn, (x,), lambda output, index: grad_out.clone())
    cases = [_cube_forward_case(run, x)]
    if not cases[0].passed:
        return cases + [Case.not_checked(n) for n in (ONE_GRADIENT, MULTIPLIES, DOCTOR)]
    cases.append(one_gradient_case(run, x, ONE_GRADIENT_WORDS))
    if not cases[1].passed:
        return cases + [Case.not_checked(n) for n in (MULTIPLIES, DOCTOR)]
    cases.append(_cube_multiplies_case(run.grads[0], x, grad_out, fn))
    if not cases[2].passed:
        return [*cases, Case.not_checked(DOCTOR)]
    return [*cases, _cube_doctor_case(fn)]


def _cube_forward_case(run: Run, x: torch.Tensor) -> Case:
    want = x**3
    expected = f"{plain(want)}  (x³ for x = {plain(x)})"
    keep = "Keep forward as the starter wrote it: return x**3."
    if run.failure is not None and run.failure.stage == "forward":
        if run.failure.kind == "NoGraph":
            return Case(FORWARD, False, expected, untracked(run.output), keep)
        got = f"forward stopped with an error: {run.failure.kind}: {run.failure.message}"
        return Case(FORWARD, False, expected, got, "Read the error, fix that line. " + keep)
    got = run.output
    right_kind = isinstance(got, torch.Tensor) and got.shape == want.shape
    if right_kind and got.is_floating_point() and torch.allclose(got.to(want.dtype), want):
        return Case(FORWARD, True)
    return Case(FORWARD, False, expected, plain(got), "forward changed. " + keep)


def _cube_multiplies_case(
    grad: torch.Tensor, x: torch.Tensor, grad_out: torch.Tensor, fn: type
) -> Case:
    """The chain rule, in the kitchen's words: what arrived, times Cube's own slope."""
    slope = 3 * x**2
    want = grad_out * slope
    expected = f"{plain(want)}  (grad_out times 3·x², with grad_out = {plain(grad_out)})"
    got = grad.detach()
    if not got.is_floating_point():
        fix = f"backward changed the kind of numbers (to {got.dtype}); keep them decimal."
        return Case(MULTIPLIES, False, expected, plain(got), fix)
    got = got.to(want.dtype)
    if torch.allclose(got, want):
        return Case(MULTIPLIES, True)
    arrived = f"This time grad_out was {plain(grad_out)}"
    scale = (got[0] / slope[0]).item()
    if torch.allclose(got, slope):
        fix = (
            f"backward gave back the slope 3·x² alone, whatever arrived. {arrived}, and "
            "backward must multiply it in: forgetting it is right only when grad_out is 1, "
            "which is why the bug hides. Multiply by grad_out."
        )
    elif torch.allclose(got, grad_out):
        fix = (
            "backward gave back grad_out unchanged: that is MyRound's white lie, which "
            "pretends the step is not there. Cube is honest: multiply grad_out by Cube's own "
            "slope, 3·x²."
        )
    elif torch.allclose(got, grad_out + slope):
        fix = (
            "backward added grad_out and the slope. Multiply them instead, as the sauce cook "
            "did: 2 times 3 makes 6, where 2 + 3 would make 5."
        )
    elif torch.allclose(got, scale * slope):
        fix = (
            f"backward multiplied the slope by {_one_number(scale, grad_out)} at every point. "
            f"grad_out holds one number per point and changes from one backward pass to the "
            f"next ({arrived.lower()}), so multiply by grad_out itself, number by number."
        )
    elif torch.allclose(got, grad_out * x**2):
        fix = "The slope of x³ is 3·x²: the 3 is missing. Multiply grad_out by 3 * x**2."
    elif torch.allclose(got, grad_out * 6 * x):
        fix = (
            "backward multiplied by 3 * x * 2, which is 6·x: in Python * multiplies, and "
            "'squared' is written **. Multiply grad_out by 3 * x**2."
        )
    elif torch.allclose(got, grad_out * 3 * x) or torch.allclose(got, grad_out * 2 * x):
        fix = "The slope of x³ is 3·x², with x squared. Multiply grad_out by 3 * x**2."
    elif torch.allclose(got, grad_out * x**3):
        fix = (
            "backward multiplied grad_out by x³, forward's result. It needs Cube's slope "
            "instead, 3·x²."
        )
    elif torch.allclose(got, -want):
        fix = "The sign is flipped, which would push learning the wrong way. Remove the minus."
    else:
        fix = f"{arrived}; backward should give back grad_out times 3·x² for each number."
        outside = outside_tensors(backward_of(fn)).get("x")
        if outside is not None:  # a fact of backward's code: it reads the notebook's own x
            fix = (
                f"backward used x, a tensor from outside it: the notebook's own x, "
                f"{plain(outside)}, not the numbers this check sent into forward. Take x from "
                "the notepad: (x,) = ctx.saved_tensors."
            )
    return Case(MULTIPLIES, False, expected, plain(got), fix, READ_BEGINNER)


def _one_number(scale: float, grad_out: torch.Tensor) -> str:
    """The one number backward multiplied by, named by where it equals a fact of this run."""
    for what, value in (("sum", grad_out.sum()), ("mean", grad_out.mean())):
        if math.isclose(scale, value.item(), rel_tol=1e-5):
            return f"the {what} of grad_out, {scale:g},"
    return f"the same number, {scale:g},"


def _cube_doctor_case(fn: type) -> Case:
    """The doctor's full examination: many points, other grad_outs, second derivatives."""
    # The check's own float32 numbers too: a backward that changes the dtype shows there.
    report = check_function(fn, lambda x: x**3, inputs=(torch.tensor(_CUBE_X),))
    if report.ok:
        return Case(DOCTOR, True)
    first = report.findings[0]
    fix = DOCTOR_FIXES.get(first.code) or (
        first.fix  # the doctor's own words for an error state the facts it recorded
        if first.code == "error"
        else f"Run check_function({fn.__name__}, lambda x: x**3, inputs=(torch.tensor("
        f"{list(_CUBE_X)}),)), the doctor on this check's own numbers too, and read its 'How "
        "to fix it' line."
    )
    return Case(DOCTOR, False, "no problems found", f"[{first.code}] {first.what}", fix)
