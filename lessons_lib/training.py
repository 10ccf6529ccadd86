"""A tiny training loop: watch a backward rule steer (or fail to steer) one weight."""

from collections.abc import Callable
from typing import NamedTuple

import torch


class Fitted(NamedTuple):
    """Where gradient descent left the weight, and the loss there."""

    weight: float
    loss: float


def fit(
    step: Callable[[torch.Tensor], torch.Tensor],
    start: float,
    target: float,
    *,
    lr: float,
    steps: int,
) -> Fitted:
    """Plain gradient descent on one weight w, minimising (step(w) - target) ** 2."""
    w = torch.tensor([start], requires_grad=True)
    for _ in range(steps):
        loss = ((step(w) - target) ** 2).sum()
        w.grad = None
        loss.backward()  # step's backward rule decides which way w moves
        with torch.no_grad():
            w -= lr * w.grad
    with torch.no_grad():
        final = ((step(w) - target) ** 2).sum()
    return Fitted(w.item(), final.item())
