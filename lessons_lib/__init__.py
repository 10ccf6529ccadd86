"""lessons_lib: the tested code behind the course on torch.autograd.Function."""

from lessons_lib.exercises import cube_grad
from lessons_lib.functions import Clamp, Clamp01, Cube, CubeWithSetupContext, RoundSTE, Square

__all__ = ["Clamp", "Clamp01", "Cube", "CubeWithSetupContext", "RoundSTE", "Square", "cube_grad"]
