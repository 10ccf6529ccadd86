"""Every self-check records its verdict in the learner's home, never their code (progress.py)."""

import json
import stat

import pytest
import torch

import lessons_lib
from lessons_lib import exercises, progress

CHECKS = [name for name in exercises.__all__ if name.startswith("check_")]
SECRET = "a-learners-own-comment-7f3a"  # in the learner's code below: must never be recorded


class Cube(torch.autograd.Function):  # the starter's mistake: backward forgets grad_out
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 3 * x**2  # a-learners-own-comment-7f3a


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A learner's home, recording switched on (tests/conftest.py switches it off)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv(progress.SWITCH)
    return tmp_path


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_check_appends_its_name_counts_and_time_and_nothing_else(home):
    verdict = lessons_lib.check_cube(Cube)
    lessons_lib.check_cube(lessons_lib.Cube)
    path = home / ".lessons" / "progress.jsonl"
    first, second = lines(path)
    assert set(first) == {"check", "passed", "total", "time"}
    assert (first["check"], first["passed"], first["total"]) == ("check_cube", 2, 4)
    assert (verdict.checks_passed, verdict.checks_total) == (2, 4)
    assert (second["passed"], second["total"]) == (4, 4)
    assert first["time"].endswith("+00:00")
    text = path.read_text()
    assert SECRET not in text and "grad_out" not in text and "Cube" not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("name", CHECKS)
def test_every_public_check_records_in_one_place(home, name):
    check = getattr(lessons_lib, name)
    assert check is getattr(exercises, name) and check.__wrapped__.__name__ == name
    check()  # nothing passed: the one-line refusal, recorded as 0 of 0
    (entry,) = lines(home / ".lessons" / "progress.jsonl")
    assert (entry["check"], entry["passed"], entry["total"]) == (name, 0, 0)


def test_a_home_that_cannot_be_written_costs_the_learner_nothing(home, capsys):
    (home / ".lessons").write_text("a file where the folder should be")
    verdict = lessons_lib.check_cube(lessons_lib.Cube)
    assert verdict.ok
    assert capsys.readouterr() == ("", "")


def test_off_records_nothing_and_a_path_records_there(home, monkeypatch, tmp_path):
    monkeypatch.setenv(progress.SWITCH, "off")
    lessons_lib.check_cube(lessons_lib.Cube)
    assert not (home / ".lessons").exists()
    elsewhere = tmp_path / "elsewhere" / "verdicts.jsonl"
    monkeypatch.setenv(progress.SWITCH, str(elsewhere))
    lessons_lib.check_cube(lessons_lib.Cube)
    assert [x["check"] for x in lines(elsewhere)] == ["check_cube"]


def test_the_wrapper_keeps_the_checks_name_help_and_signature():
    import inspect

    check = lessons_lib.check_spike
    original = check.__wrapped__
    assert check.__name__ == "check_spike" and check.__doc__ == original.__doc__
    assert inspect.signature(check) == inspect.signature(original)
