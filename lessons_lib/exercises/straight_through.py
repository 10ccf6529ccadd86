"""The beginner track's task: one line of straight-through rounding, checked in plain words.

The learner fills in MyRound's backward. check_straight_through says what is right or
wrong with it, in words a beginner knows, and never raises; the answer itself waits in
the hint ladder (the idea, then where it lives, then the line).
"""

import dis
import inspect
import re
import types
import warnings
from dataclasses import replace

import torch

from lessons_lib.exercises.base import Case, ExerciseCheck, Hint, short
from lessons_lib.running import Run, a_or_an, describe_non_function, is_function, run_function

# Uneven on purpose: a backward that ignores grad_out cannot match it by luck.
_ROUND_X = (0.4, 1.6, 2.5, -1.2)  # 2.5 tells torch.round (to 2, the even one) from rounding up
_ROUND_GRAD_OUT = (0.5, 2.0, -1.0, 3.0)
HINT_CALL = "check_straight_through(MyRound, hint={})"
HINTS = (
    Hint(
        "the idea",
        "The white lie pretends rounding was not there: whatever arrives at backward from "
        "the later steps is sent on to the earlier ones, unchanged.",
    ),
    Hint(
        "where it lives",
        "What arrives at backward is its second argument, grad_out. backward gives back "
        "the gradient for x with the word return.",
    ),
    Hint("the answer", "backward's whole body is one line:", "return grad_out"),
)
_GIVES_ONE = "backward gives back one thing"
_PASSES_ON = "backward passes grad_out on"


def check_straight_through(fn: object, hint: int = 0) -> ExerciseCheck:
    """Check a beginner's MyRound: forward rounds, backward passes grad_out through; never raises.

    `hint` (1, 2 or 3) also shows that many steps of the hint ladder.
    """
    if not is_function(fn):
        return ExerciseCheck(
            "check_straight_through",
            [
                Case(
                    "you passed your class",
                    False,
                    "the class you wrote, for example MyRound",
                    describe_non_function(fn, "check_straight_through({})"),
                    "Pass the name that comes after the word class, with nothing after it: "
                    "check_straight_through(MyRound).",
                )
            ],
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the learner sees the verdict, not torch's warnings
        cases = _straight_through_cases(fn)
    return ExerciseCheck(fn.__name__, cases, HINTS, HINT_CALL).hint(hint)


def _straight_through_cases(fn: type) -> list[Case]:
    x = torch.tensor(_ROUND_X)
    grad_out = torch.tensor(_ROUND_GRAD_OUT)
    run = run_function(fn, (x,), lambda output, index: grad_out.clone())
    forward_case = _round_forward_case(run, x)
    if run.failure is not None and run.failure.stage == "forward":
        untested = "not tried: forward stopped first"
        return [
            forward_case,
            Case(_GIVES_ONE, False, got=untested),
            Case(_PASSES_ON, False, got=untested),
        ]
    shape_case = _round_backward_shape_case(run, x)
    if not shape_case.passed:
        untested = "not checked yet: fix the problem above first"
        cases = [forward_case, shape_case, Case(_PASSES_ON, False, got=untested)]
    else:
        value_case = _round_backward_value_case(run.grads[0], x, grad_out)
        cases = [forward_case, shape_case, value_case]
    return _name_what_backward_is_not_given(fn, run, cases)


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
    outside = _outside_tensors(fn)
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


def _outside_tensors(fn: type) -> dict[str, torch.Tensor]:
    """The tensors backward reads from outside itself (the notebook's globals), by name."""
    backward = inspect.unwrap(getattr(fn, "backward", None))
    code = getattr(backward, "__code__", None)
    found: dict[str, torch.Tensor] = {}
    if code is None:
        return found
    known = getattr(backward, "__globals__", {})
    codes = [code]
    while codes:  # backward's own code, then any lambda or comprehension inside it
        current = codes.pop()
        for step in dis.get_instructions(current):
            name = step.argval
            is_read = step.opname in ("LOAD_GLOBAL", "LOAD_NAME")
            if is_read and isinstance(known.get(name), torch.Tensor):
                found.setdefault(name, known[name])
        codes.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return found


def _not_given_fix(name: str, outside: torch.Tensor | None) -> str:
    """Why backward cannot use `name`: it receives only ctx and grad_out."""
    if outside is not None:
        start = (
            f"backward used {name}, a tensor from outside it: the notebook's own {name}, "
            f"{_plain(outside)}, left there by an earlier cell, not the numbers this check "
            "sent into forward. "
        )
    else:
        start = f"backward used the name {name}, which does not exist inside it. "
    rule = f"backward receives only ctx and grad_out; {name} is not given to it"
    if name == "x":
        rule += (
            " (Cube saved x on the notepad in forward; MyRound needs no x: the white lie "
            "passes grad_out back unchanged)"
        )
    elif outside is None:
        rule = "Check the spelling: " + rule
    return f"{start}{rule}. backward must build its answer from grad_out."


def _plain(value: object) -> str:
    """A short 1-d tensor as plain numbers, "[0.5, 2, -1, 3]"; anything else as short() says."""
    plain_dtype = isinstance(value, torch.Tensor) and (
        value.is_floating_point() or value.dtype == torch.int64
    )
    if plain_dtype and value.dim() == 1 and value.numel() <= 8:
        return "[" + ", ".join(f"{v:g}" for v in value.tolist()) + "]"
    return short(value)


def _round_forward_case(run: Run, x: torch.Tensor) -> Case:
    name = "forward rounds every number"
    want = torch.round(x)
    expected = f"{_plain(want)}  (torch.round(x) for x = {_plain(x)})"
    write = "Write forward's last line as: return torch.round(x)"
    if run.failure is not None and run.failure.stage == "forward":
        if run.failure.kind == "NoGraph":  # not a tensor, or one not made from x
            got = f"forward gave back {_plain(run.output)}: not decimal numbers made from x"
            return Case(name, False, expected, got, write + ".")
        got = f"forward stopped with an error: {run.failure.kind}: {run.failure.message}"
        return Case(name, False, expected, got, "Read the error, fix that line. " + write + ".")
    got = run.output
    if not isinstance(got, torch.Tensor) or got.shape != want.shape:
        return Case(name, False, expected, _plain(got), write + ".")
    got = got.to(torch.float32)
    if torch.equal(got, want):
        return Case(name, True)
    if torch.equal(got, x):
        fix = "forward gave the numbers back without rounding them. " + write + "."
    elif torch.equal(got, torch.floor(x + 0.5)):
        fix = (
            "forward rounded 2.5 up to 3. torch.round sends a number exactly halfway between "
            "two whole numbers to the even one (2.5 becomes 2, 3.5 becomes 4), and the check "
            "compares with torch.round. " + write + "."
        )
    else:
        fix = "forward does not round the way torch.round does. " + write + "."
    return Case(name, False, expected, _plain(got), fix)


def _round_backward_shape_case(run: Run, x: torch.Tensor) -> Case:
    """backward ran and gave back exactly one tensor, shaped like x."""
    name = _GIVES_ONE
    expected = f"one tensor with {x.numel()} numbers, one per number that went into forward"
    if run.failure is not None:
        got = f"backward stopped with an error: {run.failure.kind}: {run.failure.message}"
        fix = "Read the error, then fix backward. Its whole body is one short line."
        return Case(name, False, expected, got, fix)
    grads = run.grads
    if len(grads) != 1:
        fix = (
            f"backward gave back {len(grads)} things, but forward takes one input (x), so "
            "backward gives back exactly one thing."
        )
        return Case(name, False, expected, _plain(grads), fix)
    (grad,) = grads
    if grad is Ellipsis:
        fix = (
            "backward still gives back the placeholder ... from the starter. Replace the ... "
            "with your one line."
        )
        return Case(name, False, expected, "... (the placeholder)", fix)
    if grad is None:
        fix = (
            "backward gave back nothing (None), so no gradient reaches the numbers before this "
            "step. Did you forget the word return?"
        )
        return Case(name, False, expected, "None", fix)
    if not isinstance(grad, torch.Tensor):
        fix = (
            f"backward gave back {a_or_an(type(grad).__name__)}, but it must give back a tensor with "
            "one number per input number, like the one that arrived."
        )
        return Case(name, False, expected, _plain(grad), fix)
    if grad.shape != x.shape:
        fix = (
            f"backward gave back {grad.numel()} number(s) for {x.numel()} inputs. Pass grad_out "
            "back whole, as it arrived."
        )
        return Case(name, False, expected, _plain(grad), fix)
    return Case(name, True)


def _round_backward_value_case(grad: torch.Tensor, x: torch.Tensor, grad_out: torch.Tensor) -> Case:
    """The straight-through rule: backward returns grad_out itself."""
    name = _PASSES_ON
    expected = f"{_plain(grad_out)}  (grad_out, exactly as it arrived)"
    got = grad.detach()
    text = _plain(got)
    if not got.is_floating_point():
        fix = (
            f"backward changed the kind of numbers (to {got.dtype}); grad_out already holds "
            "the right kind, so pass it on as it is."
        )
        return Case(name, False, expected, text, fix)
    got = got.to(grad_out.dtype)
    if torch.allclose(got, grad_out):
        return Case(name, True)
    arrived = f"This time grad_out was {_plain(grad_out)}"
    if not got.any():
        fix = (
            "backward gave back all zeros. That is the honest answer for rounding (a tiny "
            "nudge never changes a rounded number), but with zeros the numbers before this "
            "step never move, so nothing learns. The white lie is to pass grad_out back "
            "unchanged."
        )
    elif torch.equal(got, torch.ones_like(got)):
        fix = (
            "backward gave back 1 for every number, whatever arrived. "
            f"{arrived}, and backward should pass on exactly that. Ones only look right when "
            "grad_out happens to be all ones."
        )
    elif torch.allclose(got, x):
        fix = (
            "backward gave back x, the numbers that went into forward. backward's job is to "
            "pass on what arrived in grad_out, not the input."
        )
    elif torch.allclose(got, torch.round(x)):
        fix = (
            "backward gave back forward's rounded numbers. backward's job is to pass on what "
            "arrived in grad_out, not forward's result."
        )
    elif torch.allclose(got, -grad_out):
        fix = (
            "backward flipped the sign of grad_out, which would push learning the wrong way. "
            "Pass it on as it arrived."
        )
    elif torch.allclose(got, got[0] / grad_out[0] * grad_out):
        scale = f"{(got[0] / grad_out[0]).item():g}"
        fix = (
            f"backward multiplied grad_out by {scale}. The white lie passes grad_out back "
            "exactly as it arrived, multiplied by nothing."
        )
    else:
        fix = f"{arrived}; backward should give back exactly that."
    return Case(name, False, expected, text, fix)
