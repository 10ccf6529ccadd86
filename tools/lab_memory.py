"""The memory a process tree holds (JupyterLab's server and its kernels), read from /proc.

Three figures, because shared pages (torch's libraries, mapped by every kernel) make
"memory" ambiguous:
- RSS, summed: each process's resident pages; a shared page counts once per process.
- PSS, summed: a shared page is split between every process on the machine mapping it,
  so outsiders (a test runner that imported torch) take part of the tree's share.
- held: the physical pages the tree maps, each counted once, from /proc/PID/pagemap; what
  the tree costs a container such as Binder's. Linux gives page numbers to root only, so
  for anyone else it is None.
PSS <= held <= RSS. Linux only.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PROC = Path("/proc")
PAGE = 4096
PRESENT = np.uint64(1 << 63)
PAGE_NUMBER = np.uint64((1 << 55) - 1)


@dataclass(frozen=True)
class Usage:
    """Memory of a set of processes, in bytes (held: None where page numbers are hidden)."""

    rss: int
    pss: int
    held: int | None
    processes: int

    @property
    def total(self) -> int:
        """The figure to hold against a budget: held where known, else PSS."""
        return self.pss if self.held is None else self.held


def parent_of(pid: int) -> int | None:
    """The parent's pid, or None once the process has gone."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name (2nd field) is in parentheses and may hold spaces: split after it.
    return int(stat.rsplit(")", 1)[1].split()[1])


def descendants(root: int) -> list[int]:
    """Every living process below `root` (children, their children, ...), not root itself."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (parent := parent_of(int(entry.name))) is not None:
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return sorted(found)


def rss_pss(pid: int) -> tuple[int, int] | None:
    """RSS and PSS of one process in bytes (smaps_rollup); None if it has gone."""
    try:
        lines = (PROC / str(pid) / "smaps_rollup").read_text().splitlines()
    except (FileNotFoundError, ProcessLookupError):
        return None
    kb = {line.split(":")[0]: int(line.split()[1]) for line in lines[1:] if line.endswith("kB")}
    return kb["Rss"] * 1024, kb["Pss"] * 1024


def page_numbers(pid: int) -> np.ndarray:
    """Physical page numbers of every resident page the process maps (zeros if hidden)."""
    found = []
    try:
        with (
            (PROC / str(pid) / "maps").open() as maps,
            (PROC / str(pid) / "pagemap").open("rb") as pm,
        ):
            for line in maps:
                start, end = (int(x, 16) for x in line.split()[0].split("-"))
                if start >= 1 << 47:  # [vsyscall]: the kernel's, not the process's
                    continue
                pm.seek(start // PAGE * 8)  # one 64-bit entry per virtual page
                entries = np.frombuffer(pm.read((end - start) // PAGE * 8), dtype=np.uint64)
                found.append(entries[(entries & PRESENT) != 0] & PAGE_NUMBER)
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return np.concatenate(found) if found else np.zeros(0, dtype=np.uint64)


def usage(pids: list[int]) -> Usage:
    """RSS, PSS and pages held by those of the processes still alive."""
    rss = pss = alive = 0
    pages = []
    for pid in pids:
        if (found := rss_pss(pid)) is not None:
            rss, pss, alive = rss + found[0], pss + found[1], alive + 1
            pages.append(page_numbers(pid))
    numbers = np.concatenate(pages) if pages else np.zeros(0, dtype=np.uint64)
    hidden = rss > 0 and not numbers.any()  # pages resident, yet every number reads 0
    held = None if hidden else distinct(numbers) * PAGE
    return Usage(rss, pss, held, alive)


def distinct(numbers: np.ndarray) -> int:
    """How many different values: sorted, each that differs from the one before counts.
    (NumPy 2.4's np.unique takes 15 times as long on 250,000 page numbers: a look at
    three kernels took 0.21 s of CPU with it and 0.08 s with this.)"""
    ordered = np.sort(numbers)
    return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + (ordered.size > 0)


def tree_usage(root: int) -> Usage:
    """Memory of every process below `root` (under `make lab`: the server and its kernels)."""
    return usage(descendants(root))


class Peak:
    """The most memory a process tree held while being watched (see `watching`)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak: Usage | None = None
        self._lock = threading.Lock()  # the watcher thread and its caller both sample

    def sample(self) -> Usage:
        """The tree's memory now, kept as the peak if it is the most so far."""
        now = tree_usage(self.root)
        with self._lock:
            if self.peak is None or now.total > self.peak.total:
                self.peak = now
        return now


@contextmanager
def watching(root: int, interval: float = 1.0) -> Iterator[Peak]:
    """Sample the tree below `root` every `interval` seconds in the background.

    One look at three processes that imported torch reads every page table: about 0.08 s
    of CPU. Once a second keeps the watcher under a tenth of a core, taken from the notebooks
    it watches; a kernel's memory rises over the seconds a cell runs, and stays.
    """
    peak, stop = Peak(root), threading.Event()

    def run() -> None:
        while not stop.wait(interval):
            peak.sample()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        stop.set()
        thread.join()
        peak.sample()
