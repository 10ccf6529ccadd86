"""After the memory limit stopped a learner's kernel: one line at the first cell run after.

On a class's hub each learner's server and kernels share a memory limit (MEM_LIMIT, held by
a control group: hub/class_cgroups.py). A kernel that grows past it is stopped by the
machine's out-of-memory killer; JupyterLab says the kernel died and starts a new one. That
new kernel knows why from the control group's count of such kills, which grew since the
last kernel of this learner looked (the count is kept in Jupyter's runtime folder), and
prints the reason above the first cell it runs. Without a declared limit (a laptop) or
such a count, nothing happens.
"""

import os
from pathlib import Path

from IPython.core.interactiveshell import InteractiveShell

CGROUP = Path("/sys/fs/cgroup")
SEEN = "lessons-oom-kills"  # the count the last kernel saw, in Jupyter's runtime folder


def oom_kills(cgroup: Path = Path("/proc/self/cgroup"), root: Path = CGROUP) -> int | None:
    """How many processes the out-of-memory killer stopped in this process's memory group;
    None outside one (v1: memory.oom_control, v2: memory.events)."""
    try:
        lines = cgroup.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            counts = root / "memory" / path.lstrip("/") / "memory.oom_control"
        elif controllers == "" and path != "/":
            counts = root / path.lstrip("/") / "memory.events"
        else:
            continue
        try:
            for entry in counts.read_text().splitlines():
                if entry.startswith("oom_kill "):
                    return int(entry.split()[1])
        except OSError:
            continue
    return None


def hint(limit: str | None) -> str:
    """The one line: what happened, what it means, what to do."""
    size = f"{int(limit) / (1 << 30):.1f} GiB" if limit and limit.isdigit() else "memory"
    return (
        f"A kernel of yours was stopped: together your kernels reached your {size} memory "
        "limit, and it held the most. Its variables are gone: run the cells above again "
        "(Run → Run All Above Selected Cell), with smaller tensors."
    )


def stopped_since_last_look(runtime: Path, now: int | None) -> bool:
    """Whether the count grew since the last kernel looked; remembers `now` for the next."""
    if now is None:
        return False
    seen = runtime / SEEN
    try:
        before = int(seen.read_text())
    except (OSError, ValueError):
        before = None
    try:
        runtime.mkdir(parents=True, exist_ok=True)
        seen.write_text(str(now))
    except OSError:
        pass
    return before is not None and now > before


def arm(shell: InteractiveShell) -> None:
    """At kernel start on a hub that declares a limit: if the limit stopped a kernel of
    this learner's since the last one started, say so once."""
    from jupyter_core.paths import jupyter_runtime_dir

    limit = os.environ.get("MEM_LIMIT")
    if not limit or not stopped_since_last_look(Path(jupyter_runtime_dir()), oom_kills()):
        return
    line = hint(limit)

    def say_once(*_) -> None:
        print(line, flush=True)
        shell.events.unregister("pre_run_cell", say_once)

    shell.events.register("pre_run_cell", say_once)
