"""The teacher sees progress: before the class runs a lesson, the first learner runs
check_cube on the course's right Cube (4 of 4 checks pass), the second on the starter's
Cube, whose backward forgets grad_out (2 of 4), with a comment of their own that must show
up nowhere, and the others never run a check. A learner asks for the teacher's page
(/services/progress/: the hub must refuse), the teacher (admin) opens it, and
`python -m tools.class_progress` (`make class-progress`) prints its table: both must show
exactly those rows.
"""

import subprocess
import sys
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from benchmarks.classroom.hub import ROOT, TEACHER_PASSWORD
from benchmarks.classroom.learners import Kernel, Learner, Room, sign_in, together
from tools import class_progress

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
class Progress:
    learners: dict[str, str]  # Unix name -> role: "passes", "fails", "never"
    printed: dict[str, str] = field(default_factory=dict)  # role -> what its check printed
    files: dict[str, str | None] = field(default_factory=dict)  # name -> its progress file
    learner_page: tuple[int, bool] = (0, False)  # a learner's answer, and whether a table came
    page: list[list[str]] = field(default_factory=list)  # the teacher's, row by row
    command: str = ""  # what `make class-progress` printed
    seconds: float = 0.0
    error: str | None = None

    def cube(self, rows: list[list[str]]) -> dict[str, str]:
        """Each learner's check_cube cell without its time, and whether all else is never run."""
        at = 1 + class_progress.COURSE_CHECKS.index("check_cube")
        found = {}
        for row in rows:
            if row and row[0] in self.learners:
                rest = row[1:at] + row[at + 1 :]
                never = all(cell == class_progress.NEVER for cell in rest)
                found[row[0]] = row[at].split(" at ")[0] + ("" if never else " (and more)")
        return found

    @property
    def expected(self) -> dict[str, str]:
        return {
            name: {"passes": "4/4", "fails": "2/4"}.get(role, class_progress.NEVER)
            for name, role in self.learners.items()
        }

    @property
    def command_rows(self) -> list[list[str]]:
        width = len(class_progress.COURSE_CHECKS) + 1
        rows = []
        for line in self.command.splitlines():
            cells = [c.strip() for c in line.split("  ") if c.strip()]
            if len(cells) == width:
                rows.append(cells)
        return rows


def progress(room: Room) -> Progress | None:
    """The scenario of the module's docstring (3 learners or more), before any lesson runs."""
    if len(room.ready) < 3:
        return None
    roles = ["passes", "fails"] + ["never"] * (len(room.ready) - 2)
    run = Progress({x.name: role for x, role in zip(room.ready, roles, strict=True)})
    started = time.monotonic()
    try:

        def run_check(learner: Learner, code: str) -> None:
            kernel = Kernel(room.hub, learner, "progress.ipynb")
            try:
                text, error = kernel.run(code)
            finally:
                kernel.close()
            run.printed[run.learners[learner.name]] = error or text.strip()

        together(lambda x: run_check(*x), [(room.ready[0], PASSES), (room.ready[1], FAILS)])
        for name in run.learners:
            path = Path(class_progress.home_of(name, False)[0]) / class_progress.PROGRESS
            run.files[name] = path.read_text() if path.exists() else None
        answer = room.ready[0].session.get(f"{room.hub.base}{PAGE}", timeout=60)
        run.learner_page = (answer.status_code, 'id="progress"' in answer.text)
        teacher = Learner(room.hub.teacher)
        sign_in(room.hub, teacher, TEACHER_PASSWORD)
        page = teacher.session.get(f"{room.hub.base}{PAGE}", timeout=60)
        page.raise_for_status()
        rows = Rows()
        rows.feed(page.text)
        run.page = rows.rows
        printed = subprocess.run(
            [sys.executable, "-m", "tools.class_progress", f"--state={room.hub.state}"],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        run.command = printed.stdout
    except Exception as error:  # reported: the lines say what is missing
        run.error = f"{type(error).__name__}: {error}"
    run.seconds = time.monotonic() - started
    return run


def progress_lines(run: Progress) -> list[str]:
    """A line per learner: role, what its check printed, its cell on the page and in the
    command; then the refusal and whether the learner's own words showed up anywhere."""
    lines = [f"the teacher's progress ({run.seconds:.1f} s):"]
    lines.append(f"  {'learner':<22} {'role':<7} {'printed':<8} {'page':<12} command")
    page, command = run.cube(run.page), run.cube(run.command_rows)
    for name, role in run.learners.items():
        said = run.printed.get(role, "-") if role != "never" else "-"
        lines.append(
            f"  {name:<22} {role:<7} {said:<8} {page.get(name, '?'):<12} {command.get(name, '?')}"
        )
    status, table = run.learner_page
    lines.append(f"  a learner asking for the page: {status}, table shown: {table}")
    seen = [run.command, *map(str, run.page), *map(str, run.files.values())]
    lines.append(f"  the learner's own code in a file, the page or the table: "
                 f"{any(SECRET in s for s in seen)}")  # fmt: skip
    if run.error:
        lines.append(f"  failed: {run.error}")
    return lines
