"""The two explorers: sliders over a Function's forward and gradients, and over a nudge's size."""

from lessons_lib.explorers.gradient.explore import explore
from lessons_lib.explorers.steps.curves import measure as measure_steps
from lessons_lib.explorers.steps.explore import explore_steps

__all__ = ["explore", "explore_steps", "measure_steps"]
