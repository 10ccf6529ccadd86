"""A learner of the class: signs in, spawns, pulls the course, runs a notebook in a kernel."""

import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import requests
import websocket

from benchmarks.classroom.hub import CULL_EVERY, PASSWORD, Hub

LESSON = "01-custom-function/1-beginner.ipynb"  # in the course's notebooks/


@dataclass(eq=False)  # each learner is one person: hashed by identity
class Learner:
    name: str
    session: requests.Session = field(default_factory=requests.Session)
    token: str = ""
    spawn_s: float | None = None
    run_s: float | None = None
    error: str | None = None
    peak: int = 0  # bytes, server plus kernels
    refusals: list[tuple[str, bool, str]] = field(default_factory=list)  # what, refused, why
    kernel_env_tokens: list[str] | None = None


@dataclass
class Room:
    """What a scenario acts in: the hub, the learners whose servers are ready, the course."""

    hub: Hub
    ready: list[Learner]  # signed in, spawned and pulled
    pull_path: str  # the learners' link's nbgitpuller path
    repo: Path  # the class's bare course repository
    prefix: str  # every Unix user of the run starts with it


def sign_in(hub: Hub, learner: Learner, password: str = PASSWORD) -> None:
    """The login form, as a browser posts it; then an API token of the learner's own."""
    s = learner.session
    s.get(f"{hub.base}/hub/login", timeout=30)
    xsrf = s.cookies.get("_xsrf", path="/hub/")
    reply = s.post(
        f"{hub.base}/hub/login?next=",
        data={"username": learner.name, "password": password, "_xsrf": xsrf},
        allow_redirects=False,
        timeout=60,
    )
    if reply.status_code != 302:
        raise RuntimeError(f"sign-in of {learner.name} answered {reply.status_code}")
    xsrf = s.cookies.get("_xsrf", path="/hub/")  # a new one, bound to the new session
    made = s.post(
        f"{hub.base}/hub/api/users/{learner.name}/tokens",
        json={"note": "class_load"},
        headers={"X-XSRFToken": xsrf},
        timeout=30,
    )
    made.raise_for_status()
    learner.token = made.json()["token"]


def api(learner: Learner, method: str, url: str, **kwargs) -> requests.Response:
    headers = {"Authorization": f"token {learner.token}"}
    return requests.request(method, url, headers=headers, timeout=120, **kwargs)


def server_record(hub: Hub, learner: Learner) -> dict:
    """The hub's record of the learner's server ({} if it has none), as the learner's own
    token sees it."""
    me = api(learner, "GET", f"{hub.base}/hub/api/users/{learner.name}").json()
    return me.get("servers", {}).get("") or {}


def server_ready(hub: Hub, learner: Learner) -> bool:
    """Whether the hub says the learner's server is running and ready (not starting or
    stopping)."""
    return bool(server_record(hub, learner).get("ready"))


def spawn_and_pull(hub: Hub, learner: Learner, pull_path: str) -> None:
    """Start the learner's server, wait until it is ready, then pull the course."""
    started = time.monotonic()
    deadline = started + 180
    # A server the idle culler is stopping cannot be started until it has stopped: the hub
    # answers 400 "... is pending stop" meanwhile, so ask again.
    while (
        "is pending stop"
        in api(learner, "POST", f"{hub.base}/hub/api/users/{learner.name}/server").text
        and time.monotonic() < deadline
    ):
        time.sleep(0.5)
    while time.monotonic() < deadline:
        if server_ready(hub, learner):
            break
        time.sleep(0.5)
    else:
        raise RuntimeError(f"{learner.name}'s server never became ready")
    learner.spawn_s = time.monotonic() - started
    pull(hub, learner, pull_path)


def awake(room: Room, learner: Learner) -> None:
    """The learner's server running, and left alone by the idle culler (a short timeout in
    the tests) for a whole timeout from now: its activity told to the hub first, as the
    server itself does every few seconds; then started again if the culler had stopped it
    (or is stopping it). The culler judges what it read up to CULL_EVERY seconds before:
    a server idle nearly a whole timeout may be culled after the news, so that look is
    waited for first."""
    hub = room.hub
    last = server_record(hub, learner).get("last_activity")
    now = datetime.now(UTC)
    idle_s = (now - datetime.fromisoformat(last)).total_seconds() if last else None
    api(learner, "POST", f"{hub.base}/hub/api/users/{learner.name}/activity",
        json={"servers": {"": {"last_activity": now.isoformat()}}})  # fmt: skip
    if idle_s is not None and idle_s > hub.cull_timeout - CULL_EVERY:
        time.sleep(CULL_EVERY + 1)  # the culler's look after the news
    if not server_ready(hub, learner):
        again = Learner(learner.name, learner.session, learner.token)  # their spawn time kept
        spawn_and_pull(hub, again, room.pull_path)


def wake(room: Room) -> None:
    """Every ready learner awake (above), at once: before a scenario that needs their
    servers, however long the scenarios before it took."""
    together(lambda x: awake(room, x), room.ready)


def pull(hub: Hub, learner: Learner, pull_path: str) -> None:
    """nbgitpuller's page pulls through this event stream (git-pull/api): read it to the end."""
    pulled = api(
        learner,
        "GET",
        f"{hub.base}/user/{learner.name}/{pull_path.replace('git-pull?', 'git-pull/api?')}",
    )
    if '"phase": "finished"' not in pulled.text:
        raise RuntimeError(f"{learner.name}'s pull did not finish: {pulled.text[-500:]}")


def server_running(hub: Hub, teacher: Learner, name: str) -> bool:
    reply = api(teacher, "GET", f"{hub.base}/hub/api/users/{name}").json()
    return bool(reply.get("servers"))


def unframed(frame: str | bytes) -> str | bytes:
    """A kernel message's JSON: a frame with binary buffers (a widget's) holds it first."""
    if isinstance(frame, str):
        return frame
    parts = int.from_bytes(frame[:4], "big")
    offsets = [int.from_bytes(frame[4 + 4 * i : 8 + 4 * i], "big") for i in range(parts)]
    return frame[offsets[0] : offsets[1] if parts > 1 else None]


class Kernel:
    """A kernel of the learner's server, driven through its REST and websocket API."""

    def __init__(self, hub: Hub, learner: Learner, path: str) -> None:
        server = f"{hub.base}/user/{learner.name}"
        made = api(learner, "POST", f"{server}/api/sessions",
                   json={"path": path, "type": "notebook", "kernel": {"name": "python3"}})  # fmt: skip
        made.raise_for_status()
        self.session, self.learner, self.server = made.json(), learner, server
        kernel_id = self.session["kernel"]["id"]
        self.ws = websocket.create_connection(
            f"ws://127.0.0.1:{hub.port}/user/{learner.name}/api/kernels/{kernel_id}/channels",
            header=[f"Authorization: token {learner.token}"],
            timeout=300,
        )

    def send(self, code: str) -> str:
        """Start running code; the request's id (run() waits for its reply)."""
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": "execute_request", "session": uuid.uuid4().hex,
                  "username": self.learner.name, "version": "5.3", "date": ""}  # fmt: skip
        self.ws.send(json.dumps({
            "header": header, "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
        }))  # fmt: skip
        return msg_id

    def run(self, code: str) -> tuple[str, str | None]:
        """Run code; its printed text and its error's name (None if it ran)."""
        msg_id = self.send(code)
        text, error, replied, idle = [], None, False, False
        while not (replied and idle):
            msg = json.loads(unframed(self.ws.recv()))
            state = msg["content"].get("execution_state") if msg["msg_type"] == "status" else None
            if state in ("restarting", "autorestarting", "dead"):
                raise RuntimeError(f"{self.learner.name}'s kernel died ({state})")
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                text.append(content["text"])
            elif kind == "error":
                error = content["ename"]
            elif kind == "execute_reply":
                replied = True
                if content["status"] != "ok":
                    error = error or content.get("ename", content["status"])
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
        return "".join(text), error

    def interrupt(self) -> None:
        kernel = self.session["kernel"]["id"]
        api(self.learner, "POST", f"{self.server}/api/kernels/{kernel}/interrupt")

    def close(self) -> None:
        self.ws.close()
        api(self.learner, "DELETE", f"{self.server}/api/sessions/{self.session['id']}")


def run_lesson(
    hub: Hub, learner: Learner, lesson: str = LESSON, ran: Callable[[], None] | None = None
) -> None:
    """Lesson 1's beginner notebook, every code cell in order, in a fresh kernel; then
    ran() (if given: it may wait, the kernel kept open meanwhile, as a learner keeps it)."""
    server = f"{hub.base}/user/{learner.name}"
    path = f"course/notebooks/{lesson}"
    notebook = api(learner, "GET", f"{server}/api/contents/{quote(path)}").json()["content"]
    started = time.monotonic()
    kernel = Kernel(hub, learner, path)
    try:
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                _, error = kernel.run(cell["source"])
                if error:
                    raise RuntimeError(f"{learner.name}: lesson cell raised {error}")
        learner.run_s = time.monotonic() - started
    finally:
        if ran is not None:
            ran()
        kernel.close()


def together(work: Callable[[Learner], None], learners: list[Learner]) -> None:
    """work(learner) for every learner at once; a failure is noted on its learner."""

    def guarded(learner: Learner) -> None:
        try:
            work(learner)
        except Exception as error:  # noted, reported in the table
            learner.error = learner.error or f"{type(error).__name__}: {error}"

    threads = [threading.Thread(target=guarded, args=(x,)) for x in learners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
