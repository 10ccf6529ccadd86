"""Each notebook's run time and its kernel's peak memory, executed as CI executes it.

    .venv/bin/python -m benchmarks.notebooks [NOTEBOOK ...]

Budgets (issues 5 and 6): the whole course under 60 s, the researcher track under 30 s,
no kernel above 700 MB. The kernel's peak resident memory is read from Linux's
/proc/<pid>/status (VmHWM) just before the kernel shuts down.
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools.notebooks import course_kernel, notebook_paths

BUDGET_MB = 700


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


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or notebook_paths()
    print(f"{'notebook':45} {'seconds':>8} {'peak MB':>8}")
    total = 0.0
    for path in paths:
        seconds, peak = measure(path)
        total += seconds
        if peak is None:  # not Linux: no /proc to read
            print(f"{path.name:45} {seconds:8.1f} {'n/a':>8}")
            continue
        flag = "" if peak < BUDGET_MB else f"  over {BUDGET_MB} MB"
        print(f"{path.name:45} {seconds:8.1f} {peak:8.0f}{flag}")
    print(f"{'all notebooks':45} {total:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
