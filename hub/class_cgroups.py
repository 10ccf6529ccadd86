"""Each learner's server, and everything it starts, in a control group of their own.

The machine's kernel then enforces the limits: past the memory limit its out-of-memory
killer stops the biggest process in that learner's group only (usually the kernel that
grew), never a neighbour's; and the CPU is shared equally between learners, however many
processes each runs. This is what SystemdSpawner asks systemd for (MemoryMax, CPUQuota)
and what Kubernetes sets for a pod from Zero to JupyterHub's singleuser.memory.limit and
singleuser.cpu: here the hub, run as root without systemd, writes the groups itself.

Both kinds of control groups are handled:
- v2 (one unified tree, /sys/fs/cgroup/cgroup.controllers): the class's group at the root
  of the tree (a group that holds processes cannot hand controllers down), one child per
  learner: memory.max, memory.swap.max, cpu.weight, cpu.max.
- v1 (a tree per controller, /sys/fs/cgroup/memory, /sys/fs/cgroup/cpu): the class's group
  under the hub's own group in each tree, one child per learner: memory.limit_in_bytes,
  memory.memsw.limit_in_bytes, cpu.shares, cpu.cfs_quota_us.
Where neither can be written (a container's read-only /sys/fs/cgroup), `controller()`
says why instead, and the hub starts without enforced limits, saying so.
"""

import contextlib
import errno
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")
PERIOD_US = 100_000  # the CPU quota's period, as systemd and Kubernetes use


def mounts(table: Path = Path("/proc/mounts")) -> dict[str, Path]:
    """Where each v1 controller's tree is mounted ("memory", "cpu"), and "v2" for the
    unified tree."""
    found = {}
    for line in table.read_text().splitlines():
        _, where, kind, options, *_ = line.split()
        if kind == "cgroup2":
            found.setdefault("v2", Path(where))
        elif kind == "cgroup":
            for option in options.split(","):
                found.setdefault(option, Path(where))
    return found


def own_groups(table: Path = Path("/proc/self/cgroup")) -> dict[str, str]:
    """This process's group in each tree: {"memory": "/a/b", ..., "v2": "/c"}."""
    found = {}
    for line in table.read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else ["v2"]:
            found[name] = path
    return found


class LearnerGroup:
    """One learner's group: in one tree (v2) or in the memory and cpu trees (v1)."""

    def __init__(self, folders: list[Path], version: int) -> None:
        self.folders, self.version = folders, version

    def join(self) -> None:
        """Move the calling process into the group; run in the child, before it execs."""
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def processes(self) -> list[int]:
        found = set()
        for folder in self.folders:
            with contextlib.suppress(OSError):
                found |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
        return sorted(found)

    def remove(self) -> None:
        """Stop whatever the learner left running in the group, then remove it."""
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for folder in self.folders:
            for _ in range(250):  # the killed leave the group as they exit: milliseconds
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as error:
                    if error.errno != errno.EBUSY:  # busy: its processes are still exiting
                        break
                    time.sleep(0.02)


class Controller:
    """The class's group in the machine's control groups, with a child per learner."""

    def __init__(self, version: int, bases: dict[str, Path]) -> None:
        self.version, self.bases = version, bases  # v1: {"memory": ..., "cpu": ...}

    def describe(self) -> str:
        where = ", ".join(str(p) for p in dict.fromkeys(self.bases.values()))
        return f"control groups v{self.version} ({where})"

    def learner(self, name: str, memory: int | None, cpus: float | None) -> LearnerGroup:
        """The learner's group, made (or emptied and remade) with these limits."""
        folders = [base / name for base in dict.fromkeys(self.bases.values())]
        group = LearnerGroup(folders, self.version)
        group.remove()  # a group a crashed hub left behind: its processes stopped
        for folder in folders:
            folder.mkdir(exist_ok=True)  # kept if they never exit (a hung disk): reused
        if self.version == 2:
            folder = folders[0]
            if memory is not None:
                write(folder / "memory.max", memory)
                write(folder / "memory.swap.max", 0, optional=True)
            write(folder / "cpu.weight", 100)  # every learner the same: the default's value
            if cpus is not None:
                write(folder / "cpu.max", f"{round(cpus * PERIOD_US)} {PERIOD_US}")
        else:
            memory_folder, cpu_folder = (self.bases[c] / name for c in ("memory", "cpu"))
            if memory is not None:
                write(memory_folder / "memory.limit_in_bytes", memory)
                # With swap: memory plus swap held to the same figure, so no swap at all.
                write(memory_folder / "memory.memsw.limit_in_bytes", memory, optional=True)
            write(cpu_folder / "cpu.shares", 1024)  # every learner the same: the default's
            if cpus is not None:
                write(cpu_folder / "cpu.cfs_period_us", PERIOD_US)
                write(cpu_folder / "cpu.cfs_quota_us", round(cpus * PERIOD_US))
        return group

    def remove(self) -> None:
        """The class's group, once every learner's has gone (the hub's last act)."""
        for base in dict.fromkeys(self.bases.values()):
            for child in [p for p in base.iterdir() if p.is_dir()] if base.exists() else []:
                LearnerGroup([child], self.version).remove()
            with contextlib.suppress(OSError):
                base.rmdir()


def write(path: Path, value: object, optional: bool = False) -> None:
    if optional and not path.exists():
        return
    path.write_text(f"{value}\n")


def controller(
    name: str, root: Path = CGROUP, table: Callable[[], dict[str, Path]] = mounts
) -> Controller | str:
    """The class's group named `name`, made, with the CPU shared equally between its
    learners and the class weighing as much as a busy process per core against the rest of
    the machine; or, where control groups cannot be used, the reason in a few words."""
    if os.geteuid() != 0:
        return "only root can make control groups"
    found = table()
    cores = os.cpu_count() or 1
    try:
        if (root / "cgroup.controllers").exists():  # v2: one unified tree
            offered = (root / "cgroup.controllers").read_text().split()
            if not {"memory", "cpu"} <= set(offered):
                return f"control groups v2 here offer {' '.join(offered) or 'no controller'}, not memory and cpu"
            write(root / "cgroup.subtree_control", "+memory +cpu")
            base = root / name
            base.mkdir(exist_ok=True)
            write(base / "cgroup.subtree_control", "+memory +cpu")
            write(base / "cpu.weight", min(100 * cores, 10_000))
            return Controller(2, {"memory": base, "cpu": base})
        if "memory" not in found or "cpu" not in found:
            return "no memory and cpu control groups are mounted in /sys/fs/cgroup"
        own = own_groups()
        bases = {c: found[c] / own.get(c, "/").lstrip("/") / name for c in ("memory", "cpu")}
        for base in bases.values():
            base.mkdir(exist_ok=True)
        write(bases["cpu"] / "cpu.shares", 1024 * cores)
        return Controller(1, bases)
    except OSError as error:
        if error.errno == errno.EROFS:
            return f"{root} is read-only here (this container does not delegate control groups)"
        return f"control groups in {root} cannot be written ({error.strerror})"
