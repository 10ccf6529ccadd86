"""Measurements for the researcher track: bytes saved for backward, peak memory, time per call."""

import json
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

try:
    import resource  # POSIX only: the peak resident set size of a process
except ImportError:  # Windows
    resource = None


@dataclass(frozen=True)
class Saved:
    """What autograd kept for backward while a computation ran."""

    tensors: int  # how many times a tensor was saved
    nbytes: int  # bytes of the distinct storages those tensors keep alive


def saved_for_backward(run: Callable[[], object], exclude: Sequence[torch.Tensor] = ()) -> Saved:
    """Run `run()` and measure every tensor saved for backward, via saved_tensors_hooks.

    A storage saved twice (x saved by two nodes, or a view of it) is counted once.
    Tensors sharing storage with one in `exclude` (an input the caller holds anyway)
    are not counted at all, so the result is what the computation adds.

    Blind inside other saved-tensor hooks: the innermost hooks see a tensor, so whatever is
    saved under `save_on_cpu` or a non-reentrant `torch.utils.checkpoint` never reaches
    these, and reads as 0 bytes whether it is held or not.
    """
    excluded = {t.untyped_storage().data_ptr() for t in exclude}
    storages: dict[int, int] = {}
    count = 0

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        nonlocal count
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in excluded:
            count += 1
            storages[storage.data_ptr()] = storage.nbytes()
        return tensor  # kept as is: the hooks only watch

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        run()
    return Saved(count, sum(storages.values()))


def peak_memory(
    fns: Sequence[Callable[[torch.Tensor], torch.Tensor]], size: int
) -> list[int] | None:
    """Peak bytes each fn's forward + backward adds to a process; None where it cannot be measured.

    Each fn runs on a float32 input of `size` elements (the gradient of the sum) in its own
    forked child of one fresh Python process. The result is how far the child's peak
    resident set size (ru_maxrss) rises during the forward and backward, the input already
    allocated: what the passes hold at their worst moment (saved tensors, recomputed ones,
    gradients, temporaries). Each fn must be picklable (a module-level function, or a
    functools.partial of one). Needs os.fork and the resource module; tested on Linux.
    """
    if resource is None or not hasattr(os, "fork"):
        return None
    env = dict(os.environ)
    # glibc then gives every block of 64 kB or more its own mapping and unmaps it when freed,
    # so the resident size follows the live tensors instead of malloc's cached free blocks.
    env["MALLOC_MMAP_THRESHOLD_"] = "65536"
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", "from lessons_lib.measure import _peaks_server; _peaks_server()"],
        input=pickle.dumps((list(fns), size)),
        capture_output=True,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"peak_memory's process failed:\n{done.stderr.decode()}")
    return json.loads(done.stdout.decode().splitlines()[-1])


def _forward_backward_fresh(fn: Callable[[torch.Tensor], torch.Tensor], size: int) -> Callable:
    """A zero-argument call doing fn's forward and backward on a new input of `size` elements."""
    x = torch.randn(size, generator=torch.Generator().manual_seed(0)).requires_grad_(True)
    return lambda: fn(x).sum().backward()


def _peak_in_child(fn: Callable[[torch.Tensor], torch.Tensor], size: int) -> int:
    """Fork; in the child, measure fn's peak (see peak_memory) and send it back; the bytes."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        status = 1
        try:
            os.close(read)
            # A small run first maps the code pages fn touches, which fork left out of the child.
            _forward_backward_fresh(fn, 16)()
            run = _forward_backward_fresh(fn, size)
            kilo = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, else kB
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * kilo
            run()
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * kilo
            os.write(write, str(peak - before).encode())
            status = 0
        finally:
            os._exit(status)  # never return into the parent's code
    os.close(write)
    with os.fdopen(read) as pipe:
        message = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError(f"measuring {fn!r} failed in the child process")
    return int(message)


def _peaks_server() -> None:
    """The fresh process behind peak_memory: read the work from stdin, print the peaks as JSON."""
    fns, size = pickle.load(sys.stdin.buffer)
    torch.set_num_threads(1)
    peaks = []
    for fn in fns:
        _forward_backward_fresh(fn, 16)()  # imports and one-off set-up happen here, before forking
        peaks.append(_peak_in_child(fn, size))
    print(json.dumps(peaks), flush=True)
    os._exit(0)  # the answer is out; tearing torch down took 0.8 s of each call's 2 s


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
    repeat: int = 30,
    target: float = 0.002,
    seed: int = 0,
) -> list[Overhead]:
    """Time custom against builtin (forward + backward) on a 1-D tensor of each size.

    Every size and both ops run in turn in each of `repeat` rounds (seconds_per_call), so
    a busy moment on the machine hits them alike; each time is the best round's.
    """
    generator = torch.Generator().manual_seed(seed)
    runs = []
    for size in sizes:
        x = torch.randn(size, generator=generator)
        runs += [forward_backward(custom, x), forward_backward(builtin, x)]
    times = seconds_per_call(runs, repeat, target)
    return [Overhead(size, times[2 * i], times[2 * i + 1]) for i, size in enumerate(sizes)]
