"""`make help` names every command a user runs, each with what it does."""

import re
import subprocess

from tests.lab_server import ROOT

INTERNAL = {"binder-ahead", "binder-link"}  # a step of `make test`; an old name of `links`


def phony_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return {name for line in re.findall(r"^\.PHONY: (.+)$", text, re.M) for name in line.split()}


def test_help_lists_every_command_with_a_note():
    shown = subprocess.run(
        ["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
    ).stdout.splitlines()
    listed = {}
    for line in shown:
        found = re.fullmatch(r"  make (\S+) +(\S.*)", line)
        assert found, f"not a command and its note: {line!r}"
        listed[found[1]] = found[2]
    assert set(listed) == phony_targets() - INTERNAL
