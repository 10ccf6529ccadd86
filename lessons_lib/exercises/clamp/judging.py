"""What both parts of "Check your Clamp01" judge alike: the first case, a test that fails a
correct Clamp01, and the slips that stop any test before it can judge.
"""

import difflib
from collections.abc import Callable

from lessons_lib.broken_clamps import (
    CorrectClamp,
)
from lessons_lib.exercises.base import Aside, Case, ExerciseCheck, Hint, named_as_written, refused
from lessons_lib.exercises.clamp.observe import Outcome, describe
from lessons_lib.exercises.clamp.words import ALSO_MISSED, EDGE_READ, READ, test_wanted


def also_missed(cases: list[Case], said: str = "") -> Aside:
    """Every failure after the first that says what to add (not those of correct code), each
    with what catches it: a test's verdict names every missed bug, not only the first.
    `said`, a cause the first problem's fix already states, is not repeated in each item."""
    failed = [c for c in cases if not c.passed and c.checked]
    about_correct = ("passes ", RUNS_IT)  # what a test did with correct code, not a miss
    missed = [c for c in failed[1:] if c.fix and not c.name.startswith(about_correct)]
    said = said if failed and said and said in failed[0].fix else ""
    return Aside(
        ALSO_MISSED,
        tuple(
            f"{c.name.removeprefix('catches ')}. {c.fix.replace(said, '', 1) if said else c.fix}"
            for c in missed
        ),
    )


def verdict(
    name: str,
    cases: list[Case],
    hints: tuple[Hint, ...],
    hint_call: str,
    hint: object,
    said: str = "",
    placeholder: str = "",
) -> ExerciseCheck:
    """The verdict on a learner's test, with every other missed bug under the first problem
    (`said`: a cause stated in the first problem's fix, not repeated under it), and the
    task's name for the test (`placeholder`) replaced by the name of the one checked."""
    if placeholder:  # the cause stated once is renamed with the fixes it is found in
        cases = named_as_written(cases, placeholder, name)
        said = named_as_written([Case("", True, fix=said)], placeholder, name)[0].fix
    aside = also_missed(cases, said)
    return ExerciseCheck(name, cases, hints, hint_call, aside=aside).hint(hint)


def refused_test(test: object, check: str, argument: str) -> ExerciseCheck | None:
    """The one-line verdict when something other than the learner's test function was passed."""
    return refused(test, test_wanted(check, argument))


def common_error_fix(outcome: Outcome, name: str, part: int) -> tuple[str, str] | None:
    """The fix for a slip that stops any test before it can judge a correct Clamp01, and
    where that is taught in Part `part`'s tracks ("" where no section is about it)."""
    error, message = outcome.error, str(outcome.error or "")
    choose = EDGE_READ["choose"]
    if isinstance(error, RuntimeError) and "floating point" in message and "gradients" in message:
        dtype = "torch.float32" if part == 1 else "torch.float64"
        return (
            "Your points are whole numbers (integers), and PyTorch gives gradients only to "
            "tensors of numbers with a decimal point (floating point): write -1.0, not -1 "
            f"(or torch.tensor([...], dtype={dtype})).",
            "",
        )
    if isinstance(error, RuntimeError) and "does not require grad" in message:
        return (
            "Make the input with requires_grad=True before calling the Clamp01, so autograd "
            "records the step and can give its gradient.",
            EDGE_READ["tensors"] if part == 1 else "",
        )
    if isinstance(error, RuntimeError) and "Mismatch in shape" in message:
        return "grad_out needs exactly one number for each number of x, in the same shape.", choose
    if isinstance(error, RuntimeError) and "Boolean value of Tensor" in message:
        return (
            "An `if` or an `assert` met a tensor of several values, which is neither True nor "
            "False: compare whole tensors with torch.equal(a, b), or use (a == b).all().",
            EDGE_READ["your turn"],
        )
    if isinstance(error, RuntimeError) and "only for scalar outputs" in message:
        return (
            "backward() without an argument needs one number: pass an uneven grad_out, "
            "y.backward(grad_out) or torch.autograd.grad(y, x, grad_out). (y.sum().backward() "
            "runs too, but sends only ones.)",
            choose,
        )
    if isinstance(error, NameError):
        close = difflib.get_close_matches(str(error.name), ["Clamp01Candidate"], n=1)
        if close:  # spelled almost as the test's own argument
            return (
                f"{error.name} does not exist inside {name}: check the spelling. Did you mean "
                f"{close[0]}, the argument on your def line?",
                "",
            )
        return (
            f"{error.name} does not exist where {name} was written: check the spelling, or "
            "run the cell that defines or imports it first.",
            "",
        )
    if isinstance(error, TypeError) and "positional argument" in message:
        return (
            f"{name} must take exactly one argument, the Clamp01 to check: "
            f"def {name}(Clamp01Candidate): ...",
            EDGE_READ["your turn"] if part == 1 else READ["must do"],
        )
    return None


def correct_case(
    who: str,
    label: str,
    outcome: Outcome,
    fix: Callable[[], tuple[str, str]],
    note: str = "",
    apply_read: str = READ["apply"],
) -> Case:
    """The test `who` passes a correct Clamp01, and actually ran it; `fix` explains a failure
    (`apply_read`: where the track the learner is on teaches apply)."""
    name = f"passes {label}"
    expected = f"{who} runs it through Clamp01Candidate.apply and finds nothing wrong"
    if not outcome.applied and not outcome.found:  # it passed it, without ever running it
        name = f"{RUNS_IT} {label}"
    if outcome.forward_direct and (outcome.found or not outcome.applied):
        return Case(
            name,
            False,
            expected,
            f"{who} called Clamp01Candidate.forward by hand {outcome.forward_direct} time(s)",
            "Call Clamp01Candidate.apply(x): forward alone records no backward, so none of "
            "your gradient checks tested the Clamp01 you were given.",
            apply_read,
        )
    if not outcome.applied and not outcome.found:
        return Case(
            name,
            False,
            expected,
            f"{who} never called Clamp01Candidate.apply, so it checked something else",
            note
            or f"Write every check in terms of the Function {who} is given, not a Clamp01 of "
            "your own: start with clamp = Clamp01Candidate.apply, then use clamp(x).",
        )
    if not outcome.found:
        return Case(name, True)
    return Case(name, False, expected, describe(outcome, who), *fix())


RUNS_IT = "runs through Clamp01Candidate.apply"  # the case shown when a test never ran it
NEVER_RAN_IT = (
    "your test never ran the Clamp01 it was given (see above), so a catch would prove nothing"
)


def later_reason(cases: list[Case], fails_correct: str) -> str:
    """Why the catches were not checked: the test never ran the Clamp01s, or it failed one."""
    return NEVER_RAN_IT if any(c.name.startswith(RUNS_IT) for c in cases) else fails_correct


def splits_at_the_edges(clamp: CorrectClamp, passed: list[CorrectClamp]) -> CorrectClamp | None:
    """A passed correct Clamp01 that differs from `clamp` only at exactly 0 and 1, if any."""
    return next((other for other in passed if other.at_edges != clamp.at_edges), None)
