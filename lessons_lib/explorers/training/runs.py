"""The training explorer's runs: the neuron trained once per shape and width, and once with
the true gradient, and the stable facts each run prints.

Layer: plain Python, no widgets. The loss is the fraction of points on the wrong side (the
spike's output is 0 or 1), so it moves in steps of 1/200 and the facts below (learned or
not, the step the loss first reaches GOAL, the accuracy to the whole percent) read the same
on every CPU.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lessons_lib.surrogate_gradients import TrueStep, make_spike
from lessons_lib.threshold_training import Training, train_neuron

GOAL = 0.05  # a loss this low counts as fitted: 5% of the points on the wrong side at most
TRUE = "true gradient"  # how the run with TrueStep is named


@dataclass(frozen=True)
class Run:
    """One training: the surrogate's shape and width (TRUE and None for TrueStep), its result."""

    shape: str
    width: float | None
    training: Training

    @property
    def steps_to_goal(self) -> int | None:
        """The first step at which the loss is at most GOAL; None if it never gets there."""
        return self.training.first_step_at_most(GOAL)

    @property
    def name(self) -> str:
        """e.g. "triangle, width 0.5", or "true gradient (TrueStep)"."""
        return f"{TRUE} (TrueStep)" if self.width is None else f"{self.shape}, width {self.width:g}"

    def fact(self) -> str:
        """What the run did, in stable words: learned or not, when it fitted, its accuracy."""
        learned = "learned" if self.training.learned else "did not learn"
        steps = self.steps_to_goal
        reached = (
            f"never reached loss ≤ {GOAL:g}"
            if steps is None
            else (f"loss ≤ {GOAL:g} after {steps} steps")
        )
        accuracy = round(100 * self.training.accuracy)
        return f"{self.name}: {learned}; {reached}; accuracy {accuracy}%"


def planned(shapes: Sequence[str], widths: Sequence[float]) -> list[tuple[str, float | None]]:
    """The runs to make, in order: the true gradient first, then every shape at every width."""
    return [(TRUE, None)] + [(shape, width) for shape in shapes for width in widths]


def train_all(
    shapes: Sequence[str],
    widths: Sequence[float],
    steps: int,
    on_step: Callable[[], None] | None = None,
) -> list[Run]:
    """Train the neuron once per planned run; on_step() after every step of every run."""
    tick = None if on_step is None else (lambda _: on_step())
    runs = []
    for shape, width in planned(shapes, widths):
        spike = TrueStep if width is None else make_spike(shape, width=width)
        runs.append(Run(shape, width, train_neuron(spike.apply, steps=steps, on_step=tick)))
    return runs
