"""Part 2 of "Your own backward pass": check_cube_grad tries a learner's cube_grad on every
kind of input it must handle, compares it with the course's, and makes sure their own Cube
did the work.
"""

from collections.abc import Callable
from contextlib import nullcontext

import torch

from lessons_lib.exercises.backward_pass.answers import cube_grad
from lessons_lib.exercises.backward_pass.cube_grad_fixes import (
    alias_note,
    clone_note,
    fix_for_error,
    fix_for_result,
    fix_for_values,
    own_check_note,
)
from lessons_lib.exercises.backward_pass.cube_grad_words import (
    CALLER_NO_GRAD,
    COPY,
    CUBE_INSTANCE,
    HINT_CALL,
    NO_CUBE,
    NO_GRAD,
    RAISE,
    READ,
    RUN_CUBE_CELL,
    SAY_WHAT_TO_PASS,
    WANTED,
    cube_grad_hints,
)
from lessons_lib.exercises.base import Case, ExerciseCheck, contained, learners_name, refused
from lessons_lib.functions import Cube
from lessons_lib.running import (
    Failure,
    is_function,
    run_function,
    short,
)
from lessons_lib.running.arguments import MISSING, what_was_passed
from lessons_lib.running.reading import raised_where
from lessons_lib.watch import Usage, watching


def check_cube_grad(candidate: object = MISSING, hint: object = 0) -> ExerciseCheck:
    """Try a learner's cube_grad on every kind of input it must handle, compare it with the
    course's cube_grad, and make sure their own Cube did the work; never raises.

    `hint=1, 2, 3` also shows the idea, then the PyTorch calls, then the answer.
    """
    wrong = refused(candidate, WANTED)
    if wrong is not None:
        return wrong.hint(hint)
    name = learners_name(candidate)
    cube = _learners_cube(candidate)
    cases = []
    for check in _CUBE_GRAD_CASES:
        with contained():  # each case starts from torch's usual state, whatever the last did
            cases.append(check(candidate, cube))
    return ExerciseCheck(name, cases, cube_grad_hints(), HINT_CALL).hint(hint)


def _learners_cube(candidate: Callable) -> type | None:
    """The Cube the learner wrote: the one their cube_grad sees, in its own module/notebook."""
    namespace = getattr(candidate, "__globals__", None)
    cube = namespace.get("Cube") if isinstance(namespace, dict) else None
    return cube if is_function(cube) else None


def _no_cube(candidate: Callable) -> tuple[str, str]:
    """What the name Cube is where cube_grad was written (a fact), and what to do about it."""
    namespace = getattr(candidate, "__globals__", None)
    if not isinstance(namespace, dict) or "Cube" not in namespace:
        return NO_CUBE, RUN_CUBE_CELL
    value = namespace["Cube"]
    got = f"where cube_grad was written, Cube is {what_was_passed(value)}, not a Function class"
    if isinstance(value, torch.autograd.Function):
        return got, CUBE_INSTANCE
    return got, RUN_CUBE_CELL


def _values(dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.tensor([-2.0, -1.0, 0.0, 0.5, 3.0], dtype=dtype)


def _case_1d(candidate: Callable, cube: type | None) -> Case:
    return _compare(candidate, cube, "1-d values", _values())


def _case_0d(candidate: Callable, cube: type | None) -> Case:
    return _compare(candidate, cube, "a 0-d tensor (a single number)", torch.tensor(2.0))


def _case_empty(candidate: Callable, cube: type | None) -> Case:
    return _compare(candidate, cube, "an empty tensor", torch.tensor([]))


def _case_2d(candidate: Callable, cube: type | None) -> Case:
    x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.5]])
    return _compare(candidate, cube, "a 2-d tensor", x)


def _case_float32(candidate: Callable, cube: type | None) -> Case:
    return _compare(candidate, cube, "a float32 tensor", _values(torch.float32), dtype=True)


def _case_float64(candidate: Callable, cube: type | None) -> Case:
    return _compare(candidate, cube, "a float64 tensor", _values(torch.float64), dtype=True)


def _case_leaf(candidate: Callable, cube: type | None) -> Case:
    x = torch.tensor([1.0, -2.0], requires_grad=True)  # x.grad and requires_grad must not change
    return _compare(candidate, cube, "a tensor that requires grad is left alone", x)


def _case_non_leaf(candidate: Callable, cube: type | None) -> Case:
    name = "a non-leaf (the result of other steps)"
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = w * 2  # part of the caller's graph: x.grad is never filled for it
    case = _compare(candidate, cube, name, x, source=w)
    if case.passed and w.grad is not None:
        return Case(
            name,
            False,
            "the tensors x was made from keep .grad = None",
            f"w.grad = {short(w.grad)}, where x = w * 2",
            "The gradient flowed on through the caller's graph into w. "
            + clone_note(candidate)
            + COPY,
        )
    return case


def _case_no_grad(candidate: Callable, cube: type | None) -> Case:
    """Called where the caller switched recording off, cube_grad still gives the gradient."""
    with torch.no_grad():
        return _compare(candidate, cube, NO_GRAD, _values(), caller_no_grad=True)


def _case_uses_cube(candidate: Callable, cube: type | None) -> Case:
    """The learner's own Cube did the work: its backward ran while cube_grad was called."""
    name = "your Cube's backward did the work"
    expected = "cube_grad calls Cube.apply and autograd runs your Cube's backward"
    if cube is None:
        return Case(name, False, expected, *_no_cube(candidate), READ["use-cube"])
    x = _values()
    with watching(cube) as usage:
        try:
            result = candidate(x)
        except Exception as error:
            if usage.backward and usage.applies:  # it ran, then something after it raised
                return Case(name, True)
            return Case(
                name, False, expected, _error_text(error), "Fix the error shown above first."
            )
    got = (
        f"calls of Cube.apply: {len(usage.applies)}, of Cube.forward by hand: "
        f"{usage.forward_direct}; runs of your backward: {usage.backward}"
    )
    if usage.backward and usage.applies:
        return Case(name, True)
    if usage.backward:
        fix = (
            "cube_grad called Cube.backward(...) itself, so autograd never ran: call "
            "Cube.apply(...) on your copy and let torch.autograd.grad run backward."
        )
        return Case(name, False, expected, got, fix, READ["apply"])
    if usage.forward_direct:
        fix = (
            "cube_grad called Cube.forward(...) itself, so Cube never entered the graph and its "
            "backward never ran: call Cube.apply(...) instead."
        )
        return Case(name, False, expected, got, fix, READ["apply"])
    if usage.applies:
        fix = (
            "cube_grad called Cube.apply, but your Cube's backward never ran, so its answer did "
            "not come from your Cube: differentiate the sum of Cube.apply's own result."
        )
        return Case(name, False, expected, got, fix, READ["use-cube"])
    want = cube_grad(x)
    right = isinstance(result, torch.Tensor) and result.shape == want.shape
    if right and torch.allclose(result.detach().to(want.dtype), want):
        fix = (
            "cube_grad got the right numbers without running your Cube at all (3 * x**2 "
            "written out, or autograd of x**3?): the exercise is to get them from your Cube's "
            "backward, through Cube.apply(...)."
        )
    else:
        fix = "cube_grad never ran your Cube: get the gradient from your Cube's backward, through Cube.apply(...)."
    return Case(name, False, expected, got, fix, READ["use-cube"])


def _case_cube_chain(candidate: Callable, cube: type | None) -> Case:
    """The learner's Cube multiplies by grad_out: .sum() alone (grad_out all ones) hides it."""
    name = "your Cube's backward multiplies by grad_out"
    if cube is None:
        return Case(name, False, "your Cube", *_no_cube(candidate), READ["use-cube"])
    x, grad_out = _values(), torch.tensor([0.5, 2.0, 3.0, -1.0, 1.5])  # uneven on purpose

    def upstream(output: torch.Tensor, index: int) -> torch.Tensor:
        return grad_out.clone()

    theirs, ours = run_function(cube, (x,), upstream), run_function(Cube, (x,), upstream)
    want = ours.grads[0]
    expected = f"{short(want)} (the course's Cube, for grad_out = {short(grad_out)})"
    doctor = "check_function(Cube, lambda x: x**3) shows what is wrong and where."
    if theirs.failure is not None:
        return Case(name, False, expected, str(theirs.failure), "Fix your Cube first: " + doctor)
    got = theirs.grads[0] if theirs.grads else None
    if isinstance(got, torch.Tensor) and got.shape == want.shape:
        got = got.detach().to(want.dtype)
        if torch.allclose(got, want):
            return Case(name, True)
        if torch.allclose(got, run_function(Cube, (x,)).grads[0]):
            fix = (
                "Your Cube's backward ignores grad_out. The .sum() in cube_grad sends grad_out "
                "of all ones, which hides it, but after any other step the gradient is wrong: "
                "fix Cube's backward first (check_cube(Cube), in Part 1, names the line)."
            )
            return Case(name, False, expected, short(got), fix, READ["chain"])
    fix = "Your Cube's backward differs from the course's Cube. " + doctor
    return Case(name, False, expected, short(got), fix, READ["gradient"])


def _case_integer(candidate: Callable, cube: type | None) -> Case:
    """An integer tensor gets cube_grad's own TypeError, and its message says to pass floats."""
    name = "an integer tensor is refused with a clear error"
    x = torch.tensor([1, 2, 3])  # torch.int64, what torch.tensor makes from Python ints
    expected = (
        "cube_grad's own TypeError (or ValueError), not one PyTorch raised, whose message "
        "asks for floating-point values (the check looks for the word float)"
    )
    try:
        result = candidate(x)
    except (TypeError, ValueError) as error:
        own = raised_where(error, candidate)[0] != "torch"
        if own and "float" in str(error).lower():
            return Case(name, True)
        if own:
            return Case(name, False, expected, _error_text(error), SAY_WHAT_TO_PASS)
        return _integer_error_case(name, expected, error, candidate)
    except Exception as error:
        return _integer_error_case(name, expected, error, candidate)
    fix = (
        f"cube_grad accepted a {x.dtype} tensor and gave back an answer. The task asks it to "
        "refuse one, so that a caller who passed integers by mistake hears about it: " + RAISE
    )
    return Case(name, False, expected, f"no error; it returned {short(result)}", fix)


def _integer_error_case(name: str, expected: str, error: Exception, candidate: Callable) -> Case:
    """A wrong kind of error for an integer tensor: the learner's own raise, or PyTorch's."""
    kind, line = raised_where(error, candidate)
    if kind == "own" and isinstance(error, AssertionError):
        fix = (
            "Your own check fired, but as an assert, which raises AssertionError. An assert is "
            "for catching your own bugs (and Python skips it under python -O); for a caller "
            "who passed the wrong kind of tensor, raise TypeError instead: " + RAISE
        )
        return Case(name, False, expected, _error_text(error), fix)
    if kind == "own":
        fix = (
            f"Your own check fired, but it raised {type(error).__name__}. A tensor of the wrong "
            "dtype is a value of the wrong type, and Python's error for that is TypeError: " + RAISE
        )
        return Case(name, False, expected, _error_text(error), fix)
    where = f", raised by PyTorch in your line `{line}`" if kind == "torch" else ""
    fix = (
        f"{own_check_note(candidate)}PyTorch's {type(error).__name__} says what went wrong "
        "inside PyTorch, not what the caller of cube_grad should pass. Check x at the top "
        "of cube_grad, before any PyTorch step, and raise a TypeError that says what to pass "
        "instead: " + RAISE
    )
    return Case(name, False, expected, _error_text(error) + where, fix)


_CUBE_GRAD_CASES = (
    _case_1d,
    _case_uses_cube,
    _case_cube_chain,
    _case_0d,
    _case_empty,
    _case_2d,
    _case_float32,
    _case_float64,
    _case_leaf,
    _case_non_leaf,
    _case_integer,
    _case_no_grad,
)


def _compare(
    candidate: Callable,
    cube: type | None,
    name: str,
    x: torch.Tensor,
    source: torch.Tensor | None = None,
    caller_no_grad: bool = False,
    dtype: bool = False,
) -> Case:
    """Call candidate(x); compare with the course's cube_grad; check x was left alone.

    `source` is what a non-leaf x was made from: where a gradient leaks to instead of x.grad.
    `caller_no_grad`: the call runs inside the caller's torch.no_grad().
    `dtype`: this case judges the dtype given back (the float32 and float64 lines); the
    others judge what their line names, and take a float result of another dtype by its values.
    """
    want = cube_grad(x)
    before = (x.detach().clone(), x.requires_grad, x.grad)
    expected = f"{short(want)} (the course's cube_grad)"
    with watching(cube) if cube is not None else nullcontext(Usage()) as usage:
        try:
            got = candidate(x)
        except Exception as error:
            fix, read = fix_for_error(error, usage)
            if caller_no_grad and "does not require grad" in str(error):
                fix, read = CALLER_NO_GRAD, ""
            return Case(name, False, expected, _error_text(error), fix, read)
    kind = isinstance(got, torch.Tensor) and (
        got.dtype == want.dtype or (not dtype and got.is_floating_point())
    )
    if kind and got.shape == want.shape:
        values = got.detach().to(want.dtype)
        if not torch.allclose(values, want, rtol=1e-5, atol=1e-6, equal_nan=True):
            return Case(name, False, expected, short(got), *fix_for_values(values, x))
        return _unchanged(name, x, before, candidate)
    # Every input starts with .grad None: a gradient found there now leaked from cube_grad.
    leaked = source if source is not None else x
    leaked_into = ("w" if source is not None else "x") if leaked.grad is not None else ""
    return Case(
        name, False, expected, short(got), fix_for_result(got, want, x, candidate, leaked_into)
    )


def _unchanged(name: str, x: torch.Tensor, before: tuple, candidate: Callable) -> Case:
    values, requires_grad, grad = before
    if x.requires_grad != requires_grad:
        return Case(
            name,
            False,
            f"x.requires_grad stays {requires_grad}",
            f"x.requires_grad = {x.requires_grad}",
            f"cube_grad switched {'on' if x.requires_grad else 'off'} requires_grad on the "
            "caller's own tensor. " + alias_note(candidate) + COPY,
        )
    if x.grad is not grad and x.is_leaf:
        return Case(
            name,
            False,
            "x.grad stays None",
            f"x.grad = {short(x.grad)}",
            "cube_grad left a gradient in the caller's x.grad. "
            + clone_note(candidate)
            + COPY
            + " Then ask for the gradient with torch.autograd.grad, which returns it instead of "
            "storing it.",
        )
    if not torch.equal(x.detach(), values):
        return Case(
            name,
            False,
            f"x keeps its values {short(values)}",
            f"x = {short(x.detach())}",
            "cube_grad changed the caller's x in place (a method ending in _, such as copy_ or "
            "mul_, or +=; a copy made with detach() shares x's memory, so changing it changes "
            "x too). Return a new tensor and leave x's numbers alone.",
        )
    return Case(name, True)


def _error_text(error: BaseException) -> str:
    failure = Failure.of("cube_grad", error)  # the same one-line wording as the doctor's
    return f"it raised {failure.kind}: {failure.message}"
