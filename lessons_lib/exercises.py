"""Reference answers to the course's exercises, and the checks that tell a learner when theirs is right."""

import html
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from lessons_lib.display import message_box
from lessons_lib.functions import Cube
from lessons_lib.probe import Failure, preserved_global_state


def cube_grad(x: torch.Tensor) -> torch.Tensor:
    """Return d/dx of Cube.apply(x).sum(): 3 * x**2, same shape and dtype as x.

    The caller's tensor is left alone: its .grad, requires_grad and graph are untouched.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"cube_grad needs a torch.Tensor, got {type(x).__name__}.")
    if not x.is_floating_point():
        raise TypeError(
            f"cube_grad needs a floating-point tensor (float32 or float64), got {x.dtype}: "
            "gradients are only defined for real numbers. Try cube_grad(x.float())."
        )
    # A fresh leaf that shares x's values but none of its autograd state.
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():  # works even inside a caller's torch.no_grad()
        (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad


# --- checking a learner's cube_grad ------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One check of a learner's answer: what was tried and, if it failed, what to do."""

    name: str
    passed: bool
    expected: str = ""
    got: str = ""
    fix: str = ""


class ExerciseCheck:
    """The verdict on one exercise answer: `ok`, one Case per check, plain text or HTML."""

    def __init__(self, name: str, cases: Sequence[Case]) -> None:
        self.name = name
        self.cases = list(cases)

    @property
    def ok(self) -> bool:
        return all(c.passed for c in self.cases)

    @property
    def first_failure(self) -> Case | None:
        return next((c for c in self.cases if not c.passed), None)

    def _headline(self) -> str:
        passed = sum(c.passed for c in self.cases)
        if self.ok:
            return f"{self.name}: all {passed} checks passed. Well done!"
        return f"{self.name}: {passed} of {len(self.cases)} checks passed"

    def __str__(self) -> str:
        lines = [self._headline()]
        lines += [f"  {'✓' if c.passed else '✗'} {c.name}" for c in self.cases]
        failure = self.first_failure
        if failure is not None:
            lines += [
                f"First problem: {failure.name}",
                f"  expected: {failure.expected}",
                f"  got:      {failure.got}",
                f"  how to fix it: {failure.fix}",
                "Fix this one first, then run the check again.",
            ]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        items = "".join(
            f"<li>{'✓' if c.passed else '✗'} {html.escape(c.name)}</li>" for c in self.cases
        )
        body = f'<ul style="list-style: none; padding-left: 0.5em;">{items}</ul>'
        failure = self.first_failure
        if failure is None:
            return message_box(self._headline(), body, "ok")
        body += (
            f"<p><b>First problem: {html.escape(failure.name)}</b><br>"
            f"<i>Expected:</i> <code>{html.escape(failure.expected)}</code><br>"
            f"<i>Got:</i> <code>{html.escape(failure.got)}</code><br>"
            f"<i>How to fix it:</i> {html.escape(failure.fix)}</p>"
            "<p>Fix this one first, then run the check again.</p>"
        )
        return message_box(self._headline(), body, "problem")


def check_cube_grad(candidate: object) -> ExerciseCheck:
    """Try a learner's cube_grad on every kind of input it must handle; never raises."""
    name = getattr(candidate, "__name__", type(candidate).__name__)
    if not callable(candidate):
        return ExerciseCheck(
            name,
            [
                Case(
                    "cube_grad is a function",
                    False,
                    "a function, such as your cube_grad",
                    f"{type(candidate).__name__} {_short(candidate)}",
                    "Pass the function itself, without calling it: check_cube_grad(cube_grad).",
                )
            ],
        )
    cases = []
    for check in _CUBE_GRAD_CASES:
        # Each case starts from torch's usual state, whatever the previous call did to it.
        with preserved_global_state(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. reading .grad of a non-leaf
            cases.append(check(candidate))
    return ExerciseCheck(name, cases)


def _values(dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.tensor([-2.0, -1.0, 0.0, 0.5, 3.0], dtype=dtype)


def _case_1d(candidate: Callable) -> Case:
    return _compare(candidate, "1-d values", _values())


def _case_0d(candidate: Callable) -> Case:
    return _compare(candidate, "a 0-d tensor (a single number)", torch.tensor(2.0))


def _case_empty(candidate: Callable) -> Case:
    return _compare(candidate, "an empty tensor", torch.tensor([]))


def _case_2d(candidate: Callable) -> Case:
    return _compare(candidate, "a 2-d tensor", torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.5]]))


def _case_float32(candidate: Callable) -> Case:
    return _compare(candidate, "float32 stays float32", _values(torch.float32))


def _case_float64(candidate: Callable) -> Case:
    return _compare(candidate, "float64 stays float64", _values(torch.float64))


def _case_leaf(candidate: Callable) -> Case:
    x = torch.tensor([1.0, -2.0], requires_grad=True)  # x.grad and requires_grad must not change
    return _compare(candidate, "a tensor that requires grad is left alone", x)


def _case_non_leaf(candidate: Callable) -> Case:
    name = "a non-leaf (the result of other steps)"
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = w * 2  # part of the caller's graph: x.grad is never filled for it
    case = _compare(candidate, name, x)
    if case.passed and w.grad is not None:
        return Case(
            name,
            False,
            "the tensors x was made from keep .grad = None",
            f"w.grad = {_short(w.grad)}, where x = w * 2",
            "The gradient flowed on through the caller's graph into w. " + _COPY,
        )
    return case


def _case_integer(candidate: Callable) -> Case:
    name = "an integer tensor is refused with a clear error"
    x = torch.tensor([1, 2, 3])
    expected = "a TypeError (or ValueError) that says floating-point values are needed"
    fix = (
        "Gradients exist only for floating-point values. Check first and raise a helpful "
        "error: if not x.is_floating_point(): raise TypeError('cube_grad needs a "
        "floating-point tensor; try cube_grad(x.float())')."
    )
    try:
        result = candidate(x)
    except (TypeError, ValueError):
        return Case(name, True)
    except Exception as error:
        return Case(
            name, False, expected, f"{_error_text(error)} (an error from deep inside PyTorch)", fix
        )
    return Case(name, False, expected, f"no error; it returned {_short(result)}", fix)


_CUBE_GRAD_CASES = (
    _case_1d,
    _case_0d,
    _case_empty,
    _case_2d,
    _case_float32,
    _case_float64,
    _case_leaf,
    _case_non_leaf,
    _case_integer,
)

_COPY = (
    "Work on a private copy: leaf = x.detach().requires_grad_(True), then differentiate "
    "Cube.apply(leaf).sum() with respect to leaf."
)


def _compare(candidate: Callable, name: str, x: torch.Tensor) -> Case:
    """Call candidate(x); compare with 3 * x**2; check the caller's x was not changed."""
    want = 3 * x.detach() ** 2
    before = (x.detach().clone(), x.requires_grad, x.grad)
    expected = _short(want)
    try:
        got = candidate(x)
    except Exception as error:
        return Case(name, False, expected, _error_text(error), _fix_for_error(error))
    if isinstance(got, torch.Tensor) and got.shape == want.shape and got.dtype == want.dtype:
        got = got.detach()
        if not torch.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True):
            return Case(
                name,
                False,
                expected,
                _short(got),
                "The gradient of x**3 is 3 * x**2 at every element. Check your Cube's backward "
                "with check_function(Cube, lambda x: x**3), and that cube_grad differentiates "
                "Cube.apply(x).sum().",
            )
        return _unchanged(name, x, before)
    return Case(name, False, expected, _short(got), _fix_for_result(got, want, x))


def _unchanged(name: str, x: torch.Tensor, before: tuple) -> Case:
    values, requires_grad, grad = before
    if x.requires_grad != requires_grad:
        return Case(
            name,
            False,
            f"x.requires_grad stays {requires_grad}",
            f"x.requires_grad = {x.requires_grad}",
            "cube_grad switched on requires_grad on the caller's own tensor. " + _COPY,
        )
    if x.grad is not grad and x.is_leaf:
        return Case(
            name,
            False,
            "x.grad stays None",
            f"x.grad = {_short(x.grad)}",
            "cube_grad left a gradient in the caller's x.grad. " + _COPY,
        )
    if not torch.equal(x.detach(), values):
        return Case(
            name,
            False,
            f"x keeps its values {_short(values)}",
            f"x = {_short(x.detach())}",
            "cube_grad changed x in place. Compute new tensors instead (x * x, not x.mul_(x)).",
        )
    return Case(name, True)


def _fix_for_result(got: object, want: torch.Tensor, x: torch.Tensor) -> str:
    if got is None:
        if not x.is_leaf:
            return (
                "PyTorch fills .grad only for leaf tensors, and this x is the result of other "
                "steps, so x.grad stays None. " + _COPY
            )
        return "cube_grad returned None: return the gradient tensor, shaped like x."
    if not isinstance(got, torch.Tensor):
        return "Return a torch.Tensor shaped like x (not a number, a list or a tuple)."
    if got.shape != want.shape:
        return (
            f"The gradient has one number per element of x, so its shape is x's shape "
            f"{tuple(want.shape)}. Do not sum, flatten or index it."
        )
    return (
        f"Keep the dtype of x ({want.dtype}): build everything from x without .float(), "
        ".double() or a fixed dtype, and PyTorch keeps it for you."
    )


def _fix_for_error(error: Exception) -> str:
    if isinstance(error, NotImplementedError):
        return "Write the body of cube_grad (it still raises NotImplementedError)."
    return (
        "Read the error above and fix that line. Every kind of input here is ordinary, so "
        "cube_grad should handle it without special cases."
    )


def _error_text(error: BaseException) -> str:
    failure = Failure.of("cube_grad", error)  # the same one-line wording as the doctor's
    return f"it raised {failure.kind}: {failure.message}"


def _short(value: object) -> str:
    """A one-line description of a value: its repr, trimmed, plus dtype for tensors."""
    if isinstance(value, torch.Tensor):
        text = " ".join(repr(value.detach()).split())
        if value.dtype != torch.float32 and "dtype=" not in text:
            text = text[:-1] + f", dtype={value.dtype})"
        return text if len(text) <= 120 else text[:117] + "..."
    try:
        text = " ".join(repr(value).split())
    except Exception:  # a learner's object whose repr is broken
        text = f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."
