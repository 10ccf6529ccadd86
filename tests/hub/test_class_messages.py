"""`make class` refuses bad starts with one line and starts nothing (tools/class_hub.py)."""

import socket

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
