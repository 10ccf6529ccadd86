"""The limits each learner's server is held to, from the one place they are kept.

hub/z2jh/values.yaml holds them for Kubernetes (singleuser.memory.limit, from
custom.courseMemory; singleuser.cpu.limit where it is set), and `make class` reads the same
figures, so a class on one machine and one on Kubernetes give a learner the same room.
`--mem-limit` (CLASS_MEM_LIMIT) overrides the memory limit for one class.
"""

import re
from pathlib import Path

import yaml

VALUES = Path(__file__).resolve().parent / "z2jh" / "values.yaml"
# KubeSpawner and JupyterHub read a byte figure's K, M, G, T as powers of 1024.
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def in_bytes(figure: str | int) -> int:
    """2048M, 2G, 2147483648: the bytes they mean (powers of 1024, as JupyterHub reads them)."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", str(figure))
    if not found:
        raise ValueError(f"{figure!r} is not a memory size such as 2G or 2048M")
    return int(float(found[1]) * UNITS[found[2]])


def from_values(values: Path = VALUES) -> tuple[int, float | None]:
    """(memory limit in bytes, CPU limit in cores or None) per learner, from values.yaml."""
    singleuser = yaml.safe_load(values.read_text())["singleuser"]
    cpus = (singleuser.get("cpu") or {}).get("limit")
    return in_bytes(singleuser["memory"]["limit"]), None if cpus is None else float(cpus)


def gib(size: int) -> str:
    return f"{size / (1 << 30):.1f} GiB"


def start_line(memory: int, cpus: float | None, enforced: str | None, why_not: str | None) -> str:
    """The hub's one line at start: the limits, and whether the machine enforces them."""
    cpu = "an equal share of the CPU" + (f", at most {cpus:g} cores" if cpus else "")
    if enforced:
        return (
            f"Limits per learner, enforced with {enforced}: {gib(memory)} of memory for their "
            f"server, kernels and terminals together (past it, their biggest process, usually "
            f"a kernel, is stopped) and {cpu}."
        )
    return (
        f"Limits per learner NOT enforced: {why_not}. Each server is told its {gib(memory)} "
        "(MEM_LIMIT), but one learner's kernel can still take the machine's memory and CPU."
    )
