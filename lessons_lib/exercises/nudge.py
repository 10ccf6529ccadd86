"""Lesson 2's beginner task: the one line of a both-ways nudge, checked in plain words.

The learner writes my_nudge(f, x, h), the central difference (f(x + h) - f(x - h)) / 2h.
check_nudge runs it on three small examples (one where the size of h changes the answer),
says in words a beginner knows what is right or wrong (naming the usual slips: one-sided
nudges, a missing 2, Python's order of operations), and never raises; the line itself waits
in the hint ladder.
"""

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from lessons_lib.exercises import nudge_words as words
from lessons_lib.exercises.base import Case, ExerciseCheck, contained, named_as_written, refused
from lessons_lib.running import a_or_an, kind_and_size, short
from lessons_lib.running.arguments import MISSING

_TOLERANCE = 1e-9  # relative: every example below is exact to many more digits in float64


@dataclass(frozen=True)
class _Example:
    """One call the check makes: f (with its name in words), x and h, all in float64."""

    f: Callable[[torch.Tensor], torch.Tensor]
    f_words: str
    x: float
    h: float

    @property
    def name(self) -> str:
        return f"{self.f_words} at x = {self.x:g}, nudge h = {self.h:g}"

    def at(self, where: float) -> float:
        return self.f(torch.tensor([where], dtype=torch.float64)).item()

    @property
    def expected(self) -> float:
        return (self.at(self.x + self.h) - self.at(self.x - self.h)) / (2 * self.h)


def _cube(x: torch.Tensor) -> torch.Tensor:
    return x**3


def _square(x: torch.Tensor) -> torch.Tensor:
    return x**2


# x³ at 3 bends enough that every usual slip gives its own number (27.01 is right).
_CUBE = _Example(_cube, "x³", 3.0, 0.1)
# x² at -1: a different curve, point and nudge; the right answer is -2 (and a slip such as
# missing brackets cannot land on it by coincidence, as it would with h = 0.5).
_SQUARE = _Example(_square, "x²", -1.0, 0.25)
# x³ at 3 again, with a wide nudge: for x² the both-ways nudge is exact whatever h is, and
# for x³ it is 3x² + h², so only here does an h of the learner's own (0.1) give another
# number than the h given (27.01 instead of 28).
_WIDE = _Example(_cube, "x³", 3.0, 1.0)


def check_nudge(fn: object = MISSING, hint: object = 0) -> ExerciseCheck:
    """Check a beginner's my_nudge(f, x, h) against the both-ways nudge; never raises.

    `hint` (1, 2 or 3) also shows that many steps of the hint ladder.
    """
    wrong = refused(fn, words.WANTED)
    if wrong is not None:
        return wrong.hint(hint)
    with contained():
        cases = named_as_written(_cases(fn), "my_nudge", _name(fn))
    return ExerciseCheck(_name(fn), cases, words.HINTS, words.HINT_CALL).hint(hint)


def _name(fn: Callable) -> str:
    """The learner's name for fn, or my_nudge when it has none (a lambda, a partial)."""
    name = getattr(fn, "__name__", "")
    return name if isinstance(name, str) and name.isidentifier() else "my_nudge"


def _cases(fn: Callable) -> list[Case]:
    got, signature_problem = _signature_problem(fn)
    if signature_problem:
        untested = "my_nudge cannot be called with f, x and h yet"
        return [
            Case(words.RUNS, False, "def my_nudge(f, x, h):", got, signature_problem),
            *(Case.not_checked(ex.name, untested) for ex in (_CUBE, _SQUARE, _WIDE)),
        ]
    runs, got, used_f = _run(fn, _CUBE)
    if got is None:
        return [runs, *(Case.not_checked(ex.name) for ex in (_CUBE, _SQUARE, _WIDE))]
    square_runs, got_square, _ = _run(fn, _SQUARE)
    if got_square is None:  # ran on x³ but not on x²: say so under the x² example's name
        square_case = Case(_SQUARE.name, False, "one number", square_runs.got, square_runs.fix)
    else:
        square_case = _square_case(got_square, got)
    return [runs, _cube_case(got, used_f, got_square), square_case, _wide_case(fn, got)]


def _signature_problem(fn: Callable) -> tuple[str, str]:
    """(its first line, why) when fn cannot be called as fn(f, x, h); ("", "") when it can."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: just try calling it
        return "", ""
    try:
        signature.bind(_cube, 0.0, 0.1)
    except TypeError:
        names = ", ".join(signature.parameters)
        return f"def {_name(fn)}({names}):", (
            f"my_nudge takes ({names}), but the check calls it with three things, in this order: "
            "the function f, the point x and the nudge size h. Keep the first line as "
            "def my_nudge(f, x, h):"
        )
    return "", ""


def _run(fn: Callable, example: _Example) -> tuple[Case, float | None, bool]:
    """Call fn(f, x, h) on fresh float64 inputs: the runs-case, the number it gave back, and
    whether it called f at all."""
    expected = f"one number, the slope of {example.f_words} at x = {example.x:g}"
    x = torch.tensor([example.x], dtype=torch.float64)
    calls = []

    def f(where: torch.Tensor) -> torch.Tensor:
        calls.append(where)  # to tell "used f" from "used numbers from earlier cells"
        return example.f(where)

    try:
        value = fn(f, x, example.h)
    except Exception as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else "(no message)"
        got = f"my_nudge stopped with an error: {type(error).__name__}: {message}"
        fix = "Read the error, then fix that line. my_nudge's whole body is one short line."
        if isinstance(error, AttributeError) and "apply" in message:
            fix = (
                "f is already a step you can call: it was passed in as TypoCube.apply (the "
                ".apply is part of it). Write f(x + h), not f.apply(x + h)."
            )
        return Case(words.RUNS, False, expected, got, fix), None, bool(calls)
    if value is Ellipsis:
        fix = "my_nudge still gives back the placeholder ... from the starter. Replace the ... with your one line."
        return Case(words.RUNS, False, expected, "... (the placeholder)", fix), None, bool(calls)
    if value is None:
        fix = "my_nudge gave back nothing (None). Did you forget the word return?"
        return Case(words.RUNS, False, expected, "None", fix), None, bool(calls)
    number = _as_number(value)
    if number is None:
        fix = _not_one_number_fix(value)
        got = short(value) if _is_truth(value) else kind_and_size(value)
        return Case(words.RUNS, False, expected, got, fix), None, bool(calls)
    if not math.isfinite(number):
        fix = (
            f"my_nudge gave back {number}, which is not an ordinary number. Did you divide by "
            "something that is zero, such as h - h?"
        )
        return Case(words.RUNS, False, expected, f"{number}", fix), None, bool(calls)
    return Case(words.RUNS, True), number, bool(calls)


def _as_number(value: object) -> float | None:
    """A plain float from a Python number or a one-number real tensor, else None."""
    if _is_truth(value):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.is_complex():
        return float(value.detach().to(torch.float64).item())
    return None


def _is_truth(value: object) -> bool:
    """True or False, as Python's bool or a tensor of bools (a comparison's answer)."""
    return isinstance(value, bool) or (
        isinstance(value, torch.Tensor) and value.dtype == torch.bool
    )


def _not_one_number_fix(value: object) -> str:
    if _is_truth(value):
        return (
            "my_nudge gave back True or False, the answer of a comparison, not a number: "
            "give back the difference itself, with no comparison (>, <, ==) around it."
        )
    if isinstance(value, tuple) and len(value) == 1:  # `return (...) / (2 * h),`
        return (
            "my_nudge gave back its answer inside a tuple (a list in round brackets), "
            "because of a comma: in Python a comma after a value makes a tuple, so remove the "
            "comma at the end of the return line."
        )
    if isinstance(value, list) and len(value) == 1:
        return (
            "my_nudge gave back its answer inside a list, in square brackets. Give back the "
            "number alone: remove the square brackets around it."
        )
    if isinstance(value, tuple | list):
        return (
            f"my_nudge gave back {len(value)} things, separated by commas. Combine them into one "
            "number: the difference of the two f values, divided by the distance between the "
            "two nudged places."
        )
    if isinstance(value, torch.Tensor):
        return (
            f"x held one number, but my_nudge gave back {value.numel()}. Work with x, f(x + h) "
            "and f(x - h) only, so one number comes back."
        )
    return (
        f"my_nudge gave back {a_or_an(type(value).__name__)}, not a number. Give back the "
        "number your one line computes."
    )


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_TOLERANCE, abs_tol=_TOLERANCE)


def _show(number: float) -> str:
    """A number the way a beginner writes it, to 10 digits: 27.01, -2, 27.00000001."""
    return f"{number:.10g}"


def _cube_case(got: float, used_f: bool = True, got_square: float | None = None) -> Case:
    """The x³ example: right, or which usual slip gives exactly this number."""
    ex = _CUBE
    up, down = ex.at(ex.x + ex.h), ex.at(ex.x - ex.h)
    expected = (
        f"{_show(ex.expected)}  (f(3.1) = {_show(up)} and f(2.9) = {_show(down)}: they differ "
        f"by {_show(up - down)}, over a distance of 2 * 0.1 = 0.2)"
    )
    if _same(got, ex.expected):
        return Case(ex.name, True)
    return Case(ex.name, False, expected, _show(got), _cube_fix(got, used_f, got_square))


def _slips(ex: _Example) -> list[tuple[float, str]]:
    """What each usual slip gives on the example `ex`, with its words."""
    up, here, down, h = ex.at(ex.x + ex.h), ex.at(ex.x), ex.at(ex.x - ex.h), ex.h
    rise = up - down
    return [
        ((up - here) / h, words.UP_ONLY),
        ((here - down) / h, words.DOWN_ONLY),
        (rise / h, words.DIVIDED_BY_H),
        (rise / 2 * h, words.DIVIDE_THEN_MULTIPLY),
        (up - down / (2 * h), words.ONLY_DOWN_DIVIDED),
        (up - down / 2 * h, words.ONLY_DOWN_DIVIDED_AND_MULTIPLIED),
        (rise, words.NOT_PER_NUDGE),
        (rise / 2, words.DIVIDED_BY_2_ONLY),
        (rise * 2 * h, words.MULTIPLIED_BY_DISTANCE),
        (-rise / (2 * h), words.SIGN_FLIPPED),
        (1.0, words.NUDGED_THE_RESULT),
    ]


def _cube_fix(got: float, used_f: bool = True, got_square: float | None = None) -> str:
    ex = _CUBE
    # A slip is named only when it also gives what my_nudge gave on x²: one number matching
    # by coincidence (a 0.1 of the learner's own where h is 0.1) is not the slip.
    for (value, fix), (on_square, _) in zip(_slips(_CUBE), _slips(_SQUARE), strict=True):
        if _same(got, value) and (got_square is None or _same(got_square, on_square)):
            return fix
    if got == 3 * ex.x**2:  # exactly: a tiny nudge of the learner's own comes close, not equal
        return (
            "That is the slope from calculus, 3·x² = 27, not a nudge. The point of nudging "
            "is to measure the slope without knowing the rule: call f at two nudged places."
        )
    if not used_f:
        return words.NEVER_CALLED_F
    if abs(got - 3 * ex.x**2) < 0.005:
        return (
            f"{_show(got)} is close to 27, but the nudge h = 0.1 gives exactly 27.01. Did you "
            "use a nudge size of your own? Use the h that my_nudge is given."
        )
    return (
        "The nudge is: how far f moves between x - h and x + h, divided by how far apart "
        "those two places are. Ask for a hint if you are stuck."
    )


def _square_case(got: float, cube_answer: float) -> Case:
    """The x² example: catches answers that ignore f or the numbers they are given."""
    ex = _SQUARE
    expected = (
        f"{_show(ex.expected)}  (f(-0.75) = 0.5625 and f(-1.25) = 1.5625: they differ by -1, "
        "over a distance of 2 * 0.25 = 0.5)"
    )
    if _same(got, ex.expected):
        return Case(ex.name, True)
    cube_here = _Example(_cube, "x³", ex.x, ex.h).expected  # Cube or x**3 where f belonged
    if _same(got, cube_answer):
        fix = (
            f"my_nudge gave {_show(got)} again, the same as for x³ at 3. Did you write the "
            "answer in as a number? Compute it from f, x and h, so it works for any curve."
        )
    elif _same(got, cube_here):
        fix = (
            "my_nudge nudged x³ here, but this time f was x². Call the f that my_nudge is "
            "given, not Cube or x**3 itself."
        )
    else:
        fix = (
            "my_nudge passed the first example but not this one. Use only f, x and h inside "
            "it, with no numbers of your own."
        )
    return Case(ex.name, False, expected, _show(got), fix)


def _wide_case(fn: Callable, cube_answer: float) -> Case:
    """x³ at 3 with h = 1: catches an answer that does not use the h it is given."""
    ex = _WIDE
    expected = (
        f"{_show(ex.expected)}  (f(4) = 64 and f(2) = 8: they differ by 56, over a distance "
        "of 2 * 1 = 2)"
    )
    runs, got, _ = _run(fn, ex)
    if got is None:
        return Case(ex.name, False, expected, runs.got, runs.fix)
    if _same(got, ex.expected):
        return Case(ex.name, True)
    if _same(got, cube_answer):
        fix = words.SAME_FOR_EVERY_H.format(got=_show(got), small=f"{_CUBE.h:g}", wide=f"{ex.h:g}")
    else:
        fix = (
            f"my_nudge passed the small nudges but not h = {ex.h:g}. Use only f, x and h "
            "inside it, with no numbers of your own: the nudged places are x - h and x + h, "
            "2 * h apart."
        )
    return Case(ex.name, False, expected, _show(got), fix)
