"""A class of N on one machine, to size it: learners signing in over a stretch of time.

    python -m benchmarks.class_size --learners 40 --over 120

Starts `make class`'s hub (as benchmarks/class_load.py does: its own class folder, state
and Unix users, all removed at the end). Learner i signs in at i * OVER / N seconds, their
server starts and pulls the course, and they run lesson 1's beginner notebook top to
bottom through their own kernel, which stays open until everyone has run it (as in a
class). Meanwhile, every 2 s, each learner's memory is read from
/proc as proportional set size (a page shared by several processes, torch's libraries
above all, is split between them, so each learner is charged their share of it), and the
machine's memory in use (MemTotal - MemAvailable). Printed: each learner's spawn and run
seconds and peak PSS; spawn and run medians and 95th percentiles; the machine's memory in
use before the class and at its peak.
"""

import argparse
import contextlib
import os
import pwd
import secrets
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.classroom.hub import PREFIX, ROOT, Hub
from benchmarks.classroom.learners import LESSON, Learner, run_lesson, sign_in, spawn_and_pull
from tools import class_hub, lab_memory

MIB = 1 << 20


def in_use() -> int:
    """The machine's memory in use, bytes: MemTotal - MemAvailable (/proc/meminfo)."""
    kb = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        name, value = line.split(":", 1)
        kb[name] = int(value.split()[0])
    return (kb["MemTotal"] - kb["MemAvailable"]) * 1024


class PssSampler:
    """Each learner's peak PSS (all their Unix user's processes) and the machine's peak use."""

    def __init__(self, learners: list[Learner], every: float = 2.0) -> None:
        self.learners, self.every = learners, every
        self.peak_pss: dict[str, int] = {}
        self.before = self.machine_peak = in_use()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def sample(self) -> None:
        owners: dict[int, list[int]] = {}
        for entry in lab_memory.PROC.iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    owners.setdefault(entry.stat().st_uid, []).append(int(entry.name))
        for learner in self.learners:
            with contextlib.suppress(KeyError):
                pids = owners.get(pwd.getpwnam(learner.name).pw_uid, [])
                pss = sum(found[1] for p in pids if (found := lab_memory.rss_pss(p)))
                self.peak_pss[learner.name] = max(self.peak_pss.get(learner.name, 0), pss)
        self.machine_peak = max(self.machine_peak, in_use())

    def loop(self) -> None:
        while not self.stopped.wait(self.every):
            self.sample()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=60)


@dataclass
class Sizing:
    learners: list[Learner]
    over_s: float
    peak_pss: dict[str, int]
    machine_before: int
    machine_peak: int
    hub_log: Path


def percentile(xs: list[float], p: float) -> float:
    """The p-th percentile, linear between the closest ranks (numpy's default)."""
    if not xs:
        return float("nan")
    xs, k = sorted(xs), (len(xs) - 1) * p / 100
    low = int(k)
    return xs[low] + (xs[min(low + 1, len(xs) - 1)] - xs[low]) * (k - low)


def class_size(learners: int, over_s: float, lesson: str = LESSON, place: Path = PREFIX) -> Sizing:
    """The class, as the module's docstring says; everything stopped at the end."""
    prefix = f"cs{secrets.token_hex(3)}"
    log = ROOT / "build" / "class-size.log"
    log.parent.mkdir(exist_ok=True)
    hub = Hub(prefix, 3600, log, place)
    people = [Learner(f"{prefix}learner{i + 1}") for i in range(learners)]
    sampler = None
    try:
        hub.wait()
        pull_path = class_hub.pull_path(place / "course.git")
        sampler = PssSampler(people)
        started = time.monotonic()
        # Each keeps their kernel open until every learner has run the lesson, as in class.
        everyone = threading.Barrier(learners + 1, timeout=1800)

        def attend(i: int, learner: Learner) -> None:
            time.sleep(max(0.0, started + i * over_s / learners - time.monotonic()))
            try:
                sign_in(hub, learner)
                spawn_and_pull(hub, learner, pull_path)
            except Exception as error:  # noted, reported in the table
                learner.error = f"{type(error).__name__}: {error}"
                everyone.wait()
                return
            waited = []
            try:
                run_lesson(hub, learner, lesson, ran=lambda: waited.append(everyone.wait()))
            except Exception as error:
                learner.error = f"{type(error).__name__}: {error}"
                if not waited:  # failed before its kernel started
                    everyone.wait()

        threads = [threading.Thread(target=attend, args=x) for x in enumerate(people)]
        for thread in threads:
            thread.start()
        everyone.wait()  # every kernel still open: one last look at the memory
        sampler.sample()
        for thread in threads:
            thread.join()
        sampler.stop()
        return Sizing(people, over_s, sampler.peak_pss, sampler.before, sampler.machine_peak, log)
    finally:
        if sampler:
            sampler.stop()
        hub.interrupt()
        hub.remove_accounts()
        hub.stop()


def report(sizing: Sizing) -> str:
    lines = [f"{'learner':<22} {'spawn s':>8} {'run s':>8} {'peak PSS MiB':>13}  note"]
    for x in sizing.learners:
        spawn = f"{x.spawn_s:.1f}" if x.spawn_s is not None else "-"
        run = f"{x.run_s:.1f}" if x.run_s is not None else "-"
        pss = sizing.peak_pss.get(x.name, 0) / MIB
        lines.append(f"{x.name:<22} {spawn:>8} {run:>8} {pss:>13.0f}  {x.error or ''}")
    spawns = [x.spawn_s for x in sizing.learners if x.spawn_s is not None]
    runs = [x.run_s for x in sizing.learners if x.run_s is not None]
    pss = [v for v in sizing.peak_pss.values() if v]
    median = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
    lines += [
        "",
        f"{len(sizing.learners)} learners signing in over {sizing.over_s:.0f} s, "
        f"{len(runs)} finished lesson 1 ({os.cpu_count()} cores):",
        f"  spawn: median {median(spawns):.1f} s, 95th percentile {percentile(spawns, 95):.1f} s",
        f"  run:   median {median(runs):.1f} s, 95th percentile {percentile(runs, 95):.1f} s",
        f"  peak PSS per learner: median {median(pss) / MIB:.0f} MiB, largest "
        f"{max(pss, default=0) / MIB:.0f} MiB",
        f"  machine memory in use: {sizing.machine_before / MIB:.0f} MiB before the class, "
        f"{sizing.machine_peak / MIB:.0f} MiB at the peak "
        f"(+{(sizing.machine_peak - sizing.machine_before) / MIB:.0f} MiB)",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--learners", type=int, default=40)
    ask.add_argument("--over", type=float, default=120, help="seconds over which they sign in")
    ask.add_argument("--notebook", default=LESSON, help="the notebook each runs, in notebooks/")
    ask.add_argument("--prefix", type=Path, default=PREFIX, help="the run's own class folder")
    args = ask.parse_args()
    if os.geteuid() != 0:
        sys.exit("the class benchmark creates Unix users: run it as root")
    print(report(class_size(args.learners, args.over, args.notebook, args.prefix)), flush=True)
