"""A learner of the class load run (benchmarks/classroom/learners.py), against a stand-in hub."""

from types import SimpleNamespace

import requests

from benchmarks.classroom import learners
from benchmarks.classroom.learners import Learner, spawn_and_pull


def replies(monkeypatch, answers: list[tuple[int, bytes]]) -> list[tuple[str, str]]:
    """Each API request answered, in order, from answers; the requests made, kept."""
    asked = []

    def api(_learner, method: str, url: str, **_kwargs) -> requests.Response:
        asked.append((method, url.rsplit("/hub/api/", 1)[-1]))
        reply = requests.Response()
        reply.status_code, reply._content = answers.pop(0)
        return reply

    monkeypatch.setattr(learners, "api", api)
    monkeypatch.setattr(learners, "pull", lambda *_: None)
    monkeypatch.setattr(learners.time, "sleep", lambda _: None)
    return asked


def test_a_server_the_culler_is_stopping_is_started_once_it_has_stopped(monkeypatch):
    """The hub refuses a start while the idle culler's stop is pending; the learner asks
    again rather than waiting for a server that was never started."""
    ready = b'{"servers": {"": {"ready": true}}}'
    asked = replies(
        monkeypatch,
        [(400, b'{"message": "learner3 is pending stop"}'), (201, b""), (200, ready)],
    )
    learner = Learner("learner3")
    spawn_and_pull(SimpleNamespace(base="http://hub"), learner, "git-pull?repo=x")
    assert asked == [
        ("POST", "users/learner3/server"),
        ("POST", "users/learner3/server"),
        ("GET", "users/learner3"),
    ]
    assert learner.spawn_s is not None
