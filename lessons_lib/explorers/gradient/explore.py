"""explore(): sliders that plot a Function's forward, its backward and the true gradient.

This module is the front door: explore() checks its arguments and fills in the lesson's
presets. The parts, one idea each, here in gradient/:

- curves.py     what is measured along x (through lessons_lib.running: broken code is a message)
- drawing.py    how it is drawn (one Agg figure of two panels; the static picture for viewers)
- widget.py     the widget: the x, range, scale and parameter sliders and their number boxes

and those both explorers share, in explorers/:

- arguments.py  what a learner may pass: a Function as Cube or Cube.apply, an x range
- sampling.py   which sample a slider is at, the same rule as the browser's
- drawing.py    the Agg figure's sizes and fonts, its PNGs, the blitting of the moving parts
- base.py       the widget: measure in the kernel, send curves, answer between samples
- controls.py   the sliders, their number boxes and the rows that hold them
- picture.py    the picture's widget, and front/ its front end, which
                draws every point move in the browser without asking the kernel
- throttle.py   at most one recomputation per interval while a slider is dragged
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from lessons_lib.explorers.arguments import checked_range, function_to_explore
from lessons_lib.explorers.gradient.curves import Param, Setup
from lessons_lib.explorers.gradient.widget import Explorer
from lessons_lib.functions import (
    Clamp,
    Clamp01,
    ClippedSTE,
    Cube,
    CubeWithSetupContext,
    RoundSTE,
    SigmoidSpike,
    Square,
)
from lessons_lib.running import InputError
from lessons_lib.running.arguments import MISSING

__all__ = ["PRESETS", "Explorer", "Param", "Preset", "explore"]


@dataclass(frozen=True)
class Preset:
    """What explore(fn) uses for one of the lesson's Functions unless told otherwise."""

    reference: Callable | None
    label: str  # how the legend names the reference
    x_range: tuple[float, float] = (-2.0, 2.0)
    hold: tuple = ()
    params: tuple[Param, ...] = ()
    note: str = ""  # a caption under the legend: what the plotted truth cannot show


def _cube(x: torch.Tensor) -> torch.Tensor:
    return x**3


def _binarise(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)


def _step(x: torch.Tensor, slope: float) -> torch.Tensor:
    return (x > 0).to(x.dtype)  # a comparison: autograd sees a constant, gradient zero


PRESETS: dict[type, Preset] = {
    Square: Preset(lambda x: x**2, "x**2"),
    Cube: Preset(_cube, "x**3"),
    CubeWithSetupContext: Preset(_cube, "x**3"),
    RoundSTE: Preset(
        torch.round,
        "torch.round",
        (-2.5, 2.5),
        note="torch.round's true gradient:\n"
        "0 between the jumps, undefined\n"
        "at them (autograd says 0 there)",
    ),
    Clamp01: Preset(lambda x: torch.clamp(x, 0, 1), "torch.clamp(x, 0, 1)", (-0.5, 1.5)),
    Clamp: Preset(
        torch.clamp,
        "torch.clamp",
        (-2.0, 2.0),
        hold=(-1.0, 1.0),
        params=(Param(1, "lo", -2.0, 0.0), Param(2, "hi", 0.0, 2.0)),
    ),
    ClippedSTE: Preset(
        _binarise,
        "sign",
        note="sign's true gradient:\n0 away from 0, undefined\nat 0 (autograd says 0 there)",
    ),
    SigmoidSpike: Preset(
        _step,
        "step (x > 0)",
        hold=(5.0,),
        params=(Param(1, "slope", 0.5, 20.0),),
        note="the step's true gradient:\n0 away from 0, undefined\nat 0 (autograd says 0 there)",
    ),
}


def explore(
    fn: type = MISSING,
    reference: Callable | None = None,
    *,
    grad_reference: Callable | None = None,
    x_range: tuple[float, float] | None = None,
    vary: int = 0,
    hold: Sequence | None = None,
    params: Sequence[Param] | None = None,
    point: float | None = None,
    scale: float = 1.0,
    samples: int = 401,
) -> Explorer:
    """A live explorer of fn (Cube, or Cube.apply): its forward, its backward and the true
    gradient along x.

    reference: a plain function computing what fn should compute forwards, called with
        fn's inputs; its autograd gradient is the true gradient. Without one, the true
        gradient is a central finite difference of fn's own forward.
    grad_reference: the intended backward, as in check_function: called as
        grad_reference(*inputs, grad_out), e.g. lambda x, g: g for a straight-through
        estimator; when given, backward is measured against it instead of the reference's
        autograd gradient.
    vary, hold: for a Function of several inputs, input number `vary` moves along x and
        `hold` gives the others in order (tensors must hold a single number).
    params: held numbers that get their own slider, e.g. Param(1, "slope", 0.5, 20).
    The lesson's Functions (Cube, RoundSTE, ...) come with a preset for each of these.
    """
    fn = function_to_explore(fn, "explore({})")  # Cube.apply: Cube
    preset = PRESETS.get(fn)
    note = ""
    if reference is None and grad_reference is None and preset is not None:
        reference, label, note = preset.reference, preset.label, preset.note
    else:
        label = getattr(reference, "__name__", "reference")
        label = "reference" if label == "<lambda>" else label
    for name, value in [("reference", reference), ("grad_reference", grad_reference)]:
        if value is not None and not callable(value):
            raise InputError(f"{name} must be a function such as torch.round, got {value!r}.")
    x_range = checked_range(x_range or (preset.x_range if preset else (-3.0, 3.0)))
    if hold is None:
        hold = preset.hold if preset and vary == 0 else ()
    if params is None:
        params = preset.params if preset and tuple(hold) == preset.hold and vary == 0 else ()
    setup = Setup(
        fn, reference, label, grad_reference, vary, list(hold), tuple(params), samples, note
    )
    _check_setup(setup)
    if point is None:
        point = min(max(0.4, x_range[0]), x_range[1])  # off the kinks at 0 and the grid
    if not isinstance(scale, int | float) or not math.isfinite(scale):
        raise InputError(f"scale must be a finite number, got {scale!r}.")
    point = min(max(float(point), x_range[0]), x_range[1])
    return Explorer(setup, x_range, point, float(scale))


def _check_setup(setup: Setup) -> None:
    count = len(setup.hold) + 1
    if not isinstance(setup.samples, int) or setup.samples < 3:
        raise InputError(f"samples must be a whole number of at least 3, got {setup.samples!r}.")
    if not isinstance(setup.vary, int) or not 0 <= setup.vary < count:
        raise InputError(
            f"vary={setup.vary!r} does not name one of {setup.name}'s {count} input(s): "
            f"give hold= the other inputs, in order, and vary= the position (0 to {count - 1})."
        )
    for value in setup.hold:
        if isinstance(value, torch.Tensor) and value.numel() != 1:
            raise InputError(
                f"held tensor inputs must hold one number (x moves along one axis), "
                f"got shape {tuple(value.shape)}."
            )
    for p in setup.params:
        if not isinstance(p, Param) or p.index == setup.vary or not 0 <= p.index < count:
            raise InputError(
                f"params must be Param(index, name, low, high) naming a held input, got {p!r}."
            )
        held = setup.hold[setup.held_position(p.index)]
        if not isinstance(held, int | float) or not p.low <= held <= p.high:
            raise InputError(
                f"the held value of {p.name} must be a number between {p.low} and {p.high}, "
                f"got {held!r}."
            )
