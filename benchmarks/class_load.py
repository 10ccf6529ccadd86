"""A class on one machine under load: `make class`'s hub on loopback, N learners at once.

    python -m benchmarks.class_load --learners 8 [--cull-timeout 45] [--notebook PATH]

Starts the real hub (tools/class_hub.py, as `make class` does) on a free 127.0.0.1 port with
a class folder of its own (--prefix, /srv/lessons-class-test: never a live class's), a
state folder of its own and a unique prefix for its Unix users, then:
- N learners sign in at once (POST /hub/login); each server spawns as its own Unix user and
  pulls the course through nbgitpuller's API (from the local bare repository);
- with 3 learners or more, before any lesson: the first passes check_cube, the second fails
  it, the others run no check; the teacher's progress page (a learner is refused it) and
  `make class-progress` must show exactly that (benchmarks/classroom/progress.py);
- the hub's first line says which limits it enforces; each learner's server and kernels
  are in that learner's own control group (benchmarks/classroom/faults.py);
- each runs lesson 1's beginner notebook (--notebook for another) top to bottom through
  its own kernel (REST + websocket), while its Unix user's processes' memory is sampled
  from /proc (tools/lab_memory.py: pages held);
- (after the idle learner's return below) with 3 learners or more, the others run it
  again while one learner's kernel, in JupyterLab, allocates several times the memory
  limit and another runs a busy loop: the runaway stopped (theirs only), what JupyterLab
  and the course say, their notebook kept, the others' run median against the
  undisturbed one, the hub and proxy up;
- every learner tries the next one's server through the hub with its own session, and its
  kernel tries to list the next one's home and to use the server's own hub token (read
  from /proc, as a learner could) for the hub's user list and the next one's server: each
  attempt must be refused;
- a kernel's environment is searched for the hub's tokens;
- the teacher (admin) opens the first learner's server; the first learner, in Chromium,
  reads their memory against the limit in JupyterLab's status bar, moves an explorer's
  slider and sees the picture change;
- the first learner edits a course notebook (one cell) and makes files of their own in
  course/; a new course commit is published to the class's bare repository (from a
  temporary clone, as a teacher would), changing the same notebook elsewhere and on the
  very line the learner changed, another notebook, and adding a file where the learner has
  one (the learner also deletes a course file); the learner follows the learners' link
  again, and each of nbgitpuller's merging rules is checked (the branch is put back at the
  end);
- a second hub started on the same class folder is refused, and this one still answers;
- the last learner stays idle until the idle culler stops its server, signs in again, and
  finds both their own file and their edit to a course notebook after the pull (across
  that course update);
- the hub, started in the background as a script would (Ctrl-C's SIGINT ignored), gets
  Ctrl-C: the seconds until it and everything it started have stopped; then `make
  class-remove` (confirmed) removes the accounts its roster lists.
Everything it started is stopped, and its Unix users removed, whatever happens. Each
concern is a module of benchmarks/classroom/ (its __init__ lists them).
"""

import argparse
import os
import pwd
import secrets
import sys
from pathlib import Path

from benchmarks.classroom import browser, course_update, faults, idle, isolation, progress
from benchmarks.classroom.hub import PREFIX, ROOT, TEACHER_PASSWORD, Hub
from benchmarks.classroom.learners import (
    LESSON,
    Learner,
    Room,
    run_lesson,
    sign_in,
    spawn_and_pull,
    together,
)
from benchmarks.classroom.memory import MemorySampler
from benchmarks.classroom.report import Outcome, report
from tools import class_hub

__all__ = ["Outcome", "class_load", "report"]


def class_load(
    learners: int,
    cull_timeout: int = 45,
    log: Path | None = None,
    lesson: str = LESSON,
    place: Path = PREFIX,
) -> Outcome:
    """The whole class, as the module's docstring says; everything stopped at the end."""
    prefix = f"cl{secrets.token_hex(3)}"
    log = log or ROOT / "build" / "class-load.log"
    log.parent.mkdir(exist_ok=True)
    hub = Hub(prefix, cull_timeout, log, place)
    people = [Learner(f"{prefix}learner{i + 1}") for i in range(learners)]
    teacher = Learner(hub.teacher)
    sampler = None
    repo = place / "course.git"
    found = None  # the course commit the hub published, put back at the end
    try:
        hub.wait()
        pull_path = class_hub.pull_path(repo)
        sampler = MemorySampler(hub, people)
        together(lambda x: (sign_in(hub, x), spawn_and_pull(hub, x, pull_path)), people)
        ready = [x for x in people if x.spawn_s is not None and not x.error]
        room = Room(hub, ready, pull_path, repo, prefix)
        seen = progress.progress(room)  # first: only its two checks have run
        together(lambda x: run_lesson(hub, x, lesson), ready)
        limits = (faults.limits_line(room), faults.in_own_groups(room))
        # The scenarios, in order (benchmarks/classroom/, one module each). The idle learner
        # (with two or more) leaves its work first, then does nothing until it is culled.
        resting = ready[-1] if len(ready) > 1 else None
        if resting:
            idle.leave_work(room, resting)
        isolation.attempts(room)
        second_hub = hub.second_hub_refused()
        sign_in(hub, teacher, TEACHER_PASSWORD)
        opened = bool(ready) and isolation.teacher_opens(hub, teacher, ready[0])
        slider, status = (
            browser.slider_in_chromium(hub, ready[0], pull_path) if ready else (None, "")
        )
        update = None
        if ready:  # not the idle learner: its server must stay idle
            found = course_update.git("-C", repo, "rev-parse", f"refs/heads/{class_hub.BRANCH}")
            update = course_update.course_update(hub, ready[0], pull_path, repo, prefix)
        # The idle learner's return before the faults, which need every learner busy: the
        # scenarios since leave_work have taken longer than the tests' cull timeout, so the
        # culling is seldom waited for.
        culled, kept = (0, 0), False
        if resting:
            culled, kept = idle.culled_then_kept(room, teacher, resting, cull_timeout)
        fault_run = faults.faults(room, lesson, hub.proxy_pid())
        sampler.stop()
        started = [hub.process.pid, hub.proxy_pid()]
        heeds = hub.culler_heeds_ctrl_c()
        stopped_s = hub.interrupt()
        limits = (*limits, faults.groups_left(hub.port))
        removed, said = hub.remove_accounts()
        left = [u.pw_name for u in pwd.getpwall() if u.pw_name.startswith(prefix)]
        outcome = Outcome(
            people, sampler.hub_proxy, culled, opened, slider, kept, update, False, log,
            prefix, started, place, second_hub, (stopped_s, heeds), (removed, left, said),
            limits, status, fault_run, seen,
        )  # fmt: skip
    finally:
        if sampler:
            sampler.stop()
        hub.stop()
        if found:  # the branch back where the hub published it (other runs publish HEAD)
            course_update.git("-C", repo, "update-ref", f"refs/heads/{class_hub.BRANCH}", found)
    outcome.course_restored = found is None or (
        course_update.git("-C", repo, "rev-parse", f"refs/heads/{class_hub.BRANCH}") == found
    )
    return outcome


if __name__ == "__main__":
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--learners", type=int, default=3)
    ask.add_argument("--cull-timeout", type=int, default=45, help="seconds idle before culling")
    ask.add_argument(
        "--notebook", default=LESSON, help="the notebook each learner runs, in notebooks/"
    )
    ask.add_argument("--prefix", type=Path, default=PREFIX, help="the run's own class folder")
    args = ask.parse_args()
    if os.geteuid() != 0:
        sys.exit("the class load test creates Unix users: run it as root")
    print(
        report(
            class_load(args.learners, args.cull_timeout, lesson=args.notebook, place=args.prefix)
        )
    )
