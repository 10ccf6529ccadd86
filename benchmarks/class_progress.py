"""The teacher sees progress: three learners on `make class`'s hub, the page and the command.

    python -m benchmarks.class_progress [--prefix /srv/lessons-class-test]

Starts the real hub on loopback as benchmarks/class_load.py does (its functions, imported),
then three learners sign in at once and their servers spawn, each as its own Unix user:
- one runs check_cube on the course's right Cube (4 of 4 checks pass),
- one runs it on the starter's Cube, whose backward forgets grad_out (2 of 4), written
  with a comment of their own that must show up nowhere,
- one never runs a check.
Then a learner asks for the teacher's page (/services/progress/: the hub must refuse),
the teacher (admin) opens it, and `python -m tools.class_progress` (`make class-progress`)
prints its table. Both must show exactly those three rows. Everything it started is
stopped and its Unix users removed, whatever happens. Prints the seconds of each step.
"""

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from benchmarks.classroom.hub import PREFIX, ROOT, TEACHER_PASSWORD, Hub
from benchmarks.classroom.learners import Kernel, Learner, sign_in, spawn_and_pull, together
from tools import class_hub, class_progress

PASSES = "from lessons_lib import Cube, check_cube\nprint(check_cube(Cube).checks_passed)"
SECRET = "my-own-words-5e1d"  # in the failing learner's code: never in a file, page or table
FAILS = f"""
import torch
from lessons_lib import check_cube

class Cube(torch.autograd.Function):  # {SECRET}
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 3 * x**2

print(check_cube(Cube).checks_passed)
"""
PAGE = "/services/progress/"


class Rows(HTMLParser):
    """The page's table as rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


@dataclass
class Outcome:
    learners: dict[str, str]  # role -> Unix name: "passes", "fails", "never"
    printed: dict[str, str] = field(default_factory=dict)  # what each learner's check printed
    files: dict[str, str | None] = field(default_factory=dict)  # each one's progress file
    learner_page: tuple[int, bool] = (0, False)  # a learner's answer, and whether a table came
    page: list[list[str]] = field(default_factory=list)  # the teacher's, row by row
    command: str = ""  # what `make class-progress` printed
    seconds: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    def cube(self, rows: list[list[str]]) -> dict[str, str]:
        """Each learner's check_cube cell without its time, and whether all else is never run."""
        at = 1 + class_progress.COURSE_CHECKS.index("check_cube")
        found = {}
        for row in rows:
            if row and row[0] in self.learners.values():
                rest = row[1:at] + row[at + 1 :]
                never = all(cell == class_progress.NEVER for cell in rest)
                found[row[0]] = row[at].split(" at ")[0] + ("" if never else " (and more)")
        return found

    @property
    def command_rows(self) -> list[list[str]]:
        width = len(class_progress.COURSE_CHECKS) + 1
        rows = []
        for line in self.command.splitlines():
            cells = [c.strip() for c in line.split("  ") if c.strip()]
            if len(cells) == width:
                rows.append(cells)
        return rows


def class_progress_run(folder: Path = PREFIX, log: Path | None = None) -> Outcome:
    """The scenario of the module's docstring; everything stopped at the end."""
    prefix = f"cl{os.urandom(3).hex()}"
    roles = {role: f"{prefix}{role}" for role in ("passes", "fails", "never")}
    outcome = Outcome(roles)
    log = log or ROOT / "build" / "class-progress.log"
    log.parent.mkdir(exist_ok=True)
    clock = time.monotonic()

    def lap(step: str) -> None:
        nonlocal clock
        outcome.seconds[step] = time.monotonic() - clock
        clock = time.monotonic()

    hub = Hub(prefix, cull_timeout=3600, log=log, place=folder)
    people = {role: Learner(name) for role, name in roles.items()}
    try:
        hub.wait()
        lap("hub up (environment current, course published)")
        pull_path = class_hub.pull_path(folder / "course.git")
        together(lambda x: (sign_in(hub, x), spawn_and_pull(hub, x, pull_path)), [*people.values()])
        failed = [f"{x.name}: {x.error}" for x in people.values() if x.error]
        if failed:
            raise RuntimeError("; ".join(failed))
        lap("three learners signed in, servers spawned, course pulled")

        def run_check(role: str, code: str) -> None:
            kernel = Kernel(hub, people[role], "progress.ipynb")
            try:
                text, error = kernel.run(code)
            finally:
                kernel.close()
            outcome.printed[role] = error or text.strip()

        together(lambda x: run_check(x.name.removeprefix(prefix), {"passes": PASSES,
                 "fails": FAILS}[x.name.removeprefix(prefix)]), [people["passes"], people["fails"]])  # fmt: skip
        lap("two learners ran check_cube in a kernel")
        for role, name in roles.items():
            path = Path(class_progress.home_of(name, False)[0]) / class_progress.PROGRESS
            outcome.files[role] = path.read_text() if path.exists() else None
        answer = people["passes"].session.get(f"{hub.base}{PAGE}", timeout=60)
        outcome.learner_page = (answer.status_code, 'id="progress"' in answer.text)
        teacher = Learner(hub.teacher)
        sign_in(hub, teacher, TEACHER_PASSWORD)
        page = teacher.session.get(f"{hub.base}{PAGE}", timeout=60)
        page.raise_for_status()
        rows = Rows()
        rows.feed(page.text)
        outcome.page = rows.rows
        lap("a learner refused the page, the teacher signed in and read it")
        printed = subprocess.run(
            [sys.executable, "-m", "tools.class_progress", f"--state={hub.state}"],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        outcome.command = printed.stdout
        lap("make class-progress printed its table")
    except Exception as error:  # reported: the table says what is missing
        outcome.error = f"{type(error).__name__}: {error}"
    finally:
        hub.stop()
        lap("hub stopped, users removed")
    return outcome


def report(outcome: Outcome) -> str:
    lines = [f"{'step':<62} {'s':>6}"]
    lines += [f"{step:<62} {s:>6.1f}" for step, s in outcome.seconds.items()]
    lines.append("")
    lines.append(f"{'learner':<11} {'check_cube printed':<18} {'page':<20} command")
    page, command = outcome.cube(outcome.page), outcome.cube(outcome.command_rows)
    for role, name in outcome.learners.items():
        said = outcome.printed.get(role, "-")
        lines.append(f"{role:<11} {said:<18} {page.get(name, '?'):<20} {command.get(name, '?')}")
    status, table = outcome.learner_page
    lines.append(f"a learner asking for the page: {status}, table shown: {table}")
    seen = [outcome.command, *map(str, outcome.page), *map(str, outcome.files.values())]
    lines.append(
        f"the learner's own code anywhere in files, page or table: {any(SECRET in s for s in seen)}"
    )
    if outcome.error:
        lines.append(f"failed: {outcome.error}")
    if outcome.command:
        lines += ["", "make class-progress printed:", outcome.command.rstrip()]
    return "\n".join(lines)


if __name__ == "__main__":
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--prefix", type=Path, default=PREFIX,
                     help="the class's folder (its environment is built there once)")  # fmt: skip
    args = ask.parse_args()
    if os.geteuid() != 0:
        sys.exit("the progress scenario creates Unix users: run it as root")
    print(report(class_progress_run(args.prefix)))
