"""Each notebook's run time and its kernel's peak memory, executed as CI executes it.

    .venv/bin/python -m benchmarks.notebooks [NOTEBOOK ...]

Seconds: wall-clock time from the first cell's execution to the last one's reply, each
notebook in a fresh kernel, one after the other. Budgets: lesson 3's four notebooks (its
three tracks and its exercise) within 30 s together, the whole course within 90 s on an
idle 2-core machine (the 1-minute load average is printed beside them), no kernel above
700 MB. The kernel's peak resident memory is read from Linux's /proc/<pid>/status (VmHWM)
just before the kernel shuts down.
"""

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools.notebooks import NOTEBOOKS, course_kernel, notebook_paths

BUDGET_MB = 700
LESSON_3 = [
    "03-surrogate-gradients/1-beginner.ipynb",
    "03-surrogate-gradients/2-developer.ipynb",
    "03-surrogate-gradients/3-researcher.ipynb",
    "exercises/choose-your-surrogate.ipynb",
]
LESSON_3_BUDGET_S, COURSE_BUDGET_S = 30.0, 90.0


def peak_megabytes(pid: int) -> float | None:
    """Peak resident set size of a process, in MB; None where /proc does not exist."""
    status = Path(f"/proc/{pid}/status")
    lines = status.read_text().splitlines() if status.exists() else []
    peaks = [int(line.split()[1]) / 1024 for line in lines if line.startswith("VmHWM:")]
    return peaks[0] if peaks else None


def measure(path: Path) -> tuple[float, float | None]:
    """Seconds to run every cell in a fresh kernel, and that kernel's peak memory."""
    nb = nbformat.read(path, as_version=4)
    km = course_kernel()
    client = NotebookClient(nb, km=km, timeout=600, resources={"metadata": {"path": path.parent}})
    started = time.perf_counter()
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        seconds = time.perf_counter() - started
        peak = peak_megabytes(km.provisioner.process.pid)
    return seconds, peak


def name_of(path: Path) -> str:
    """The notebook's path below notebooks/ (each lesson has its own 1-beginner.ipynb)."""
    resolved = path.resolve()
    return (
        resolved.relative_to(NOTEBOOKS).as_posix()
        if resolved.is_relative_to(NOTEBOOKS)
        else path.name
    )


def verdict(seconds: float, budget: float, measured: int, wanted: int) -> str:
    if measured < wanted:
        return f"not judged: {measured} of {wanted} notebooks run ({seconds:.1f} s)"
    return f"{'met' if seconds <= budget else 'MISSED'} ({seconds:.1f} s)"


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or notebook_paths()
    load_before = os.getloadavg()[0]
    print(f"{'notebook':45} {'seconds':>8} {'peak MB':>8}")
    seconds_of, peaks = {}, []
    for path in paths:
        seconds, peak = measure(path)
        name = name_of(path)
        seconds_of[name] = seconds
        if peak is None:  # not Linux: no /proc to read
            print(f"{name:45} {seconds:8.1f} {'n/a':>8}")
            continue
        peaks.append(peak)
        flag = "" if peak < BUDGET_MB else f"  over {BUDGET_MB} MB"
        print(f"{name:45} {seconds:8.1f} {peak:8.0f}{flag}")
    lesson_3 = [seconds_of[name] for name in LESSON_3 if name in seconds_of]
    course = len(notebook_paths())
    print(f"{'lesson 3: three tracks and its exercise':45} {sum(lesson_3):8.1f}")
    print(f"{'all notebooks run':45} {sum(seconds_of.values()):8.1f}")
    print(
        f"{os.cpu_count()} cores; 1-minute load {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after (this benchmark's kernels included)"
    )
    goals = [
        (
            f"lesson 3's four notebooks <= {LESSON_3_BUDGET_S:g} s together",
            verdict(sum(lesson_3), LESSON_3_BUDGET_S, len(lesson_3), len(LESSON_3)),
        ),
        (
            f"the whole course <= {COURSE_BUDGET_S:g} s on an idle 2-core machine",
            verdict(sum(seconds_of.values()), COURSE_BUDGET_S, len(seconds_of), course),
        ),
        (
            f"every kernel's peak <= {BUDGET_MB} MB",
            "n/a"
            if not peaks
            else f"{'met' if max(peaks) < BUDGET_MB else 'MISSED'} (highest {max(peaks):.0f} MB)",
        ),
    ]
    for goal, met in goals:
        print(f"goal: {goal}: {met}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
