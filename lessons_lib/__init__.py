"""lessons_lib: the tested code behind the course on torch.autograd.Function."""

from lessons_lib.checks import Report, check_function
from lessons_lib.display import show_source
from lessons_lib.exercises import cube_grad
from lessons_lib.explorer import explore
from lessons_lib.functions import (
    Clamp,
    Clamp01,
    ClippedSTE,
    Cube,
    CubeWithSetupContext,
    ReLUInPlace,
    RoundSTE,
    SigmoidSpike,
    Square,
)
from lessons_lib.step_explorer import explore_steps

__all__ = [
    "Clamp",
    "Clamp01",
    "ClippedSTE",
    "Cube",
    "CubeWithSetupContext",
    "ReLUInPlace",
    "Report",
    "RoundSTE",
    "SigmoidSpike",
    "Square",
    "check_function",
    "cube_grad",
    "explore",
    "explore_steps",
    "show_source",
]
