"""`make class-progress` and the teacher's page read learners' verdicts, carefully (class_progress)."""

import os
import sqlite3
from datetime import UTC, datetime

import pytest

from lessons_lib import exercises
from lessons_lib.progress import verdict_line
from tools import class_progress as cp

MORNING = datetime(2026, 12, 2, 9, 5, tzinfo=UTC)


def test_the_table_has_a_column_for_every_self_check_of_the_course():
    checks = {name for name in exercises.__all__ if name.startswith("check_")}
    assert set(cp.COURSE_CHECKS) == checks and len(cp.COURSE_CHECKS) == len(checks)


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
    rows = [line.split() for line in text.splitlines()]
    assert rows[0] == ["learner", *(c.removeprefix("check_") for c in cp.COURSE_CHECKS)]
    at = 1 + cp.COURSE_CHECKS.index("check_cube")
    assert [row[at : at + 3] for row in rows[1:4]] == [
        ["4/4", "at", MORNING.astimezone().strftime("%H:%M")],
        ["1/4", "at", MORNING.astimezone().strftime("%H:%M")],
        ["-", "-", "-"],
    ]
    assert "dee: progress file not read (not theirs)" in text
    assert "all learners" in text and "1 of 4 passed" in text
    page = cp.as_html(found, MORNING)
    assert page.count("<tr>") == 1 + 4 + 1 and "<td class='not-yet'>1/4 at " in page
    assert "<td class='passed'>4/4 at " in page and "not theirs" in page


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
