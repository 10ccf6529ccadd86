"""`make class-progress` and the teacher's page read learners' verdicts, carefully (class_progress)."""

import json
import os
import re
import sqlite3
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchmarks.classroom.progress import Progress, Rows
from lessons_lib import exercises
from lessons_lib.progress import verdict_line
from tools import class_progress as cp

MORNING = datetime(2026, 12, 2, 9, 5, tzinfo=UTC)
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHECKS = {name for name in exercises.__all__ if name.startswith("check_")}


def test_the_table_has_a_column_for_every_self_check_of_the_course():
    assert set(cp.COURSE_CHECKS) == CHECKS and len(cp.COURSE_CHECKS) == len(CHECKS)


def calls(notebook: Path) -> list[tuple[str, str, str]]:
    """Each self-check a code cell calls: (check, the notebook's title, the section it is in)."""
    found, title, section = [], "", ""
    for cell in json.loads(notebook.read_text())["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for line in text.splitlines():
                if line.startswith("# ") and not title:
                    title = line.removeprefix("# ")
                elif line.startswith("## "):
                    section = line.removeprefix("## ")
            continue
        for check in sorted(set(re.findall(r"\b(check_\w+)\(", text)) & CHECKS):
            found.append((check, title, section))
    return found


def test_each_column_is_named_by_the_notebook_and_part_that_call_its_check():
    called = defaultdict(set)  # check -> (notebook, its title, the section calling it)
    for notebook in NOTEBOOKS.rglob("*.ipynb"):
        for check, title, section in calls(notebook):
            called[check].add((notebook.relative_to(NOTEBOOKS).as_posix(), title, section))
    course_map = json.loads((NOTEBOOKS / "00-start-here.ipynb").read_text())["cells"]
    lessons = ["".join(cell["source"]) for cell in course_map]
    for column in cp.COLUMNS:
        if column.part == "task":  # the beginner track's own "Your turn"
            assert column.title == f"Lesson {column.lesson}, beginner track"
            assert column.notebook.startswith(f"{column.lesson:02d}-")
            assert column.notebook.endswith("/1-beginner.ipynb")
            title, section = "(beginner track)", "Your turn: "
        else:  # an exercise's part, the exercise in its lesson's section of the course map
            title, section = f"Exercise: {column.title.lower()}", f"{column.part}: "
            (lesson,) = [text for text in lessons if text.startswith(f"## Lesson {column.lesson}:")]
            assert f"(exercises/{Path(column.notebook).name})" in lesson
        for where, its_title, its_section in called.pop(column.check):
            assert where == column.notebook, column
            assert its_title.lower().endswith(title.lower()), column
            assert its_section.startswith(section), (column, its_section)
    assert dict(called) == {}  # no column, or none for a check the notebooks call


def test_the_latest_line_of_each_check_wins_and_anything_else_is_skipped():
    text = "\n".join(
        [
            verdict_line("check_cube", 1, 4, MORNING),
            '{"check": "check_cube", "passed": 3',  # torn
            verdict_line("check_cube", 4, 4, MORNING.replace(minute=9)),
            verdict_line("check_everything", 9, 9, MORNING),  # not a course check
            verdict_line("check_spike", 7, 5, MORNING),  # more passed than there are
            '{"check": "check_nudge", "passed": true, "total": 1, "time": "2026-12-02T09:05:00+00:00"}',
            '{"check": "check_nudge", "passed": 1, "total": 1, "time": "09:05"}',  # no zone
            "<script>alert(1)</script>",
        ]
    )
    assert cp.parse(text) == {"check_cube": cp.Verdict(4, 4, MORNING.replace(minute=9))}


def test_only_a_regular_file_of_the_learners_own_is_read(tmp_path):
    mine = tmp_path / "progress.jsonl"
    mine.write_text(verdict_line("check_cube", 4, 4, MORNING) + "\n")
    assert cp.parse(cp.read_owned(mine, os.getuid()))
    with pytest.raises(OSError):
        cp.read_owned(mine, os.getuid() + 1)  # someone else's
    link = tmp_path / "link.jsonl"
    link.symlink_to(mine)
    with pytest.raises(OSError):
        cp.read_owned(link, os.getuid())
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError):  # and never blocks
        cp.read_owned(fifo, os.getuid())


def test_a_huge_file_is_read_from_its_end_whole_lines_only(tmp_path):
    path = tmp_path / "progress.jsonl"
    old = verdict_line("check_cube", 1, 4, MORNING) + "\n"
    with path.open("w") as out:
        out.write(old * (cp.READ_AT_MOST // len(old) + 10))
        out.write(verdict_line("check_spike", 5, 5, MORNING) + "\n")
    text = cp.read_owned(path, os.getuid())
    assert len(text) < cp.READ_AT_MOST
    assert set(cp.parse(text)) == {"check_cube", "check_spike"}


@pytest.fixture
def a_class(tmp_path, monkeypatch):
    """A hub's database with a teacher and three learners, and their homes: one passed
    check_cube, one failed it, one never ran a check; a fourth's file is not theirs."""
    database = tmp_path / "jupyterhub.sqlite"
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, admin BOOLEAN)")
        db.executemany(
            "INSERT INTO users (name, admin) VALUES (?, ?)",
            [("teacher", 1), ("ada", 0), ("bo", 0), ("cy", 0), ("dee", 0)],
        )
    lines = {"ada": ("check_cube", 4, 4), "bo": ("check_cube", 1, 4), "dee": ("check_cube", 4, 4)}
    for name, (check, passed, total) in lines.items():
        path = tmp_path / name / ".lessons" / "progress.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(verdict_line(check, passed, total, MORNING) + "\n")
    os.chown(tmp_path / "dee" / ".lessons" / "progress.jsonl", 65534, 65534)  # not dee's
    monkeypatch.setattr(cp, "home_of", lambda name, demo: (tmp_path / name, os.getuid()))
    return database


def test_the_table_lists_each_learner_and_their_latest_verdicts(a_class):
    found = cp.learners(a_class)
    assert [x.name for x in found] == ["ada", "bo", "cy", "dee"]  # not the teacher
    text = cp.as_text(found, MORNING)
    assert "dee: progress file not read (not theirs)" in text
    assert "all learners" in text and "1 of 4 passed" in text
    page = cp.as_html(found, MORNING)
    assert page.count("<tr>") == 1 + 4 + 1 and "<td class='not-yet'>1/4 at " in page
    assert "<td class='passed'>4/4 at " in page and "not theirs" in page
    # As the class load test reads them (benchmarks/classroom/progress.py): a header, a row
    # per learner, the summary; the learner first, then a cell per check.
    seen = Progress({x.name: "" for x in found}, command=text)
    rows = Rows()
    rows.feed(page)
    for table in (seen.command_rows, rows.rows):
        assert [row[0] for row in table] == ["learner", "ada", "bo", "cy", "dee", "all learners"]
        assert {len(row) for row in table} == {1 + len(cp.COLUMNS)}
        assert seen.cube(table) == {"ada": "4/4", "bo": "1/4", "cy": "-", "dee": "-"}
    assert seen.command_rows[0][1:] == [c.short for c in cp.COLUMNS]
    assert rows.rows[0][1:] == [c.title + c.part + c.check for c in cp.COLUMNS]


def test_each_column_is_named_for_the_teacher_beside_its_checks_own_name():
    column = cp.COLUMNS[cp.COURSE_CHECKS.index("check_spike")]
    assert (column.name, column.short) == ("Choose your surrogate · Part 1", "L3 ex. Part 1")
    assert (
        '<th scope="col" title="notebooks/exercises/choose-your-surrogate.ipynb">'
        "Choose your surrogate<br>Part 1<br><code>check_spike</code></th>"
    ) in cp.as_html([], MORNING)
    legend = cp.as_text([], MORNING).split("\nColumns:\n")[1].splitlines()[: len(cp.COLUMNS)]
    assert [[cell.strip() for cell in line.split("  ") if cell] for line in legend] == [
        [c.short, c.name, c.check] for c in cp.COLUMNS
    ]


def test_the_command_says_what_to_do_in_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cp.os, "geteuid", lambda: 1000)
    with pytest.raises(SystemExit) as stopped:
        cp.main([])
    assert "sudo make class-progress" in str(stopped.value.code)
    monkeypatch.setattr(cp.os, "geteuid", lambda: 0)
    with pytest.raises(SystemExit) as stopped:
        cp.main([f"--prefix={tmp_path}"])
    said = str(stopped.value.code)
    assert said.startswith(f"no class hub's database at {tmp_path}/state/jupyterhub.sqlite")
    assert "\n" not in said


def test_the_command_prints_the_table(a_class, capsys, monkeypatch):
    monkeypatch.setattr(cp.os, "geteuid", lambda: 0)
    cp.main([f"--state={a_class.parent}"])
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].split()[0] == "learner"
    assert printed.endswith(cp.LEGEND + "\n")
