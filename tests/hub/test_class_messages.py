"""`make class` refuses bad starts with one line and starts nothing (tools/class_hub.py)."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools import class_hub


def refusal(monkeypatch, *args: str, root: bool = True) -> str:
    monkeypatch.setattr(class_hub.os, "geteuid", lambda: 0 if root else 1000)
    monkeypatch.setattr(class_hub.class_env, "build", lambda *_: pytest.fail("built the env"))
    with pytest.raises(SystemExit) as stopped:
        class_hub.main(list(args))
    message = str(stopped.value.code)
    assert "\n" not in message
    return message


def test_without_root_it_says_what_to_do(monkeypatch):
    said = refusal(monkeypatch, root=False)
    assert "sudo make class" in said and "make class DEMO=1" in said


def test_a_taken_port_is_named_with_another_to_try(monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        said = refusal(monkeypatch, f"--port={port}")
    assert (
        said
        == f"port {port} on 127.0.0.1 is taken: choose another, e.g. make class PORT={port + 10}"
    )


def test_a_missing_proxy_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(class_hub, "PROXY", tmp_path / "configurable-http-proxy")
    monkeypatch.setattr(class_hub, "port_taken", lambda port: False)
    assert "npm ci --prefix hub" in refusal(monkeypatch)


def test_the_learners_link_pulls_the_course_and_opens_the_course_map(tmp_path):
    path = class_hub.pull_path(tmp_path / "course.git")
    assert path.startswith("git-pull?repo=file%3A//" + str(tmp_path))
    assert "&branch=course&targetpath=course&" in path
    assert path.endswith("&urlpath=lab/tree/course/notebooks/00-start-here.ipynb")


# Holds the prefix as `make class` does, then becomes another program (as it becomes the hub).
HOLD_THEN_EXEC = """
import os, sys
from pathlib import Path
from tools import class_hub
class_hub.hold(Path(sys.argv[1]), 8123)
os.execv("/bin/sleep", ["sleep", "60"])
"""


def test_a_prefix_whose_hub_runs_is_refused_naming_the_process(monkeypatch, tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THEN_EXEC, str(tmp_path)], cwd=class_hub.ROOT
    )
    try:
        deadline = time.monotonic() + 30
        while Path(f"/proc/{holder.pid}/cmdline").read_bytes() != b"sleep\x0060\x00":
            assert time.monotonic() < deadline, "the holder never became sleep"
            time.sleep(0.05)
        monkeypatch.setattr(class_hub, "port_taken", lambda port: False)
        (tmp_path / "proxy").touch()
        monkeypatch.setattr(class_hub, "PROXY", tmp_path / "proxy")
        said = refusal(monkeypatch, f"--prefix={tmp_path}")
    finally:
        holder.kill()
        holder.wait()
    assert said == (
        f"a class's hub is already running on {tmp_path}: process {holder.pid} (sleep 60), "
        f"port 8123. Stop it first (Ctrl-C where it runs, or kill {holder.pid}), or give "
        f"this class its own prefix: make class CLASS_ARGS='--prefix {tmp_path}-2'"
    )
    os.close(class_hub.hold(tmp_path, 8124))  # once that process has gone, the prefix is free
