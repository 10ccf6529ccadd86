"""`make class-progress`: each learner's latest verdict on each of the course's self-checks.

    python -m tools.class_progress [--prefix /srv/lessons-class] [--state DIR] [--demo]

The learners are the class hub's users who are not admins (its database,
PREFIX/state/jupyterhub.sqlite, read only). A learner's verdicts are the lines their own
kernels appended to ~/.lessons/progress.jsonl (lessons_lib/progress.py): a check's name,
checks passed of total, and when; the file holds no code, and nothing else is read. The
teacher's page on the hub (hub/progress_service.py) shows the same table. Its columns are
the course's self-checks (COLUMNS), each named by its notebook and part: on the page in
full, above the check's own name; here by a short header (`L3 ex. Part 1`) that a legend
under the table spells out.

The file lives in the learner's home, so a learner can write it: a verdict here is what
their kernel reported, good for seeing who is stuck where, not for grades (`make nbgrader`).
It is read as root, carefully: only a regular file the learner owns (no symlink, no FIFO),
its last 256 KiB, and only lines naming one of the course's checks with sane counts.
Standard library only: it runs with the machine's python3, as `make class` does.
"""

import argparse
import html
import json
import os
import pwd
import sqlite3
import stat
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

PREFIX = Path("/srv/lessons-class")  # tools/class_env.py's; not imported: it is all we need
PROGRESS = Path(".lessons") / "progress.jsonl"  # lessons_lib/progress.py's, in each home
DEMO_HOME = "/tmp/lessons-demo-{name}"  # hub/jupyterhub_config.py's for `make class DEMO=1`
READ_AT_MOST = 256 * 1024  # the newest lines; a class writes a few KiB per learner


@dataclass(frozen=True)
class Column:
    """A column of the table: a self-check, named as the teacher knows it (its notebook and part)."""

    check: str  # its code name, as the learner calls it and their progress file records it
    lesson: int
    notebook: str  # under notebooks/: where the learner calls it
    title: str  # that notebook's, as the course map names it
    part: str  # "task" (a beginner track's own) or an exercise's "Part 1", "Part 2"

    @property
    def name(self) -> str:
        """The teacher's name for it: "Choose your surrogate · Part 1"."""
        return f"{self.title} · {self.part}"

    @property
    def short(self) -> str:
        """The command's column header, as narrow as its cells: "L3 ex. Part 1"."""
        return f"L{self.lesson} {self.part if self.part == 'task' else 'ex. ' + self.part}"


# The course's self-checks in the course map's order: each lesson's beginner task, then its
# exercise's Parts 1 and 2 (tests/test_class_progress.py holds it equal to the notebooks).
COLUMNS = (
    Column("check_straight_through", 1, "01-custom-function/1-beginner.ipynb", "Lesson 1, beginner track", "task"),
    Column("check_cube", 1, "exercises/your-own-backward-pass.ipynb", "Your own backward pass", "Part 1"),
    Column("check_cube_grad", 1, "exercises/your-own-backward-pass.ipynb", "Your own backward pass", "Part 2"),
    Column("check_nudge", 2, "02-checking-gradients/1-beginner.ipynb", "Lesson 2, beginner track", "task"),
    Column("check_edge_test", 2, "exercises/check-your-clamp01.ipynb", "Check your Clamp01", "Part 1"),
    Column("check_my_checks", 2, "exercises/check-your-clamp01.ipynb", "Check your Clamp01", "Part 2"),
    Column("check_spike", 3, "exercises/choose-your-surrogate.ipynb", "Choose your surrogate", "Part 1"),
    Column("check_my_surrogate_tests", 3, "exercises/choose-your-surrogate.ipynb", "Choose your surrogate", "Part 2"),
)  # fmt: skip
COURSE_CHECKS = tuple(column.check for column in COLUMNS)
NEVER = "-"
LEGEND = (
    "Each cell: the latest run of that check, checks passed of total, and when; "
    f"{NEVER} never run; 'wrong argument': the check was given something that is not an answer."
)


@dataclass(frozen=True)
class Verdict:
    passed: int
    total: int
    time: datetime

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.passed == self.total

    def text(self, today: datetime) -> str:
        counts = f"{self.passed}/{self.total}" if self.total else "wrong argument"
        local = self.time.astimezone()  # the machine's time zone, as its clock shows
        same_day = local.date() == today.astimezone().date()
        when = local.strftime("%H:%M" if same_day else "%d %b %H:%M")
        return f"{counts} at {when}"


@dataclass
class Learner:
    name: str
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    unreadable: str = ""  # why their file was not read (it is not theirs, not a file, ...)


def parse(text: str) -> dict[str, Verdict]:
    """The latest verdict of each course check in a progress file's text (later lines win)."""
    latest: dict[str, Verdict] = {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
            check, passed, total = entry["check"], entry["passed"], entry["total"]
            when = datetime.fromisoformat(entry["time"])
        except (ValueError, TypeError, KeyError):
            continue  # a torn or foreign line: skipped, never shown
        counts = (passed, total)
        if check not in COURSE_CHECKS or not all(type(n) is int for n in counts):
            continue
        if 0 <= passed <= total <= 1000 and when.tzinfo is not None:
            latest[check] = Verdict(passed, total, when)
    return latest


def read_owned(path: Path, owner: int) -> str:
    """The end of `path`, if it is a regular file owned by `owner`; else raise OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != owner:
            raise OSError(f"{path} is not a file of the learner's own")
        start = max(0, info.st_size - READ_AT_MOST)
        os.lseek(fd, start, os.SEEK_SET)
        data = os.read(fd, READ_AT_MOST)
    finally:
        os.close(fd)
    text = data.decode("utf-8", errors="replace")
    return text.split("\n", 1)[-1] if start else text  # drop a line cut in half


def home_of(name: str, demo: bool) -> tuple[Path, int]:
    """A learner's home and the user who must own their progress file."""
    if demo:  # every learner runs as the hub's own user, in /tmp (never a class)
        return Path(DEMO_HOME.format(name=name)), os.getuid()
    entry = pwd.getpwnam(name)
    return Path(entry.pw_dir), entry.pw_uid


def learner_names(database: Path) -> list[str]:
    """The hub's users who are not admins, by name."""
    uri = f"file:{database}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        found = db.execute("SELECT name FROM users WHERE NOT admin ORDER BY name").fetchall()
    return [name for (name,) in found]


def learners(database: Path, demo: bool = False) -> list[Learner]:
    """Every learner of the hub, with their latest verdicts (none when they never checked)."""
    found = []
    for name in learner_names(database):
        learner = Learner(name)
        try:
            home, owner = home_of(name, demo)
            learner.verdicts = parse(read_owned(home / PROGRESS, owner))
        except FileNotFoundError:
            pass  # never ran a check (or never started a server)
        except (KeyError, OSError) as error:
            learner.unreadable = "no Unix user" if isinstance(error, KeyError) else "not theirs"
        found.append(learner)
    return found


def cells(learner: Learner, today: datetime) -> list[str]:
    verdicts = learner.verdicts
    return [verdicts[c].text(today) if c in verdicts else NEVER for c in COURSE_CHECKS]


def summary(found: list[Learner]) -> list[str]:
    """Per check: how many learners passed every one of its checks."""
    return [
        f"{sum(c in x.verdicts and x.verdicts[c].complete for x in found)} of {len(found)} passed"
        for c in COURSE_CHECKS
    ]


def aligned(rows: list[list[str]]) -> list[str]:
    """Rows as lines, each column as wide as its widest cell, two spaces between columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    return [line.rstrip() for line in lines]


def as_text(found: list[Learner], today: datetime | None = None) -> str:
    """The table for a terminal: a row per learner, a column per check, then a summary; under
    it, what each column's short header stands for (its notebook and part, and the check)."""
    today = today or datetime.now(UTC)
    rows = [["learner", *(c.short for c in COLUMNS)]]
    rows += [[x.name, *cells(x, today)] for x in found]
    rows.append(["all learners", *summary(found)])
    notes = [f"{x.name}: progress file not read ({x.unreadable})" for x in found if x.unreadable]
    columns = aligned([[c.short, c.name, c.check] for c in COLUMNS])
    return "\n".join(
        [*aligned(rows), *notes, "Columns:", *(f"  {line}" for line in columns), LEGEND]
    )


def as_html(found: list[Learner], today: datetime | None = None) -> str:
    """The same table as an HTML fragment (every text escaped)."""
    today = today or datetime.now(UTC)

    def row(tag: str, values: list[str], kinds: list[str] | None = None) -> str:
        kinds = kinds or [""] * len(values)
        return (
            "<tr>"
            + "".join(
                f"<{tag}{f' class={kind!r}' if kind else ''}>{html.escape(v)}</{tag}>"
                for v, kind in zip(values, kinds, strict=True)
            )
            + "</tr>"
        )

    def kinds(learner: Learner) -> list[str]:  # the page colours them (hub/progress_service.py)
        verdicts = learner.verdicts
        return [
            "",
            *(
                "" if c not in verdicts else "passed" if verdicts[c].complete else "not-yet"
                for c in COURSE_CHECKS
            ),
        ]

    body = [row("td", [x.name, *cells(x, today)], kinds(x)) for x in found]
    body.append(row("th", ["all learners", *summary(found)]))
    notes = "".join(
        f"<p>{html.escape(x.name)}: progress file not read ({html.escape(x.unreadable)})</p>"
        for x in found
        if x.unreadable
    )
    header = "".join(  # the teacher's name, then the check's own, as the learner calls it
        f'<th scope="col" title="notebooks/{html.escape(c.notebook)}">{html.escape(c.title)}'
        f"<br>{html.escape(c.part)}<br><code>{html.escape(c.check)}</code></th>"
        for c in COLUMNS
    )
    table = (
        f'<table id="progress"><thead><tr><th scope="col">learner</th>{header}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )
    return table + notes + f"<p>{html.escape(LEGEND)}</p>"


def main(argv: list[str] | None = None) -> None:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--prefix", type=Path, default=PREFIX, help="the class's folder")
    ask.add_argument("--state", type=Path, help="the hub's database and secrets (PREFIX/state)")
    ask.add_argument("--demo", action="store_true", help="a class started with make class DEMO=1")
    args = ask.parse_args(argv)
    if os.geteuid() != 0 and not args.demo:
        sys.exit(
            "make class-progress reads every learner's private home (mode 0700): "
            "run it as root, `sudo make class-progress`."
        )
    prefix = args.prefix
    if args.demo and not os.access(prefix.parent, os.W_OK):
        prefix = Path.home() / ".lessons-class"  # where `make class DEMO=1` put it
    database = (args.state or prefix / "state") / "jupyterhub.sqlite"
    if not database.is_file():
        sys.exit(
            f"no class hub's database at {database}: start a class with `make class`, "
            "or name its folder: make class-progress CLASS_PREFIX=... (or --prefix, --state)."
        )
    print(as_text(learners(database, args.demo)))


if __name__ == "__main__":
    main()
