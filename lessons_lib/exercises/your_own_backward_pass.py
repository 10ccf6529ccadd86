"""The exercise "Your own backward pass", in two parts, each with a check that tells a learner
when their answer is right (a wrong answer gets a specific fix; hints come in steps).

Part 1, in the beginner track's words: fix Cube's backward, checked by check_cube.
Part 2, after the developer track: cube_grad (the course's answer is here), checked by
check_cube_grad.
"""

import ast
import inspect
import textwrap
import traceback
import warnings
from collections.abc import Callable
from contextlib import nullcontext

import torch

from lessons_lib.doctor.examination import check_function
from lessons_lib.exercises.base import Case, ExerciseCheck, Hint, plain, short
from lessons_lib.functions import Cube
from lessons_lib.running import (
    Failure,
    Run,
    a_or_an,
    describe_non_function,
    is_function,
    preserved_global_state,
    run_function,
)
from lessons_lib.sections import read_more
from lessons_lib.watch import Usage, watching


def cube_grad(x: torch.Tensor) -> torch.Tensor:
    """Return d/dx of Cube.apply(x).sum(): 3 * x**2, same shape and dtype as x.

    The caller's tensor is left alone: its .grad, requires_grad and graph are untouched.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"cube_grad needs a torch.Tensor, got {type(x).__name__}.")
    if not x.is_floating_point():
        raise TypeError(
            f"cube_grad needs a floating-point tensor (float32 or float64), got {x.dtype}: "
            "PyTorch computes no gradient for integers. Try cube_grad(x.float())."
        )
    # A fresh leaf that shares x's values but none of its autograd state.
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():  # recording on, also inside a caller's torch.no_grad()
        (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad


# --- Part 1: checking a learner's Cube, in the beginner track's words ------------------

# The upstream gradient starts with 10, the later step of the notebook's demonstration;
# uneven on purpose, so that a backward that drops grad_out cannot match it by luck.
_CUBE_X = (2.0, -1.0, 0.5, 3.0)
_CUBE_GRAD_OUT = (10.0, 2.0, -1.0, 0.5)
_CUBE_HINT_CALL = "check_cube(Cube, hint={})"
# Part 1's one pointer, to the beginner track's heading where grad_out * 3 * x**2 is read.
READ_BEGINNER = read_more("notepad-cube")
_CUBE_HINTS = (
    Hint(
        "the idea",
        "Remember the kitchen line: each cook takes the number that arrives from the cook "
        "after her, multiplies it by her own slope, and passes the product on. Cube's own "
        "slope at x is 3·x². The number that arrives is the upstream gradient. backward must "
        "give back their product, not the slope alone.",
    ),
    Hint(
        "where it lives",
        "The upstream gradient is backward's second argument, grad_out. The line before the "
        "TODO already reads x back from the notepad, and 3 * x**2 is the slope. Multiply "
        "the two with *.",
    ),
    Hint("the answer", "backward's last line:", "return grad_out * 3 * x**2"),
)
_FORWARD = "forward computes x³"
_ONE_GRADIENT = "backward gives back one tensor, shaped like x"
_MULTIPLIES = "backward multiplies grad_out by the slope 3·x²"
_DOCTOR = "the gradient doctor finds no problems"


def check_cube(fn: object, hint: int = 0) -> ExerciseCheck:
    """Check a learner's fixed Cube in plain words: forward is x³, backward returns
    grad_out * 3x², and the gradient doctor agrees; never raises.

    `hint` (1, 2 or 3) also shows that many steps of the hint ladder.
    """
    if not is_function(fn):
        case = Case(
            "you passed your class",
            False,
            "the class you wrote, Cube",
            describe_non_function(fn, "check_cube({})"),
            "Pass the name that comes after the word class, with nothing after it: "
            "check_cube(Cube).",
        )
        return ExerciseCheck("check_cube", [case], _CUBE_HINTS, _CUBE_HINT_CALL).hint(hint)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the learner reads the verdict, not torch's warnings
        cases = _cube_cases(fn)
    return ExerciseCheck(fn.__name__, cases, _CUBE_HINTS, _CUBE_HINT_CALL).hint(hint)


def _cube_cases(fn: type) -> list[Case]:
    x, grad_out = torch.tensor(_CUBE_X), torch.tensor(_CUBE_GRAD_OUT)
    run = run_function(fn, (x,), lambda output, index: grad_out.clone())
    cases = [_cube_forward_case(run, x)]
    later = "not checked yet: fix the problem above first"
    if not cases[0].passed:
        return cases + [Case(n, False, got=later) for n in (_ONE_GRADIENT, _MULTIPLIES, _DOCTOR)]
    cases.append(_cube_one_gradient_case(run, x))
    if not cases[1].passed:
        return cases + [Case(n, False, got=later) for n in (_MULTIPLIES, _DOCTOR)]
    cases.append(_cube_multiplies_case(run.grads[0], x, grad_out))
    if not cases[2].passed:
        return [*cases, Case(_DOCTOR, False, got=later)]
    return [*cases, _cube_doctor_case(fn)]


def _cube_forward_case(run: Run, x: torch.Tensor) -> Case:
    want = x**3
    expected = f"{plain(want)}  (x³ for x = {plain(x)})"
    keep = "Keep forward as the starter wrote it: return x**3."
    if run.failure is not None and run.failure.stage == "forward":
        if run.failure.kind == "NoGraph":
            got = f"forward gave back {plain(run.output)}: not numbers computed from x"
            return Case(_FORWARD, False, expected, got, keep)
        got = f"forward stopped with an error: {run.failure.kind}: {run.failure.message}"
        return Case(_FORWARD, False, expected, got, "Read the error, fix that line. " + keep)
    got = run.output
    right_kind = isinstance(got, torch.Tensor) and got.shape == want.shape
    if right_kind and got.is_floating_point() and torch.allclose(got.to(want.dtype), want):
        return Case(_FORWARD, True)
    return Case(_FORWARD, False, expected, plain(got), "forward changed. " + keep)


def _cube_one_gradient_case(run: Run, x: torch.Tensor) -> Case:
    expected = f"one tensor with {x.numel()} numbers, one per number that went into forward"
    if run.failure is not None:
        got = f"backward stopped with an error: {run.failure.kind}: {run.failure.message}"
        return Case(_ONE_GRADIENT, False, expected, got, _backward_error_fix(run.failure.message))
    grads = run.grads
    if len(grads) != 1:
        fix = (
            f"backward gave back {len(grads)} things, but forward takes one input (x), so "
            "backward gives back exactly one: the gradient for x."
        )
        return Case(_ONE_GRADIENT, False, expected, plain(grads), fix)
    (grad,) = grads
    if grad is None:
        fix = (
            "backward gave back nothing (None), so no gradient reaches the steps before Cube. "
            "Did the word return go missing from its last line?"
        )
        return Case(_ONE_GRADIENT, False, expected, "None", fix)
    if not isinstance(grad, torch.Tensor):
        fix = (
            f"backward gave back {a_or_an(type(grad).__name__)}, but it must give back a "
            "tensor with one number per number of x, computed from grad_out and x."
        )
        return Case(_ONE_GRADIENT, False, expected, plain(grad), fix)
    if grad.shape != x.shape:
        fix = (
            f"backward gave back {grad.numel()} number(s) for {x.numel()} numbers of x. Keep "
            "one number per number of x: no .sum() and no picking out single numbers."
        )
        return Case(_ONE_GRADIENT, False, expected, plain(grad), fix)
    return Case(_ONE_GRADIENT, True)


def _backward_error_fix(message: str) -> str:
    """A fix for the errors a beginner's one-line backward raises."""
    if "is not defined" in message:
        return (
            "backward uses a name that does not exist there. Inside backward, the upstream "
            "gradient is called grad_out (its second argument) and x comes from the line "
            "(x,) = ctx.saved_tensors."
        )
    if "tuple" in message:
        return (
            "ctx.saved_tensors holds a group (a tuple) of saved tensors, even when there is "
            "one. Keep the starter's line (x,) = ctx.saved_tensors, which takes x out of it."
        )
    return "Read the error, then fix backward. Only its last line needs to change."


def _cube_multiplies_case(grad: torch.Tensor, x: torch.Tensor, grad_out: torch.Tensor) -> Case:
    """The chain rule, in the kitchen's words: what arrived, times Cube's own slope."""
    slope = 3 * x**2
    want = grad_out * slope
    expected = f"{plain(want)}  (grad_out times 3·x², with grad_out = {plain(grad_out)})"
    got = grad.detach()
    if not got.is_floating_point():
        fix = f"backward changed the kind of numbers (to {got.dtype}); keep them decimal."
        return Case(_MULTIPLIES, False, expected, plain(got), fix)
    got = got.to(want.dtype)
    if torch.allclose(got, want):
        return Case(_MULTIPLIES, True)
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
            f"backward multiplied the slope by {scale:g} every time. grad_out changes from one "
            f"backward pass to the next ({arrived.lower()}), so multiply by grad_out itself, "
            "not by a number you wrote in."
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
    return Case(_MULTIPLIES, False, expected, plain(got), fix, READ_BEGINNER)


def _cube_doctor_case(fn: type) -> Case:
    """The doctor's full examination: many points, other grad_outs, second derivatives."""
    report = check_function(fn, lambda x: x**3)
    if report.ok:
        return Case(_DOCTOR, True)
    first = report.findings[0]
    fix = _DOCTOR_FIXES.get(
        first.code,
        f"Run check_function({fn.__name__}, lambda x: x**3) and read its 'How to fix it' line.",
    )
    return Case(_DOCTOR, False, "no problems found", f"[{first.code}] {first.what}", fix)


# Plain words for what a beginner's Cube can still get wrong after the three checks above.
_DOCTOR_FIXES = {
    "mutates-grad-out": (
        "backward changed grad_out itself (with *= or a method whose name ends in _). grad_out "
        "is not Cube's to change: other steps may read it later. Make a new tensor instead: "
        "return grad_out * 3 * x**2."
    ),
    "mutates-saved": (
        "backward changed x itself (with a method whose name ends in _, such as x.pow_(2), "
        "or with *=). That x is the caller's own tensor, read back from the notepad: after "
        "one training step it would hold x² instead of x. Make a new tensor instead: "
        "3 * x**2."
    ),
    "ctx-tensor": (
        "forward wrote x on the notepad as ctx.x = x. Tensors go on the notepad the official "
        "way, as the starter had it: ctx.save_for_backward(x) in forward, then "
        "(x,) = ctx.saved_tensors in backward."
    ),
}


# --- checking a learner's cube_grad ------------------------------------------------

# Where each problem is taught (sections.TAUGHT's keys).
READ = {
    "use-cube": read_more("not-a-function"),
    "apply": read_more("apply"),
    "chain": read_more("chain-rule"),
    "gradient": read_more("gradient"),
    "saved": read_more("mutates-saved"),
}

_HINT_CALL = "check_cube_grad(cube_grad, hint={})"


def _cube_grad_hints() -> tuple[Hint, ...]:
    return (
        Hint(
            "the idea",
            "Let autograd do the differentiating, through your Cube, on a private copy of x: "
            "make a copy that autograd may record, run your Cube on it, add the results up "
            "into one number, and ask for the gradient of that number with respect to the "
            "copy, with recording switched on even where the caller switched it off. Before "
            "all that, refuse a tensor that is not floating-point.",
        ),
        Hint(
            "the PyTorch calls",
            "x.detach() is a copy with x's numbers and none of its history; "
            ".requires_grad_(True) lets autograd record steps on it; Cube.apply(copy) runs "
            "your Function and puts it in the graph; .sum() makes one number; "
            "torch.autograd.grad(total, copy) returns a tuple holding the gradient, and fills "
            "no .grad anywhere; the lines inside `with torch.enable_grad():` record even "
            "within a caller's torch.no_grad(); x.is_floating_point() is False for integer "
            "tensors.",
        ),
        Hint(
            "the answer",
            "the course's tested answer, lessons_lib.exercises.your_own_backward_pass:",
            inspect.getsource(cube_grad),
        ),
    )


def check_cube_grad(candidate: object, hint: int = 0) -> ExerciseCheck:
    """Try a learner's cube_grad on every kind of input it must handle, compare it with the
    course's cube_grad, and make sure their own Cube did the work; never raises.

    `hint=1, 2, 3` also shows the idea, then the PyTorch calls, then the answer.
    """
    name = str(getattr(candidate, "__name__", type(candidate).__name__))
    if not callable(candidate):
        case = Case(
            "cube_grad is a function",
            False,
            "a function, such as your cube_grad",
            f"{type(candidate).__name__} {short(candidate)}",
            "Pass the function itself, without calling it: check_cube_grad(cube_grad).",
        )
        return ExerciseCheck(name, [case], _cube_grad_hints(), _HINT_CALL).hint(hint)
    cube = _learners_cube(candidate)
    cases = []
    for check in _CUBE_GRAD_CASES:
        # Each case starts from torch's usual state, whatever the previous call did to it.
        with preserved_global_state(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. reading .grad of a non-leaf
            cases.append(check(candidate, cube))
    return ExerciseCheck(name, cases, _cube_grad_hints(), _HINT_CALL).hint(hint)


def _learners_cube(candidate: Callable) -> type | None:
    """The Cube the learner wrote: the one their cube_grad sees, in its own module/notebook."""
    namespace = getattr(candidate, "__globals__", None)
    cube = namespace.get("Cube") if isinstance(namespace, dict) else None
    return cube if is_function(cube) else None


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
    return _compare(candidate, cube, "float32 stays float32", _values(torch.float32))


def _case_float64(candidate: Callable, cube: type | None) -> Case:
    return _compare(candidate, cube, "float64 stays float64", _values(torch.float64))


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
            + _clone_note(candidate)
            + _COPY,
        )
    return case


NO_GRAD = "works inside the caller's torch.no_grad()"


def _case_no_grad(candidate: Callable, cube: type | None) -> Case:
    """Called where the caller switched recording off, cube_grad still gives the gradient."""
    with torch.no_grad():
        return _compare(candidate, cube, NO_GRAD, _values(), caller_no_grad=True)


def _case_uses_cube(candidate: Callable, cube: type | None) -> Case:
    """The learner's own Cube did the work: its backward ran while cube_grad was called."""
    name = "your Cube's backward did the work"
    expected = "cube_grad calls Cube.apply and autograd runs your Cube's backward"
    if cube is None:
        return Case(name, False, expected, _NO_CUBE, _RUN_CUBE_CELL, READ["use-cube"])
    x = _values()
    with watching(cube) as usage:
        try:
            result = candidate(x)
        except Exception as error:
            return Case(
                name, False, expected, _error_text(error), "Fix the error shown above first."
            )
    got = (
        f"calls of Cube.apply: {len(usage.applies)}, of Cube.forward by hand: "
        f"{usage.forward_direct}; runs of your backward: {usage.backward}"
    )
    if usage.backward:
        return Case(name, True)
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
        return Case(name, False, "your Cube", _NO_CUBE, _RUN_CUBE_CELL, READ["use-cube"])
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
        "cube_grad's own TypeError (or ValueError), raised before any PyTorch step, whose "
        "message asks for floating-point values (the check looks for the word float)"
    )
    try:
        result = candidate(x)
    except (TypeError, ValueError) as error:
        if "float" in str(error).lower():
            return Case(name, True)
        return Case(name, False, expected, _error_text(error), _SAY_WHAT_TO_PASS)
    except Exception as error:
        return _integer_error_case(name, expected, error, candidate)
    fix = (
        f"cube_grad accepted a {x.dtype} tensor and gave back an answer. The task asks it to "
        "refuse one, so that a caller who passed integers by mistake hears about it: " + _RAISE
    )
    return Case(name, False, expected, f"no error; it returned {short(result)}", fix)


_RAISE = (
    "if not x.is_floating_point(): raise TypeError('cube_grad needs a floating-point tensor; "
    "try cube_grad(x.float())')."
)
_SAY_WHAT_TO_PASS = (
    "Right kind of error, but its message does not say what to pass instead. Name "
    "floating-point values in it, for example 'cube_grad needs a floating-point tensor; try "
    "cube_grad(x.float())'."
)


def _integer_error_case(name: str, expected: str, error: Exception, candidate: Callable) -> Case:
    """A wrong kind of error for an integer tensor: the learner's own raise, or PyTorch's."""
    kind, line = _raised_where(error, candidate)
    if kind == "own" and isinstance(error, AssertionError):
        fix = (
            "Your own check fired, but as an assert, which raises AssertionError. An assert is "
            "for catching your own bugs (and Python skips it under python -O); for a caller "
            "who passed the wrong kind of tensor, raise TypeError instead: " + _RAISE
        )
        return Case(name, False, expected, _error_text(error), fix)
    if kind == "own":
        fix = (
            f"Your own check fired, but it raised {type(error).__name__}. A tensor of the wrong "
            "dtype is a value of the wrong type, and Python's error for that is TypeError: "
            + _RAISE
        )
        return Case(name, False, expected, _error_text(error), fix)
    where = f", raised by PyTorch in your line `{line}`" if kind == "torch" else ""
    fix = (
        f"{_own_check_note(candidate)}PyTorch's {type(error).__name__} says what went wrong "
        "inside PyTorch, not what the caller of cube_grad should pass. Check x at the top "
        "of cube_grad, before any PyTorch step, and raise a TypeError that says what to pass "
        "instead: " + _RAISE
    )
    return Case(name, False, expected, _error_text(error) + where, fix)


def _raised_where(error: BaseException, candidate: Callable) -> tuple[str, str]:
    """("own", line) for the learner's own raise or assert, ("torch", line) for an error PyTorch
    raised in the learner's line `line`, ("", "") when the traceback does not say."""
    code = getattr(candidate, "__code__", None)
    frames = traceback.extract_tb(error.__traceback__)
    if code is None or not frames:
        return "", ""
    theirs = [f for f in frames if f.filename == code.co_filename]
    if not theirs:
        return "", ""
    line = (theirs[-1].line or "").strip()
    last = frames[-1]
    if last.filename != code.co_filename:  # raised in a Python file further down
        inside_torch = "/torch/" in last.filename.replace("\\", "/")
        return ("torch" if inside_torch else ""), line
    tree, row = _function_tree(candidate), (last.lineno or 0) - code.co_firstlineno + 1
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Raise | ast.Assert) and node.lineno <= row <= node.end_lineno:
            return "own", line
    return "torch", line  # a PyTorch call written in C, such as requires_grad_, raised


def _own_check_note(candidate: Callable) -> str:
    """Why a dtype check the learner wrote did not fire for a torch.int64 tensor; "" if none."""
    tree = _function_tree(candidate)
    if tree is None:
        return ""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare | ast.Call):
            continue
        text = ast.unparse(node)
        if isinstance(node, ast.Call) and text.startswith("isinstance(") and "int" in text:
            return (
                f"Your own check did not fire: `{text}` asks whether x is a Python number, and "
                "x is a tensor whatever numbers it holds. Ask the tensor: x.is_floating_point(). "
            )
        if isinstance(node, ast.Compare) and "dtype" in text:
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            attrs = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            if names & {"int", "float"}:
                return (
                    f"Your own check did not fire: in `{text}`, int and float are Python's "
                    "types, and a tensor's dtype is never one of them (it is torch.int64, "
                    "torch.float32, ...). Ask the tensor: x.is_floating_point(). "
                )
            if attrs & {"int", "int32"}:
                return (
                    f"Your own check did not fire: in `{text}`, torch.int is torch.int32, but "
                    "this tensor is torch.int64 (what torch.tensor([1, 2, 3]) makes). "
                    "Integers come in many dtypes (int8 to int64, uint8, bool), so ask "
                    "x.is_floating_point() instead of listing them. "
                )
    if "dtype" in ast.unparse(tree):
        return (
            "Your own check did not fire for this torch.int64 tensor. Ask "
            "x.is_floating_point(), which is False for every integer dtype. "
        )
    return ""


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

_NO_CUBE = "no Function named Cube where cube_grad was written"
_RUN_CUBE_CELL = (
    "check_cube_grad looks for your Cube next to your cube_grad: run the cell that defines "
    "class Cube(torch.autograd.Function) first, then the cube_grad cell."
)
_COPY = (
    "Work on a private copy, not on the caller's tensor: x.detach() has the same numbers and "
    "none of x's history; switch on requires_grad for the copy, never for x."
)


def _compare(
    candidate: Callable,
    cube: type | None,
    name: str,
    x: torch.Tensor,
    source: torch.Tensor | None = None,
    caller_no_grad: bool = False,
) -> Case:
    """Call candidate(x); compare with the course's cube_grad; check x was left alone.

    `source` is what a non-leaf x was made from: where a gradient leaks to instead of x.grad.
    `caller_no_grad`: the call runs inside the caller's torch.no_grad().
    """
    want = cube_grad(x)
    before = (x.detach().clone(), x.requires_grad, x.grad)
    expected = f"{short(want)} (the course's cube_grad)"
    with watching(cube) if cube is not None else nullcontext(Usage()) as usage:
        try:
            got = candidate(x)
        except Exception as error:
            fix, read = _fix_for_error(error, usage)
            if caller_no_grad and "does not require grad" in str(error):
                fix, read = _CALLER_NO_GRAD, ""
            return Case(name, False, expected, _error_text(error), fix, read)
    if isinstance(got, torch.Tensor) and got.shape == want.shape and got.dtype == want.dtype:
        got = got.detach()
        if not torch.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True):
            return Case(name, False, expected, short(got), *_fix_for_values(got, x))
        return _unchanged(name, x, before, candidate)
    # Every input starts with .grad None: a gradient found there now leaked from cube_grad.
    leaked = source if source is not None else x
    leaked_into = ("w" if source is not None else "x") if leaked.grad is not None else ""
    return Case(
        name, False, expected, short(got), _fix_for_result(got, want, x, candidate, leaked_into)
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
            "caller's own tensor. " + _alias_note(candidate) + _COPY,
        )
    if x.grad is not grad and x.is_leaf:
        return Case(
            name,
            False,
            "x.grad stays None",
            f"x.grad = {short(x.grad)}",
            "cube_grad left a gradient in the caller's x.grad. "
            + _clone_note(candidate)
            + _COPY
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


def _fix_for_values(got: torch.Tensor, x: torch.Tensor) -> tuple[str, str]:
    """What to change when the shape and dtype are right but the numbers are not."""
    if torch.allclose(got, x.detach() ** 3, equal_nan=True):
        fix = (
            "cube_grad returned Cube's output, x**3, not its gradient. Return the gradient "
            "of the sum with respect to your copy of x."
        )
        return fix, ""
    if x.numel() > 1 and torch.allclose(got * x.numel(), cube_grad(x), rtol=1e-5, atol=1e-6):
        fix = (
            f"Each number is the course's divided by {x.numel()}, the number of elements: "
            "cube_grad differentiated the mean, not the sum. Take .sum() of Cube.apply's result."
        )
        return fix, ""
    fix = (
        "The numbers differ from the course's cube_grad: the gradient of x**3 is 3 * x**2 at "
        "every element. Check your Cube with check_function(Cube, lambda x: x**3), and that "
        "cube_grad differentiates Cube.apply(...).sum()."
    )
    return fix, READ["gradient"]


def _fix_for_result(
    got: object, want: torch.Tensor, x: torch.Tensor, candidate: Callable, leaked_into: str
) -> str:
    if got is None:
        return _fix_for_none(x, candidate, leaked_into)
    if isinstance(got, bool | int | float):
        return (
            f"cube_grad returned a Python {type(got).__name__}, not a tensor: return the "
            "gradient tensor itself, without .item() or float(...)."
        )
    if isinstance(got, tuple | list) and any(isinstance(g, torch.Tensor) for g in got):
        return (
            "torch.autograd.grad returns a tuple, one gradient per tensor you asked about. "
            "Unpack it, (grad,) = torch.autograd.grad(...), and return grad."
        )
    if type(got).__module__ == "numpy":
        return "cube_grad returned a NumPy array: return the torch tensor, without .numpy()."
    if not isinstance(got, torch.Tensor):
        return "Return a torch.Tensor shaped like x (not a number, a list or a tuple)."
    if got.shape != want.shape:
        return (
            f"The gradient has one number per element of x, so its shape is x's shape "
            f"{tuple(want.shape)}. Do not sum, flatten or index it."
        )
    return (
        f"Keep the dtype of x ({want.dtype}): build everything from x without .float(), "
        ".double(), torch.tensor(...) or a fixed dtype, and PyTorch keeps it for you."
    )


def _fix_for_none(x: torch.Tensor, candidate: Callable, leaked_into: str) -> str:
    """Why cube_grad gave back None; leaked_into names the caller's tensor whose .grad it filled.

    Every story here is checked against what happened: whether the caller's tensor (or w,
    which a non-leaf x was made from) received the gradient, and whether cube_grad reused
    the caller's name for its copy (`x = x.clone()...`), so that `x.grad` is the copy's.
    """
    returns = _returned(candidate)
    if returns == []:
        return (
            "cube_grad has no return line, so Python gives back None: end it with return and "
            "the gradient you computed."
        )
    param = _first_parameter(candidate)
    renamed = _assignment_to(candidate, param)  # e.g. "x = x.clone().requires_grad_(True)"
    reads_grad = any(r.endswith(".grad") for r in returns or ())
    source = _source_text(candidate)
    if leaked_into:
        if param and f"{param}.grad" in (returns or ()) and not renamed and not x.is_leaf:
            return (
                f"cube_grad returned {param}.grad, and this x is the result of other steps "
                f"(x = w * 2), not a leaf: PyTorch fills .grad only for leaf tensors, so x.grad "
                f"stays None, and backward passed the gradient on into w.grad instead. " + _COPY
            )
        if renamed and f"{param}.grad" in (returns or ()):
            what = (
                f"`{renamed}` gives the name {param} to your copy, so `return {param}.grad` "
                "returned the copy's .grad, which is None"
            )
        else:
            what = "cube_grad returned None"
        onward = "on to it" if leaked_into == "x" else "through it on to w, which x was made from"
        return (
            f"{what}, and the gradient went into the caller's {leaked_into}.grad instead: a "
            f"copy made with {_copy_step(source, param)} stays connected to the caller's "
            f"tensor, so backward passes the gradient {onward} and keeps none for the copy. "
            "Make the copy with x.detach(), which cuts it off, then switch on requires_grad."
        )
    if reads_grad and "autograd.grad" in source:
        what = f"cube_grad returned {returns[0]}"
        if renamed and f"{param}.grad" in returns:
            what = (
                f"`{renamed}` gives the name {param} to your copy, so `return {param}.grad` "
                "returned the copy's .grad"
            )
        return (
            f"{what}, which is None: torch.autograd.grad gives the gradient back and stores it "
            "in no .grad. Keep what it returns, (grad,) = torch.autograd.grad(...), and return "
            "grad."
        )
    if reads_grad and ".backward(" not in source:
        return (
            f"cube_grad returned {returns[0]}, which is None because nothing asked autograd "
            "for a gradient. Call .backward() on the sum of Cube.apply's result, or better, "
            "take the gradient from torch.autograd.grad, which returns it."
        )
    non_leaf = (
        "PyTorch fills .grad only for leaf tensors, and this x is the result of other steps, "
        "so x.grad stays None. " + _COPY
    )
    if param and f"{param}.grad" in (returns or ()):
        if renamed:
            return (
                f"`{renamed}` gives the name {param} to your copy, so `return {param}.grad` "
                "returned the copy's .grad, which is None. Return the gradient itself: take "
                "it from torch.autograd.grad, which returns it."
            )
        if not x.is_leaf:
            return non_leaf
        return (
            f"cube_grad returned {param}.grad, the caller's own .grad, which is None: the "
            "gradient went to your copy, not to the caller's tensor. Return the copy's "
            "gradient, or better, take it from torch.autograd.grad, which returns it."
        )
    if not x.is_leaf:
        return non_leaf
    return "cube_grad returned None: return the gradient tensor, shaped like x."


def _copy_step(source: str, param: str) -> str:
    """How the learner's copy was made, in their words where the source says: "x.clone()"."""
    if f"{param}.clone(" in source:
        return f"{param}.clone()"
    return "a PyTorch step on x (x.clone(), x * 1, x.to(...))"


def _clone_note(candidate: Callable) -> str:
    """A sentence for a copy made with clone(), which stays connected to the caller's x."""
    source = _source_text(candidate)
    if ".clone(" not in source or ".detach(" in source:
        return ""
    return (
        "A copy made with x.clone() stays connected to the caller's tensor, so backward "
        "passes the gradient on to it. "
    )


def _assignment_to(fn: Callable, name: str) -> str:
    """The first `name = ...` line in fn's own body, as source text; "" when there is none."""
    tree = _function_tree(fn)
    if tree is None or not name:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return ast.unparse(node)
    return ""


def _source_text(fn: Callable) -> str:
    """fn's own def as normalised source text; "" when it cannot be read."""
    tree = _function_tree(fn)
    return "" if tree is None else ast.unparse(tree)


def _first_parameter(fn: Callable) -> str:
    try:
        return next(iter(inspect.signature(fn).parameters), "")
    except (TypeError, ValueError):  # a callable without a readable signature
        return ""


def _alias_note(fn: Callable) -> str:
    """A sentence for `copy = x`, which names the caller's tensor twice and copies nothing."""
    param = _first_parameter(fn)
    tree = _function_tree(fn)
    if tree is None or not param:
        return ""
    for node in ast.walk(tree):
        plain = isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)
        if plain and node.value.id == param and isinstance(node.targets[0], ast.Name):
            alias = node.targets[0].id
            return (
                f"`{alias} = {param}` gives the same tensor a second name; it does not copy "
                f"it, so switching on {alias}.requires_grad switches it on for {param}. "
            )
    return ""


def _function_tree(fn: Callable) -> ast.AST | None:
    """The syntax tree of fn's own def, or None when its source cannot be read."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_name == "<lambda>":
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    return next((n for n in ast.walk(tree) if isinstance(n, defs) and n.name == code.co_name), None)


def _returned(fn: Callable) -> list[str] | None:
    """The expressions fn's own return statements give back, as source text ("None" for a
    bare return); None when the source cannot be read (a lambda, a built-in)."""
    func = _function_tree(fn)
    if func is None:
        return None
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    found, todo = [], list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (*defs, ast.Lambda, ast.ClassDef)):
            continue  # a nested function's returns are not cube_grad's
        if isinstance(node, ast.Return):
            found.append("None" if node.value is None else ast.unparse(node.value))
        todo.extend(ast.iter_child_nodes(node))
    return found


def _fix_for_error(error: Exception, usage: Usage) -> tuple[str, str]:
    """What to change, for the errors learners' cube_grads raise; and where it is taught."""
    message = str(error)
    if usage.forward_direct:  # whatever broke next, this came first
        return (
            "cube_grad called Cube.forward(...) itself. Call Cube.apply(copy) instead: apply "
            "creates the notepad ctx, runs forward, and puts Cube's backward into the graph.",
            READ["apply"],
        )
    if "One of the differentiated Tensors does not require grad" in message:
        return _GRAD_WRT_UNTRACKED, ""  # the inputs= of torch.autograd.grad, not the output
    if "appears to not have been used in the graph" in message:
        return _GRAD_WRT_UNUSED, ""
    if "backward through the graph a second time" in message:
        return _TWICE, ""
    if "Mismatch in shape" in message and "grad_output" in message:
        return _GRAD_OUT_SHAPE, ""
    if "does not require grad" in message:  # "element 0 of tensors does not require grad"
        if usage.recorded:
            return _CUT_CHAIN, ""
        if "recording off" in usage.applies:
            return _RECORDING_OFF, ""
        return _REQUIRES_GRAD, READ["use-cube"]
    if "implicitly created only for scalar outputs" in message:
        if _torch_call(error) == "grad":
            return _SCALAR_GRAD, ""
        return _SCALAR_BACKWARD, ""
    if "call numpy() on Tensor that requires grad" in message:
        return _NUMPY, ""
    if "cannot be converted to Scalar" in message:
        return _ITEM, ""
    if "leaf Variable that requires grad is being used in an in-place operation" in message:
        return _LEAF_IN_PLACE, ""
    if "modified by an inplace operation" in message:
        return _SAVED_IN_PLACE, READ["saved"]
    if "must implement either the backward or vjp" in message:
        return "Your Cube has no backward: write @staticmethod backward(ctx, grad_out).", ""
    if isinstance(error, NameError):
        return (
            f"{error.name} does not exist where cube_grad was written: run the cell that "
            "defines it first, or check the spelling.",
            "",
        )
    if isinstance(error, NotImplementedError):
        return "Write the body of cube_grad (it still raises NotImplementedError).", ""
    return (
        "Read the error above and fix that line. Every kind of input here is ordinary, so "
        "cube_grad should handle it without special cases.",
        "",
    )


_REQUIRES_GRAD = (
    "Autograd recorded nothing to differentiate: the tensor you pass to Cube.apply needs "
    "requires_grad switched on before the call. Switch it on for your private copy, not for "
    "x: copy = x.detach().requires_grad_(True), then Cube.apply(copy)."
)
_CUT_CHAIN = (
    "Cube.apply's result was recorded, but what you differentiated is not connected to it: a "
    "step in between (.detach(), .numpy(), .item(), torch.tensor(...)) cut the chain. Keep "
    "every step from Cube.apply(...) to .sum() a torch operation."
)
_GRAD_WRT_UNTRACKED = (
    "torch.autograd.grad(total, inputs) was asked for the gradient with respect to a tensor "
    "that does not require grad, such as the caller's x: ask with respect to your copy, the "
    "tensor you passed to Cube.apply."
)
_GRAD_WRT_UNUSED = (
    "torch.autograd.grad(total, inputs) was asked about a tensor that total was not computed "
    "from, such as the caller's x when Cube.apply ran on your copy: ask about the tensor you "
    "passed to Cube.apply."
)
_TWICE = (
    "Backward ran twice through the same graph, and the first run had already freed what "
    "Cube saved. Ask for the gradient once, with one .backward() or one torch.autograd.grad."
)
_GRAD_OUT_SHAPE = (
    "The tensor you passed to .backward(...) (or as grad_outputs) must have the shape of "
    "Cube.apply's result, one number per element. Simpler: take the .sum() first and call "
    ".backward() with no argument, or torch.autograd.grad(total, copy)."
)
_CALLER_NO_GRAD = (
    "The caller switched recording off with torch.no_grad(), and that switch still holds "
    "inside cube_grad, so Cube.apply recorded nothing to differentiate. Switch recording back "
    "on for your own steps: put them inside `with torch.enable_grad():`."
)
_RECORDING_OFF = (
    "Cube.apply ran with recording switched off (inside torch.no_grad()), so nothing was "
    "recorded: call it with recording on, for example inside torch.enable_grad()."
)
_SCALAR_BACKWARD = (
    ".backward() without an argument needs a single number, but Cube.apply(...) gives one "
    "number per element of x. The task asks for the gradient of the sum: call .sum() first, "
    "then .backward()."
)
_SCALAR_GRAD = (
    "torch.autograd.grad(outputs, inputs) without grad_outputs needs outputs to be a single "
    "number, but Cube.apply(...) gives one number per element of x. The task asks for the "
    "gradient of the sum: pass Cube.apply(...).sum()."
)
_NUMPY = (
    ".numpy() leaves PyTorch, and autograd cannot follow steps it did not record. Keep every "
    "step from Cube.apply(...) to .sum() in torch."
)
_ITEM = (
    ".item() turns a tensor holding exactly one number into a Python float, and the gradient "
    "has one number per element of x: return the gradient tensor itself, without .item()."
)
_LEAF_IN_PLACE = (
    "An in-place operation (a method ending in _, or +=, *=) was used on a tensor that "
    "requires grad. Compute new tensors instead (x * 3, not x.mul_(3)), and never change the "
    "caller's x."
)
_SAVED_IN_PLACE = (
    "A tensor Cube saved for backward was changed in place before backward ran, and the "
    "version check caught it. Leave Cube's input alone until the gradient is computed: build "
    "new tensors instead of changing old ones."
)


def _torch_call(error: BaseException) -> str:
    """Which torch entry point raised: "backward" (tensor.backward), "grad" or ""."""
    for frame in traceback.extract_tb(error.__traceback__):
        path = frame.filename.replace("\\", "/")
        if frame.name == "backward" and path.endswith("torch/_tensor.py"):
            return "backward"
        if frame.name == "grad" and path.endswith("torch/autograd/__init__.py"):
            return "grad"
    return ""


def _error_text(error: BaseException) -> str:
    failure = Failure.of("cube_grad", error)  # the same one-line wording as the doctor's
    return f"it raised {failure.kind}: {failure.message}"
