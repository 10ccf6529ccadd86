"""One learner must not be able to break the class: the limits, and faults against them.

- The hub's first line says which limits it enforces (or why none); every process of each
  learner (server, kernels) is in that learner's own control group.
- While the others run lesson 1 again, one learner, in JupyterLab, runs a cell that
  allocates RUNAWAY times their memory limit, and another runs a busy loop. Measured: the
  out-of-memory kills in each learner's group (the runaway's kernel only), JupyterLab's
  message and the course's line after it, the runaway's saved notebook unchanged, the
  others' run median against their undisturbed one, the busy loop's share of a core, the
  hub and the proxy up.
"""

import contextlib
import os
import pwd
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

from benchmarks.classroom import browser
from benchmarks.classroom.hub import ROOT
from benchmarks.classroom.learners import (
    Kernel,
    Learner,
    Room,
    api,
    run_lesson,
    together,
    wake,
)
from lessons_lib.kernel_stopped import oom_kills
from tools import lab_memory
from tools.notebooks import KERNELSPEC

RUNAWAY = 3  # times the memory limit the runaway cell asks for
SAVED = "runaway.ipynb"  # the runaway learner's notebook, saved before the fault
# A busy loop; a dot every 2 s, as a learner's loop might print, keeps the server active
# for the idle culler (a silent cell's kernel reports no activity while it runs).
BUSY = "import time\nwhile True:\n    t = time.monotonic()\n    while time.monotonic() - t < 2:\n        pass\n    print('.', end='', flush=True)"


def limits_line(room: Room) -> str:
    """The hub's line about the limits, as it printed it at start."""
    lines = room.hub.log.read_text().splitlines()
    return next((line for line in lines if line.startswith("Limits per learner")), "none")


def in_own_groups(room: Room) -> dict[str, bool]:
    """For each ready learner, with a kernel running: every process of theirs (server,
    kernel) is in their own group (in v1, in both the memory and the cpu tree)."""
    wake(room)
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


def learner_pids(name: str) -> list[int]:
    uid = pwd.getpwnam(name).pw_uid
    found = []
    for entry in lab_memory.PROC.iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                found.append(int(entry.name))
    return found


def cpu_times(pids: list[int]) -> dict[int, float]:
    """User plus system CPU seconds of each of these processes still alive."""
    found = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            found[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def notebook(limit: int) -> dict:
    """The runaway learner's notebook: ready, the cell that outgrows the limit, one after."""
    code = [
        "print('ready')",
        f"import numpy as np\nbig = np.ones({RUNAWAY * limit} // 8)  # {RUNAWAY} times my limit",
        "print('after')",
    ]
    cells = [{"cell_type": "code", "source": c, "metadata": {}, "outputs": [],
              "execution_count": None} for c in code]  # fmt: skip
    metadata = {"kernelspec": dict(KERNELSPEC)}  # else JupyterLab first asks for a kernel
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


@dataclass
class FaultRun:
    runaway: str
    busy: str
    others: list[str]
    undisturbed: dict[str, float | None] = field(default_factory=dict)  # lesson 1, s
    disturbed: dict[str, float | None] = field(default_factory=dict)  # ... during the faults
    kills: dict[str, int | None] = field(default_factory=dict)  # out-of-memory kills
    runaway_peak: int = 0  # bytes, the runaway learner's processes at their most
    message: str = ""  # JupyterLab's, after the runaway cell
    message_s: float | None = None  # seconds from the run to it
    after: str = ""  # the cell run next: the course's line, then its own output
    notebook_kept: bool = False
    busy_share: float = 0.0  # of one core, while the others ran
    fair_share: float = 0.0  # the busy loop's, in cores: an equal share, at most its limit
    hub_up: bool = False
    proxy_up: bool = False
    error: str | None = None

    @property
    def ratio(self) -> float:
        runs = [
            [s for s in d.values() if s is not None] for d in (self.disturbed, self.undisturbed)
        ]
        if not all(runs):
            return float("nan")
        return statistics.median(runs[0]) / statistics.median(runs[1])


def lesson_times(room: Room, others: list[Learner], lesson: str) -> dict[str, float | None]:
    """Lesson 1 once more for each of the others, at once: their seconds (None: failed)."""
    copies = [Learner(x.name, x.session, x.token) for x in others]  # their table's times kept
    together(lambda x: run_lesson(room.hub, x, lesson), copies)
    return {x.name: x.run_s for x in copies}


def kill_counts(names: list[str], into: dict[str, int | None]) -> None:
    """Each learner's out-of-memory kills so far, read while their server runs."""
    for name in names:
        pids = learner_pids(name)
        into[name] = oom_kills(Path(f"/proc/{pids[0]}/cgroup")) if pids else None


def limits() -> tuple[int, float | None]:
    """Each learner's memory limit in bytes and CPU limit in cores, as the hub reads them
    (hub/class_limits.py)."""
    sys.path.insert(0, str(ROOT / "hub"))  # hub/ is not a package
    from class_limits import from_values

    return from_values()


def faults(room: Room, lesson: str, proxy: int | None) -> FaultRun | None:
    """The runaway and the busy loop during the others' lesson 1 (3 learners or more)."""
    if len(room.ready) < 3:
        return None
    runaway, busy, others = room.ready[1], room.ready[2], [room.ready[0], *room.ready[3:]]
    run = FaultRun(runaway.name, busy.name, [x.name for x in others])
    if "enforced with" not in limits_line(room):  # nothing would stop it but the machine
        run.error = "not run: the hub enforces no limits here"
        return run
    try:
        wake(room)
        memory, cpus = limits()
        cores = os.cpu_count() or 1
        run.fair_share = min(cpus or cores, cores / (len(others) + 1))  # the others and the loop
        saved = notebook(memory)
        api(runaway, "PUT", f"{room.hub.base}/user/{runaway.name}/api/contents/{SAVED}",
            json={"type": "notebook", "format": "json", "content": saved}).raise_for_status()  # fmt: skip
        # The runaway's JupyterLab open and idle from here on: the browser (on this
        # machine, not a learner's) costs the two runs alike.
        with browser.RunawayPage(room.hub, runaway, SAVED) as page:
            run.undisturbed = lesson_times(room, others, lesson)  # the same others, no fault
            wake(room)  # any the culler stopped meanwhile
            during(room, run, page, (runaway, busy, others), lesson)
        kept = api(runaway, "GET", f"{room.hub.base}/user/{runaway.name}/api/contents/{SAVED}")
        sources = [[c["source"] for c in n["cells"]] for n in (kept.json()["content"], saved)]
        run.notebook_kept = sources[0] == sources[1]
        run.hub_up = requests.get(f"{room.hub.base}/hub/api/", timeout=10).status_code == 200
        run.proxy_up = proxy is not None and Path(f"/proc/{proxy}").exists()
        failed = [name for name, s in run.disturbed.items() if s is None]
        run.error = f"lesson 1 failed for {failed}" if failed else None
    except Exception as error:  # reported: the lines say what was not seen
        run.error = f"{type(error).__name__}: {error}"
    return run


def during(room: Room, run: FaultRun, page, who: tuple, lesson: str) -> None:
    """The busy loop starts, the others run lesson 1 while the runaway's cell runs in
    JupyterLab; each learner's kill count read before and after, while their server runs."""
    runaway, busy, others = who
    before, after = {}, {}
    kill_counts([x.name for x in room.ready], before)
    peaks = {x: x.peak for x in room.ready}  # the table keeps the class's own peaks
    looping = Kernel(room.hub, busy, "busy.ipynb")
    looping.send(BUSY)
    pids, started = learner_pids(busy.name), time.monotonic()
    spent = cpu_times(pids)

    def lesson_then_count(learner: Learner) -> None:
        run.disturbed.update(lesson_times(room, [learner], lesson))
        kill_counts([learner.name], after)

    lessons = threading.Thread(target=together, args=(lesson_then_count, others))
    lessons.start()
    try:
        run.message, run.message_s, run.after = page.runaway()
        kill_counts([runaway.name], after)
    finally:
        lessons.join()
        now = cpu_times(learner_pids(busy.name))
        used = sum(max(now[p] - spent[p], 0) for p in spent.keys() & now.keys())
        run.busy_share = used / (time.monotonic() - started)
        kill_counts([busy.name], after)
        looping.interrupt()
        looping.close()
        run.runaway_peak = runaway.peak
        for learner, peak in peaks.items():
            learner.peak = peak
    run.kills = {
        name: None
        if before.get(name) is None or after.get(name) is None
        else after[name] - before[name]
        for name in before
    }
