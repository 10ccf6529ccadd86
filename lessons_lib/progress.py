"""Each self-check's verdict, kept in the learner's own home for the teacher to read.

Every run of a self-check (`check_cube(Cube)`, `check_spike(MySpike)`, ...) appends one line
of JSON to ~/.lessons/progress.jsonl: the check's name, how many of its checks passed, of
how many, and when. Never the learner's code, what they passed, or what the check printed.
On a class hub the teacher's progress page and `make class-progress` read the latest line
of each check (tools/class_progress.py).

`recorded` wraps every public self-check, in one place (lessons_lib/exercises/__init__.py).
Recording is best effort: a home that is read-only, full or missing costs the learner
nothing, not even a message. LESSONS_PROGRESS=off records nothing (the course's tests, and
nbgrader's autograding); any other value is the file to append to instead.
"""

import functools
import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

SWITCH = "LESSONS_PROGRESS"
OFF = "off"
FILE = Path(".lessons") / "progress.jsonl"  # in the learner's home


def progress_file() -> Path | None:
    """Where verdicts go: ~/.lessons/progress.jsonl, LESSONS_PROGRESS's file, or None (off)."""
    chosen = os.environ.get(SWITCH, "")
    if chosen.strip().lower() == OFF:
        return None
    return Path(chosen) if chosen else Path.home() / FILE


def verdict_line(check: str, passed: int, total: int, when: datetime | None = None) -> str:
    """One verdict as the line the progress file holds (time in UTC, to the second)."""
    moment = (when or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    return json.dumps({"check": check, "passed": passed, "total": total, "time": moment})


def record(check: str, verdict: object) -> None:
    """Append the verdict's counts to the progress file; silent whatever happens."""
    try:
        path = progress_file()
        passed, total = verdict.checks_passed, verdict.checks_total  # type: ignore[attr-defined]
        if path is None or not isinstance(passed, int) or not isinstance(total, int):
            return
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        line = (verdict_line(check, passed, total) + "\n").encode()
        # One write of a short line in append mode: lines from two kernels never interleave.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except Exception:  # recording must never cost the learner their check
        return


def recorded(check: Callable) -> Callable:
    """The self-check `check`, recording each verdict it gives (see the module's docstring)."""

    @functools.wraps(check)
    def recording(*args, **kwargs):
        verdict = check(*args, **kwargs)
        record(check.__name__, verdict)
        return verdict

    return recording
