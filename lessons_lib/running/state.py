"""Torch's global state, put back after learner code has run, whatever that code did."""

from collections.abc import Iterator
from contextlib import contextmanager

import torch


@contextmanager
def preserved_global_state() -> Iterator[None]:
    """Undo whatever learner code does to grad mode, default dtype, RNG or anomaly mode."""
    grad_enabled = torch.is_grad_enabled()
    default_dtype = torch.get_default_dtype()
    rng_state = torch.get_rng_state()
    anomaly = torch.is_anomaly_enabled()
    try:
        yield
    finally:
        torch.set_grad_enabled(grad_enabled)
        torch.set_default_dtype(default_dtype)
        torch.set_rng_state(rng_state)
        torch.set_anomaly_enabled(anomaly)
