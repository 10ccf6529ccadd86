"""What the surrogate explorer measures along x: a spike's forward, its backward, the chosen
family's bump and the true gradient (zero everywhere, none at the jump).

Layer: plain numbers, no widgets. The spike is the course's (make_spike) or the learner's
own; either runs through lessons_lib.running, so broken learner code becomes a message
beside the curves, never a traceback.
"""

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from lessons_lib.explorers.gradient.curves import constant_upstream, grid, plotted
from lessons_lib.explorers.sampling import sample_index
from lessons_lib.running import run_function
from lessons_lib.surrogate_gradients import make_spike, surrogate_slope

KEYS = ("forward", "backward", "family", "true")  # what the point's readout shows, in order
ROWS = ("x", *KEYS)  # the samples the picture gets, in order (SurrogateCurves.rows)


def sample_grid(low: float, high: float, samples: int) -> torch.Tensor:
    """The x samples, rounded to 12 decimals: linspace puts its middle sample of [-2, 2] at
    -4e-17, where the step reads 0; rounded, it is the threshold 0, where the step fires."""
    return torch.round(grid(low, high, samples), decimals=12) + 0.0  # + 0.0: no -0


@dataclass(frozen=True)
class Choice:
    """The family's bump as the controls set it: its shape, threshold and width."""

    shape: str
    threshold: float
    width: float


@dataclass
class SurrogateCurves:
    """The values on a grid of x (NaN where unknown); `jump`: where forward steps up."""

    x: np.ndarray
    forward: np.ndarray | None = None
    backward: np.ndarray | None = None  # what the spike's backward returned, grad_out = 1
    family: np.ndarray | None = None  # the chosen shape's bump, surrogate_slope
    true: np.ndarray | None = None
    jump: float = math.nan
    failure: str | None = None
    problems: list[str] = field(default_factory=list)

    def index_of(self, x: float) -> int | None:
        """The sample at x, or None between samples."""
        return sample_index(self.x, x)

    def at(self, index: int) -> dict[str, float]:
        """x and each readout value at one sample."""
        values = {
            key: math.nan if getattr(self, key) is None else float(getattr(self, key)[index])
            for key in KEYS
        }
        return {"x": float(self.x[index]), **values}

    def rows(self) -> list[np.ndarray]:
        """The samples as ROWS names them (NaN where unknown)."""
        unknown = np.full(self.x.shape, np.nan)
        values = [unknown if getattr(self, key) is None else getattr(self, key) for key in KEYS]
        return [self.x, *values]


def spike_for(own: type | None, choice: Choice) -> type:
    """The Function measured: the learner's own, else the course's spike for the choice."""
    return own if own is not None else make_spike(choice.shape, choice.threshold, choice.width)


def measure(own: type | None, x: torch.Tensor, choice: Choice) -> SurrogateCurves:
    """Run the spike forwards and backwards (grad_out = 1) at every x; the family's bump and
    the true gradient beside them."""
    spike = spike_for(own, choice)
    name = spike.__name__
    curves = SurrogateCurves(x=x.numpy())
    curves.family = surrogate_slope(x, choice.shape, choice.threshold, choice.width).numpy()
    run = run_function(spike, (x,), constant_upstream(1.0))
    if run.failure is None or run.failure.stage != "forward":
        curves.forward = plotted(run.output, x, f"{name}'s forward", curves)
    if run.failure is not None:
        curves.failure = f"{name}'s {run.failure}"
    elif len(run.grads) != 1 or run.grads[0] is None:
        got = "None" if len(run.grads) == 1 else f"{len(run.grads)} values"
        curves.problems.append(
            f"{name}'s backward returned {got} for its one input: it needs one gradient for x"
        )
    else:
        curves.backward = plotted(run.grads[0], x, f"{name}'s backward", curves)
    # The course's spike jumps at the threshold; the learner's where its forward changes.
    curves.jump = (
        choice.threshold if own is None else jump_of(curves.x, curves.forward, choice.threshold)
    )
    curves.true = true_gradient(curves.x, curves.jump)
    return curves


def jump_of(x: np.ndarray, forward: np.ndarray | None, threshold: float) -> float:
    """The first x where forward changes value (the step's jump); the threshold if unknown."""
    if forward is None or x.size < 2:
        return threshold
    changes = np.flatnonzero(np.diff(forward) != 0)
    return float(x[changes[0] + 1]) if changes.size else threshold


def true_gradient(x: np.ndarray, jump: float) -> np.ndarray:
    """The step's true gradient: 0 everywhere, none (NaN) at the jump itself."""
    true = np.zeros(x.shape)
    true[np.isclose(x, jump, rtol=0.0, atol=1e-12)] = np.nan
    return true


def measure_point(own: type | None, x: float, choice: Choice, jump: float) -> dict[str, float]:
    """Each readout value at exactly x, between samples."""
    at = measure(own, torch.tensor([x], dtype=torch.float64), choice)
    values = {
        key: math.nan if getattr(at, key) is None else float(getattr(at, key)[0])
        for key in ("forward", "backward", "family")
    }
    return {"x": x, **values, "true": float(true_gradient(np.array([x]), jump)[0])}
