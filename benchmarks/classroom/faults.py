"""One learner must not be able to break the class: the limits, and faults against them.

- The hub's first line says which limits it enforces (or why none); every process of each
  learner (server, kernels) is in that learner's own control group.
"""

import contextlib
import pwd
from pathlib import Path

from benchmarks.classroom.learners import Kernel, Room, together
from tools import lab_memory


def limits_line(room: Room) -> str:
    """The hub's line about the limits, as it printed it at start."""
    lines = room.hub.log.read_text().splitlines()
    return next((line for line in lines if line.startswith("Limits per learner")), "none")


def in_own_groups(room: Room) -> dict[str, bool]:
    """For each ready learner, with a kernel running: every process of theirs (server,
    kernel) is in their own group (in v1, in both the memory and the cpu tree)."""
    kernels = []
    together(lambda x: kernels.append(Kernel(room.hub, x, "groups.ipynb")), room.ready)
    try:
        return processes_in_own_groups(room)
    finally:
        for kernel in kernels:
            kernel.close()


def processes_in_own_groups(room: Room) -> dict[str, bool]:
    group = f"/lessons-class-{room.hub.port}/"
    needed = 1 if "control groups v2" in limits_line(room) else 2
    found = {}
    for learner in room.ready:
        uid = pwd.getpwnam(learner.name).pw_uid
        places = []
        for entry in lab_memory.PROC.iterdir():
            with contextlib.suppress(OSError):
                if entry.name.isdigit() and entry.stat().st_uid == uid:
                    lines = Path(entry, "cgroup").read_text().splitlines()
                    mine = [x for x in lines if x.endswith(group + learner.name)]
                    places.append(len(mine) >= needed)
        found[learner.name] = bool(places) and all(places)
    return found


def groups_left(port: int, root: Path = Path("/sys/fs/cgroup")) -> list[str]:
    """The class's control groups still there (none, once its hub has stopped)."""
    name = f"lessons-class-{port}"
    return sorted(str(p) for p in root.glob(f"**/{name}") if p.is_dir())
