"""Measurements for the researcher track: bytes saved for backward, and time per call."""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Saved:
    """What autograd kept for backward while a computation ran."""

    tensors: int  # how many times a tensor was saved
    nbytes: int  # bytes of the distinct storages those tensors keep alive


def saved_for_backward(run: Callable[[], object]) -> Saved:
    """Run `run()` and measure every tensor saved for backward, via saved_tensors_hooks.

    A storage saved twice (x saved by two nodes, or a view of it) is counted once.
    """
    storages: dict[int, int] = {}
    count = 0

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        nonlocal count
        count += 1
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return tensor  # kept as is: the hooks only watch

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        run()
    return Saved(count, sum(storages.values()))


def seconds_per_call(
    runs: Sequence[Callable[[], object]], repeat: int = 7, target: float = 0.02
) -> list[float]:
    """Seconds per call of each zero-argument run: the best of `repeat` rounds.

    Each round times every run in turn (interleaved, so a busy moment on the machine
    hits them alike), calling each enough times to last about `target` seconds.
    """
    numbers = []
    for run in runs:
        run()  # warm-up: the first call may pay for allocation and caching
        start = time.perf_counter()
        run()
        numbers.append(max(1, int(target / max(time.perf_counter() - start, 1e-7))))
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for i, (run, number) in enumerate(zip(runs, numbers, strict=True)):
            start = time.perf_counter()
            for _ in range(number):
                run()
            best[i] = min(best[i], (time.perf_counter() - start) / number)
    return best


def forward_backward(op: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> Callable:
    """A zero-argument call doing op's forward and backward at x (gradient of the sum)."""
    leaf = x.detach().requires_grad_(True)
    grad_out = torch.ones_like(x)

    def run() -> torch.Tensor:
        return torch.autograd.grad(op(leaf), leaf, grad_out)[0]

    return run


@dataclass(frozen=True)
class Overhead:
    """Forward + backward time of a custom Function and the built-in op, at one size."""

    size: int
    custom: float  # seconds per call
    builtin: float

    @property
    def ratio(self) -> float:
        return self.custom / self.builtin


def overhead(
    custom: Callable[[torch.Tensor], torch.Tensor],
    builtin: Callable[[torch.Tensor], torch.Tensor],
    sizes: Sequence[int],
    repeat: int = 7,
    seed: int = 0,
) -> list[Overhead]:
    """Time custom against builtin (forward + backward) on a 1-D tensor of each size."""
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for size in sizes:
        x = torch.randn(size, generator=generator)
        runs = [forward_backward(custom, x), forward_backward(builtin, x)]
        rows.append(Overhead(size, *seconds_per_call(runs, repeat)))
    return rows
