"""explore_surrogate(): sliders over a spike's surrogate gradient, beside the true one.

A spike steps from 0 to 1 at its threshold, so its true gradient is 0 everywhere (and
there is none at the jump): backward would give the weights no blame. A surrogate
gradient passes a bump instead. This explorer draws the step, the bump of the shape
picked (lessons_lib.surrogate_gradients.SHAPES) at the threshold and width set, and the
true gradient; given your own spike Function, it measures its forward and backward and
shows the bump picked beside them.

The parts, one idea each, on the explorers' shared machinery (../):

- curves.py    what is measured along x (through lessons_lib.running)
- drawing.py   how it is drawn: the step on top, the gradients below
- widget.py    the sliders (x, threshold, width) and the shape picker
"""

import math

from lessons_lib.explorers.arguments import checked_range, function_to_explore
from lessons_lib.explorers.surrogate.curves import Choice
from lessons_lib.explorers.surrogate.widget import SurrogateExplorer
from lessons_lib.running import InputError
from lessons_lib.surrogate_gradients import SHAPES

__all__ = ["SurrogateExplorer", "explore_surrogate"]

USAGE = "explore_surrogate({})"


def explore_surrogate(
    fn: type | None = None,
    *,
    shape: str = "fast-sigmoid",
    threshold: float = 0.0,
    width: float = 0.5,
    x_range: tuple[float, float] = (-2.0, 2.0),
    point: float = 0.25,
) -> SurrogateExplorer:
    """A live picture of a spike's forward (the step), its surrogate slope and the true gradient.

    fn: your own spike Function (the class, or its .apply), one tensor in, the step out;
        without it, the course's spike (make_spike) for the shape, threshold and width set.
    shape: the surrogate's family, one of SHAPES; threshold: where the step jumps;
    width: how wide the bump is (a positive number); x_range: the x axis (low, high);
    point: where the x slider starts.
    """
    own = None if fn is None else function_to_explore(fn, USAGE)
    if not isinstance(shape, str) or shape not in SHAPES:
        raise InputError(f"shape must be one of {', '.join(SHAPES)}; got {shape!r}.")
    lo, hi = checked_range(x_range)
    width = _number(width, "width")
    if width <= 0:
        raise InputError(f"width must be a positive number, such as 0.5; got {width!r}.")
    threshold, point = _number(threshold, "threshold"), _number(point, "point")
    for name, value in [("threshold", threshold), ("point", point)]:
        if not lo <= value <= hi:
            raise InputError(f"{name} = {value:g} lies outside x_range ({lo:g}, {hi:g}).")
    return SurrogateExplorer(own, Choice(shape, threshold, width), (lo, hi), point)


def _number(value: object, name: str) -> float:
    if isinstance(value, bool):
        raise InputError(f"{name} must be a number, got {value!r}.")
    try:
        number = float(value)
    except (TypeError, ValueError, RuntimeError):
        raise InputError(f"{name} must be a number, got {value!r}.") from None
    if not math.isfinite(number):
        raise InputError(f"{name} must be a finite number, got {value!r}.")
    return number
