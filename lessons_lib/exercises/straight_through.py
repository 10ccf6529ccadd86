"""The beginner track's task: one line of straight-through rounding, checked in plain words.

The learner fills in MyRound's backward. check_straight_through says what is right or
wrong with it, in words a beginner knows, and never raises; the answer itself waits in
the hint ladder (the idea, then where it lives, then the line).
"""

import re
from dataclasses import replace

import torch

from lessons_lib.exercises import straight_through_words as words
from lessons_lib.exercises.base import Case, ExerciseCheck, contained, refused
from lessons_lib.exercises.one_gradient import one_gradient_case
from lessons_lib.running import Run, as_function, plain, run_function
from lessons_lib.running.arguments import MISSING
from lessons_lib.running.reading import backward_of, outside_tensors
from lessons_lib.running.words import untracked

# Uneven on purpose: a backward that ignores grad_out cannot match it by luck.
_ROUND_X = (0.4, 1.6, 2.5, -1.2)  # 2.5 tells torch.round (to 2, the even one) from rounding up
_ROUND_GRAD_OUT = (0.5, 2.0, -1.0, 3.0)


def check_straight_through(fn: object = MISSING, hint: object = 0) -> ExerciseCheck:
    """Check a beginner's MyRound: forward rounds, backward passes grad_out through; never raises.

    `hint` (1, 2 or 3) also shows that many steps of the hint ladder.
    """
    wrong = refused(fn, words.WANTED)
    if wrong is not None:
        return wrong.hint(hint)
    function = as_function(fn)
    with contained():
        cases = _straight_through_cases(function)
    return ExerciseCheck(function.__name__, cases, words.HINTS, words.HINT_CALL).hint(hint)


def _straight_through_cases(fn: type) -> list[Case]:
    x = torch.tensor(_ROUND_X)
    grad_out = torch.tensor(_ROUND_GRAD_OUT)
    sent = []  # the grad_out backward received, to see afterwards whether it changed it
    run = run_function(fn, (x,), lambda output, index: sent.append(grad_out.clone()) or sent[-1])
    forward_case = _round_forward_case(run, x)
    whole = _rounded_but_untracked(run, x)
    if whole is not None:  # the right values, of a kind autograd cannot follow back to x
        later = (words.GIVES_ONE, words.PASSES_ON)
        why = "forward's whole numbers cannot carry a gradient back to x"
        return [Case(words.ROUNDS, True), *(Case.not_checked(n, why) for n in later), whole]
    if run.failure is not None and run.failure.stage == "forward":
        later = (words.GIVES_ONE, words.PASSES_ON, words.LEAVES_ALONE)
        return [forward_case, *(Case.not_checked(n) for n in later)]
    shape_case = one_gradient_case(run, x, words.ONE_GRADIENT_WORDS)
    if not shape_case.passed:
        cases = [forward_case, shape_case, Case.not_checked(words.PASSES_ON)]
        cases.append(Case.not_checked(words.LEAVES_ALONE))
    else:
        value_case = _round_backward_value_case(run.grads[0], x, grad_out)
        changed = bool(sent) and not torch.equal(sent[0], grad_out)
        cases = [forward_case, shape_case, value_case, _leaves_alone_case(run, x, changed)]
    return _name_what_backward_is_not_given(fn, run, cases)


def _rounded_but_untracked(run: Run, x: torch.Tensor) -> Case | None:
    """The fourth case's failure when forward rounded right but gave back whole numbers."""
    out = run.output
    untracked = run.failure is not None and run.failure.kind == "NoGraph"
    if not (untracked and isinstance(out, torch.Tensor) and not out.is_floating_point()):
        return None
    if out.shape != x.shape or not torch.equal(out.to(x.dtype), torch.round(x)):
        return None
    got = f"forward gave back {out.dtype} numbers for x's {x.dtype}"
    fix = words.KIND_CHANGED.format(dtype=out.dtype)
    return Case(words.LEAVES_ALONE, False, words.LEAVES_ALONE_EXPECTED, got, fix)


def _leaves_alone_case(run: Run, x: torch.Tensor, grad_out_changed: bool) -> Case:
    """Nothing else changes: x, grad_out and the kind of numbers, and ctx keeps no tensor."""
    name, expected = words.LEAVES_ALONE, words.LEAVES_ALONE_EXPECTED
    if run.mutated_inputs:
        return Case(name, False, expected, "forward changed x in place", words.CHANGED_X)
    if grad_out_changed:
        return Case(name, False, expected, "backward changed grad_out in place", words.CHANGED_GRAD)
    if run.ctx_tensors:
        kept = ", ".join(f"ctx.{n}" for n in run.ctx_tensors)
        return Case(name, False, expected, f"forward kept {kept}", words.KEPT_ON_CTX)
    if run.saved:
        return Case(name, False, expected, _what_forward_saved(run), words.SAVED_FOR_BACKWARD)
    kinds = {"forward": run.output, "backward": run.grads[0]}
    for step, value in kinds.items():
        if isinstance(value, torch.Tensor) and value.dtype != x.dtype:
            got = f"{step} gave back {value.dtype} numbers for x's {x.dtype}"
            return Case(name, False, expected, got, words.KIND_CHANGED.format(dtype=value.dtype))
    return Case(name, True)


def _what_forward_saved(run: Run) -> str:
    """What forward saved with ctx.save_for_backward, as recorded before backward ran."""
    if run.saved == 1 and run.saved_inputs == [0]:
        return "forward saved x with ctx.save_for_backward"
    things = "tensor" if run.saved == 1 else "tensors"
    return f"forward saved {run.saved} {things} with ctx.save_for_backward"


def _name_what_backward_is_not_given(fn: type, run: Run, cases: list[Case]) -> list[Case]:
    """Replace the first backward problem's fix when backward read a name it is not given.

    A learner who writes `return x`, or copies Cube's line, reads the notebook's own x (or,
    in a fresh kernel, no x at all): the size error or the numbers shown are the notebook's,
    and only naming that tells the learner what happened.
    """
    failing = next((i for i, case in enumerate(cases[1:], 1) if not case.passed), None)
    if failing is None:
        return cases
    missing = _undefined_name(run)
    outside = outside_tensors(backward_of(fn))
    got = cases[failing].got
    if missing is not None:
        fix = _not_given_fix(missing, None)
    elif outside:
        name, value = next(iter(outside.items()))
        fix = _not_given_fix(name, value)
        if run.failure is None and any(grad is value for grad in run.grads):
            got += f"  (the notebook's own {name})"  # backward gave it back as it is
    else:
        return cases
    return [*cases[:failing], replace(cases[failing], got=got, fix=fix), *cases[failing + 1 :]]


def _undefined_name(run: Run) -> str | None:
    """The name backward used that Python could not find (a NameError), else None."""
    failure = run.failure
    if failure is None or failure.stage != "backward" or failure.kind != "NameError":
        return None
    found = re.match(r"name '(\w+)' is not defined", failure.message)
    return found.group(1) if found else None


def _not_given_fix(name: str, outside: torch.Tensor | None) -> str:
    """Why backward cannot use `name`: it receives only ctx and grad_out."""
    if outside is not None:
        start = (
            f"backward used {name}, a tensor from outside it: the notebook's own {name}, "
            f"{plain(outside)}, left there by an earlier cell, not the numbers this check "
            "sent into forward. "
        )
    else:
        start = f"backward used the name {name}, which does not exist inside it. "
    rule = f"backward receives only ctx and grad_out; {name} is not given to it"
    if name == "x":
        rule += words.MYROUND_NEEDS_NO_X
    elif outside is None:
        rule = "Check the spelling: " + rule
    return f"{start}{rule}. backward must build its answer from grad_out."


def _round_forward_case(run: Run, x: torch.Tensor) -> Case:
    name = words.ROUNDS
    want = torch.round(x)
    expected = f"{plain(want)}  (torch.round(x) for x = {plain(x)})"
    write = words.WRITE_ROUND
    if run.failure is not None and run.failure.stage == "forward":
        if run.failure.kind == "NoGraph":  # not a tensor, or one not made from x
            return Case(name, False, expected, untracked(run.output), write + ".")
        got = f"forward stopped with an error: {run.failure.kind}: {run.failure.message}"
        return Case(name, False, expected, got, "Read the error, fix that line. " + write + ".")
    got = run.output
    if not isinstance(got, torch.Tensor) or got.shape != want.shape:
        return Case(name, False, expected, plain(got), write + ".")
    got = got.to(torch.float32)
    if torch.equal(got, want):
        return Case(name, True)
    if torch.equal(got, x):
        fix = words.NOT_ROUNDED + write + "."
    elif torch.equal(got, torch.floor(x + 0.5)):
        fix = words.ROUNDED_HALF_UP + write + "."
    else:
        fix = words.ROUNDS_OTHERWISE + write + "."
    return Case(name, False, expected, plain(got), fix)


def _round_backward_value_case(grad: torch.Tensor, x: torch.Tensor, grad_out: torch.Tensor) -> Case:
    """The straight-through rule: backward returns grad_out itself."""
    name = words.PASSES_ON
    expected = f"{plain(grad_out)}  (grad_out, exactly as it arrived)"
    got = grad.detach()
    text = plain(got)
    if not got.is_floating_point():
        fix = words.KIND_CHANGED.format(dtype=got.dtype)
        return Case(name, False, expected, text, fix)
    got = got.to(grad_out.dtype)  # the kind of numbers is the fourth case's to judge
    if torch.allclose(got, grad_out):
        return Case(name, True)
    arrived = f"This time grad_out was {plain(grad_out)}"
    if not got.any():
        fix = words.ZEROS
    elif torch.equal(got, torch.ones_like(got)):
        fix = words.ONES.format(arrived=arrived)
    elif torch.allclose(got, x):
        fix = words.GAVE_X
    elif torch.allclose(got, torch.round(x)):
        fix = words.GAVE_ROUNDED
    elif torch.allclose(got, -grad_out):
        fix = words.FLIPPED
    elif torch.allclose(got, got[0] / grad_out[0] * grad_out):
        scale = f"{(got[0] / grad_out[0]).item():g}"
        fix = words.SCALED.format(scale=scale)
    else:
        fix = words.OTHER_VALUES.format(arrived=arrived)
    return Case(name, False, expected, text, fix)
