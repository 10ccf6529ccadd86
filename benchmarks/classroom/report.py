"""What a class load run saw (the Outcome), and the table it prints."""

import os
import statistics
from dataclasses import dataclass
from pathlib import Path

from benchmarks.classroom.course_update import CourseUpdate
from benchmarks.classroom.faults import RUNAWAY, FaultRun
from benchmarks.classroom.learners import Learner
from benchmarks.classroom.progress import Progress, progress_lines

MIB = 1 << 20


@dataclass
class Outcome:
    learners: list[Learner]
    hub_proxy: int  # bytes, peak
    culled: tuple[int, int]
    teacher_opened: bool
    slider_ms: float | None
    kept_after_cull: bool
    update: CourseUpdate | None  # the re-pull across a new course commit
    course_restored: bool  # the bare repository's branch is back where the run found it
    log: Path
    user_prefix: str  # every Unix user of the run starts with it (all removed at the end)
    started: list[int]  # the hub's and the proxy's pids (all stopped at the end)
    place: Path  # the run's class folder (--prefix)
    second_hub: tuple[str, bool]  # a second hub on it: its one line; the first still up
    stopping: tuple[float | None, bool]  # Ctrl-C to all stopped, s; the culler heeds SIGINT
    removal: tuple[list[str], list[str], str]  # class-remove: removed, the run's left, said
    # The hub's line; each learner: all in their own group; the groups left once it stopped.
    limits: tuple[str, dict[str, bool], list[str]]
    status_memory: str  # JupyterLab's status bar, in Chromium: "Mem: used / limit MB"
    faults: FaultRun | None  # the runaway and the busy loop (3 learners or more)
    progress: Progress | None  # the teacher's page and command (3 learners or more)

    @property
    def refused(self) -> tuple[int, int]:
        attempts = [r for learner in self.learners for r in learner.refusals]
        return sum(refused for _, refused, _ in attempts), len(attempts)

    @property
    def finished(self) -> int:
        return sum(learner.run_s is not None for learner in self.learners)


def attempt_verdict(refused: bool, why: str) -> str:
    """An isolation attempt's verdict: a 404 is no refusal, but nothing was reached either."""
    if refused:
        return "refused"
    return "NOT REFUSED: no server there" if why.startswith("404") else "ALLOWED"


def report(outcome: Outcome) -> str:
    """The table per learner, the attempts, and the last line the issue asks for."""
    lines = [f"{'learner':<22} {'spawn s':>8} {'run s':>8} {'peak MiB':>9}  note"]
    for x in outcome.learners:
        spawn = f"{x.spawn_s:.1f}" if x.spawn_s is not None else "-"
        run = f"{x.run_s:.1f}" if x.run_s is not None else "-"
        lines.append(f"{x.name:<22} {spawn:>8} {run:>8} {x.peak / MIB:>9.0f}  {x.error or ''}")
    lines.append("")
    line, grouped, _ = outcome.limits
    lines.append(f"the hub said: {line}")
    lines.append(
        f"learners whose every process is in their own control group: {sum(grouped.values())}"
        f"/{len(grouped)}"
    )
    if outcome.progress is not None:
        lines += progress_lines(outcome.progress)
    if outcome.faults is not None:
        lines += fault_lines(outcome.faults)
    lines.append("isolation attempts (each must be refused):")
    for x in outcome.learners:
        for what, refused, why in x.refusals:
            lines.append(f"  {x.name}: {what}: {attempt_verdict(refused, why)} ({why})")
        if x.kernel_env_tokens is not None:
            lines.append(
                f"  {x.name}: hub tokens in a kernel's environment: {x.kernel_env_tokens or 'none'}"
            )
    lines.append(f"teacher (admin) opened a learner's server: {outcome.teacher_opened}")
    moved = f"{outcome.slider_ms:.0f} ms" if outcome.slider_ms is not None else "no change seen"
    lines.append(f"Chromium: explorer slider moved, picture changed in {moved}")
    lines.append(f"Chromium: JupyterLab's status bar shows {outcome.status_memory!r}")
    if (update := outcome.update) is not None:
        lines.append(f"re-pull after a course update ({update.learner}, {update.seconds:.1f} s):")
        lines += [f"  {what}: {ok}" for what, ok in update.checks.items()]
        if update.error:
            lines.append(f"  failed: {update.error}")
        lines.append(
            "re-pull after a course update kept the learner's edit and brought the new "
            f"change: {update.kept}"
        )
    said, up = outcome.second_hub
    lines.append(f"a second hub on {outcome.place} while this one ran: {said}")
    lines.append(f"the running hub still answered after it: {up}")
    lines.append(
        f"idle server culled, then the learner's file and edit kept: {outcome.kept_after_cull}"
    )
    seconds, heeds = outcome.stopping
    stopped = f"{seconds:.1f} s" if seconds is not None else "NOT within 120 s"
    lines.append(
        "Ctrl-C to the hub (started in the background, as a script would): it and everything "
        f"it started stopped in {stopped}; the idle culler heeds Ctrl-C: {heeds}"
    )
    lines.append(f"control groups left once the hub stopped: {outcome.limits[2] or 'none'}")
    removed, left, _ = outcome.removal
    lines.append(
        f"make class-remove (confirmed): removed {len(removed)} accounts and their homes; "
        f"the run's accounts left: {left or 'none'}"
    )
    spawns = [x.spawn_s for x in outcome.learners if x.spawn_s is not None]
    runs = [x.run_s for x in outcome.learners if x.run_s is not None]
    peaks = [x.peak for x in outcome.learners if x.peak]
    refused, attempts = outcome.refused
    median = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
    lines.append(
        f"class: {len(outcome.learners)} learners, {outcome.finished} finished, "
        f"spawn median {median(spawns):.1f} s, run median {median(runs):.1f} s, "
        f"peak {max(peaks, default=0) / MIB:.0f} MiB per learner, "
        f"hub+proxy {outcome.hub_proxy / MIB:.0f} MiB, refused {refused}/{attempts}, "
        f"culled {outcome.culled[0]}/{outcome.culled[1]}"
    )
    return "\n".join(lines)


def fault_lines(run: FaultRun) -> list[str]:
    """What the runaway and the busy loop did to the class."""
    median = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
    times = [[s for s in d.values() if s is not None] for d in (run.undisturbed, run.disturbed)]
    own = run.kills.get(run.runaway)
    others = {n: k for n, k in run.kills.items() if n != run.runaway}
    only = own is not None and own >= 1 and all(k == 0 for k in others.values())
    seen = f"{run.message_s:.1f} s" if run.message_s is not None else "never"
    cores = os.cpu_count() or 1
    lines = [
        f"faults during lesson 1: {run.runaway} allocates {RUNAWAY}x the memory limit in "
        f"JupyterLab, {run.busy} runs a busy loop, {len(run.others)} others run lesson 1:",
        f"  out-of-memory kills: {run.runaway} {own}, the others "
        f"{sorted(others.values(), key=str)} (the runaway's kernel only: {only}); the "
        f"runaway's processes peaked at {run.runaway_peak / MIB:.0f} MiB",
        f"  JupyterLab said, {seen} after the run: {run.message!r}",
        f"  the next cell showed: {run.after!r}",
        f"  the runaway's saved notebook unchanged: {run.notebook_kept}",
        f"  the others' lesson 1 run median: {median(times[0]):.1f} s undisturbed, "
        f"{median(times[1]):.1f} s during the faults (x{run.ratio:.2f}; within 1.5x: "
        f"{run.ratio <= 1.5}); finished {len(times[1])}/{len(run.others)}",
        f"  the busy loop used {run.busy_share:.2f} of a core while the others ran (its fair "
        f"share: {run.fair_share:.2f} of the {cores} cores)",
        f"  hub answering: {run.hub_up}; proxy still running: {run.proxy_up}",
    ]
    if run.fair_share > cores / 3:  # the others keep under 2/3 of the machine: over 1.5x
        lines.append(
            f"  with {len(run.others)} other(s), the busy loop's fair share alone slows them "
            "past 1.5x: the goal is for a class that fills the machine (8 learners on 2 cores)"
        )
    if run.error:
        lines.append(f"  failed: {run.error}")
    return lines
