"""A learner of the class load run (benchmarks/classroom/learners.py), against a stand-in hub."""

import json
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import requests

from benchmarks.classroom import learners
from benchmarks.classroom.hub import CULL_EVERY
from benchmarks.classroom.learners import Learner, awake, spawn_and_pull


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
    monkeypatch.setattr(learners.time, "sleep", lambda seconds: asked.append(("sleep", seconds)))
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
        ("sleep", 0.5),
        ("POST", "users/learner3/server"),
        ("GET", "users/learner3"),
    ]
    assert learner.spawn_s is not None


def server(idle_s: float, ready: bool = True) -> bytes:
    """The hub's answer about a learner whose server was last active idle_s ago."""
    last = (datetime.now(UTC) - timedelta(seconds=idle_s)).isoformat()
    return json.dumps({"servers": {"": {"ready": ready, "last_activity": last}}}).encode()


def room(cull_timeout: int) -> SimpleNamespace:
    return SimpleNamespace(hub=SimpleNamespace(base="http://hub", cull_timeout=cull_timeout))


def test_a_server_idle_nearly_a_timeout_is_looked_at_after_the_cullers_next_look(monkeypatch):
    """The culler decided on what it read before the learner's news: a server idle for
    21 of 20 seconds may be stopped just after it, so readiness is asked after its next look."""
    asked = replies(monkeypatch, [(200, server(21)), (200, b""), (200, server(0))])
    awake(room(20), Learner("learner2"))
    assert asked == [
        ("GET", "users/learner2"),
        ("POST", "users/learner2/activity"),
        ("sleep", CULL_EVERY + 1),
        ("GET", "users/learner2"),
    ]


def test_a_server_active_lately_is_not_waited_for(monkeypatch):
    asked = replies(monkeypatch, [(200, server(3)), (200, b""), (200, server(0))])
    awake(room(20), Learner("learner1"))
    assert ("sleep", CULL_EVERY + 1) not in asked
