"""Lesson 3's tiny model: one neuron that fires when w·x + b reaches 0, trained on 2-D points.

Its output is a step, so the true gradient gives the weights no blame at all; a surrogate
gives them some. `train_neuron` trains it with any spike Function and records the loss
after every step; the beginner track, the training explorer and the exercise use it, and
tests/test_threshold_training.py holds what each lesson prints.
"""

from collections.abc import Callable
from dataclasses import dataclass

import torch

START_WEIGHT, START_BIAS = (1.0, -1.0), -1.0  # a wrong boundary to start from


def labelled_points(count: int = 200, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """`count` points in [-2, 2]², labelled 1 where x₀ + 2·x₁ > 0.5: a straight boundary."""
    generator = torch.Generator().manual_seed(seed)
    points = torch.rand(count, 2, generator=generator, dtype=torch.float64) * 4 - 2
    labels = (points[:, 0] + 2 * points[:, 1] > 0.5).to(torch.float64)
    return points, labels


@dataclass(frozen=True)
class Training:
    """One run: the loss before each step and at the end, and the final accuracy."""

    losses: list[float]  # the fraction of points on the wrong side, squared error = 0 or 1
    accuracy: float  # fraction of points the trained neuron classifies right
    weight: tuple[float, float]
    bias: float

    @property
    def learned(self) -> bool:
        """Did the loss fall at all?"""
        return self.losses[-1] < self.losses[0]

    def first_step_at_most(self, loss: float) -> int | None:
        """The first step whose loss is at most `loss`; None if no step gets there."""
        return next((i for i, value in enumerate(self.losses) if value <= loss), None)


def train_neuron(
    spike: Callable[[torch.Tensor], torch.Tensor],
    steps: int = 200,
    lr: float = 0.5,
    seed: int = 0,
    on_step: Callable[[int], None] | None = None,
) -> Training:
    """Train the neuron `spike(points @ w + b)` by plain gradient descent on squared error.

    `spike` is a Function's apply (or any function of a tensor); only its backward decides
    whether w and b move. `on_step(i)` is called after each step (a progress bar).
    """
    points, labels = labelled_points(seed=seed)
    weight = torch.tensor(START_WEIGHT, dtype=torch.float64, requires_grad=True)
    bias = torch.tensor(START_BIAS, dtype=torch.float64, requires_grad=True)
    losses = []
    for i in range(steps + 1):
        out = spike(points @ weight + bias)
        loss = ((out - labels) ** 2).mean()
        losses.append(loss.item())
        if i == steps:
            break
        grad_weight, grad_bias = torch.autograd.grad(loss, (weight, bias), allow_unused=True)
        with torch.no_grad():
            if grad_weight is not None:
                weight -= lr * grad_weight
            if grad_bias is not None:
                bias -= lr * grad_bias
        if on_step is not None:
            on_step(i)
    accuracy = ((out >= 0.5).to(labels.dtype) == labels).to(torch.float64).mean().item()
    return Training(losses, accuracy, tuple(weight.tolist()), bias.item())
