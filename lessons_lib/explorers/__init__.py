"""The explorers: sliders over a Function's forward and gradients, over a nudge's size, over a
spike's surrogate gradient, and the loss curves of a neuron trained with each surrogate."""

from lessons_lib.explorers.gradient.explore import explore
from lessons_lib.explorers.steps.curves import measure as measure_steps
from lessons_lib.explorers.steps.explore import explore_steps
from lessons_lib.explorers.surrogate.explore import explore_surrogate
from lessons_lib.explorers.training.widget import train_surrogates

__all__ = ["explore", "explore_steps", "explore_surrogate", "measure_steps", "train_surrogates"]
