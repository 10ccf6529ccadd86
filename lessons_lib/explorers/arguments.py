"""What a learner passes to an explorer, checked at call time: one policy for both explorers.

Layer: plain Python, no widgets. A Function may be passed as `Cube` or `Cube.apply`
(lessons_lib.running decides what counts); anything else, and a range that cannot be
one, is refused with a LessonError that says what to pass instead.
"""

import math

from lessons_lib.running import InputError, NotAFunctionError, as_function, describe_non_function


def function_to_explore(fn: object, usage: str, also: str = "") -> type:
    """The Function subclass meant by fn (`Cube` or `Cube.apply`), or NotAFunctionError.

    usage: the explorer's right call with `{}` for the class, e.g. "explore({})";
    also: a sentence added to the refusal, e.g. what else this explorer takes.
    """
    function = as_function(fn)
    if function is None:
        raise NotAFunctionError(describe_non_function(fn, usage) + also)
    return function


def checked_range(x_range: object) -> tuple[float, float]:
    """x_range as two finite floats, low < high, or an InputError saying what it must be."""
    try:
        lo, hi = (float(v) for v in x_range)
    except (TypeError, ValueError):
        raise InputError(f"x_range must be two numbers (low, high), got {x_range!r}.") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InputError(f"x_range must be two finite numbers with low < high, got {x_range!r}.")
    return lo, hi
