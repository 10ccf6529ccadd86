"""A class on one machine under load: `make class`'s hub on loopback, N learners at once.

    python -m benchmarks.class_load --learners 8 [--cull-timeout 45] [--notebook PATH]

Starts the real hub (tools/class_hub.py, as `make class` does) on a free 127.0.0.1 port with
a state folder of its own and a unique prefix for its Unix users, then:
- N learners sign in at once (POST /hub/login); each server spawns as its own Unix user and
  pulls the course through nbgitpuller's API (from the local bare repository);
- each runs lesson 1's beginner notebook (--notebook for another) top to bottom through
  its own kernel (REST + websocket), while its Unix user's processes' memory is sampled
  from /proc (tools/lab_memory.py: pages held);
- every learner tries the next one's server through the hub with its own session, and its
  kernel tries to list the next one's home and to use the server's own hub token (read
  from /proc, as a learner could) for the hub's user list and the next one's server: each
  attempt must be refused;
- a kernel's environment is searched for the hub's tokens;
- the teacher (admin) opens the first learner's server; the first learner, in Chromium,
  moves an explorer's slider and sees the picture change;
- the first learner edits a course notebook (one cell) and makes files of their own in
  course/; a new course commit is published to the class's bare repository (from a
  temporary clone, as a teacher would), changing the same notebook elsewhere and on the
  very line the learner changed, another notebook, and adding a file where the learner has
  one (the learner also deletes a course file); the learner follows the learners' link
  again, and each of nbgitpuller's merging rules is checked (the branch is put back at the
  end);
- the last learner stays idle until the idle culler stops its server, signs in again, and
  finds both their own file and their edit to a course notebook after the pull (across
  that course update).
Everything it started is stopped, and its Unix users removed, whatever happens.
"""

import argparse
import contextlib
import json
import os
import pwd
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import requests
import websocket

from tools import class_hub, lab_memory

ROOT = class_hub.ROOT
LESSON = "01-custom-function/1-beginner.ipynb"  # in the course's notebooks/
EDITED = "course/notebooks/00-start-here.ipynb"  # the learner's edit nbgitpuller must keep
# The course update (a new commit on the class's course branch) also changes this notebook,
# and adds this file where the learner has made one of their own; OWN is the learner's
# other file in course/, which no course file touches.
UPDATED = "course/notebooks/02-checking-gradients/1-beginner.ipynb"
ADDED = "course/notebooks/notes.md"
OWN = "course/notebooks/my-work.py"
DELETED = "course/notebooks/teachers-guide.md"  # the learner deletes it; the pull restores it
MIB = 1 << 20
PASSWORD = "class-" + secrets.token_hex(6)
TEACHER_PASSWORD = secrets.token_hex(16)
EXPLORER_CELL = "from lessons_lib import RoundSTE, explore\nexplore(RoundSTE)"


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
class Outcome:
    learners: list[Learner]
    hub_proxy: int  # bytes, peak
    culled: tuple[int, int]
    teacher_opened: bool
    slider_ms: float | None
    kept_after_cull: bool
    update: "CourseUpdate | None"  # the re-pull across a new course commit
    course_restored: bool  # the bare repository's branch is back where the run found it
    log: Path
    user_prefix: str  # every Unix user of the run starts with it (all removed at the end)
    started: list[int]  # the hub's and the proxy's pids (all stopped at the end)

    @property
    def refused(self) -> tuple[int, int]:
        attempts = [r for learner in self.learners for r in learner.refusals]
        return sum(refused for _, refused, _ in attempts), len(attempts)

    @property
    def finished(self) -> int:
        return sum(learner.run_s is not None for learner in self.learners)


class Hub:
    """The class's hub, started as `make class` starts it; stopped with its users."""

    def __init__(self, prefix: str, cull_timeout: int, log: Path) -> None:
        self.prefix, self.log = prefix, log
        self.port = class_hub.free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.state = Path(tempfile.mkdtemp(prefix="class-state-"))
        self.teacher = f"{prefix}teacher"
        command = [
            sys.executable, "-m", "tools.class_hub", f"--port={self.port}",
            f"--state={self.state}", f"--teacher={self.teacher}", f"--password={PASSWORD}",
            f"--teacher-password={TEACHER_PASSWORD}", f"--cull-timeout={cull_timeout}",
            "--cull-every=5", "--activity-interval=5",
        ]  # fmt: skip
        with log.open("w") as out:
            self.process = subprocess.Popen(
                command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def wait(self, seconds: float = 300) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                if requests.get(f"{self.base}/hub/api/", timeout=5).status_code == 200:
                    return
            except requests.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the hub never answered:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.3)

    def proxy_pid(self) -> int | None:
        for pid in lab_memory.descendants(self.process.pid):
            try:
                if b"configurable-http-proxy" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
            except OSError:
                pass
        return None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # the hub stops servers, proxy, culler
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        for entry in pwd.getpwall():  # our users' leftover processes, then the users
            if entry.pw_name.startswith(self.prefix):
                subprocess.run(["pkill", "-KILL", "-u", entry.pw_name], check=False)
                subprocess.run(
                    ["userdel", "--remove", entry.pw_name], check=False, capture_output=True
                )
        subprocess.run(["rm", "-rf", str(self.state)], check=False)


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


def spawn_and_pull(hub: Hub, learner: Learner, pull_path: str) -> None:
    """Start the learner's server, wait until it is ready, then pull the course."""
    started = time.monotonic()
    api(learner, "POST", f"{hub.base}/hub/api/users/{learner.name}/server")
    deadline = started + 180
    while time.monotonic() < deadline:
        server = api(learner, "GET", f"{hub.base}/hub/api/users/{learner.name}").json()
        if server.get("servers", {}).get("", {}).get("ready"):
            break
        time.sleep(0.5)
    else:
        raise RuntimeError(f"{learner.name}'s server never became ready")
    learner.spawn_s = time.monotonic() - started
    pull(hub, learner, pull_path)


def pull(hub: Hub, learner: Learner, pull_path: str) -> None:
    """nbgitpuller's page pulls through this event stream (git-pull/api): read it to the end."""
    pulled = api(
        learner,
        "GET",
        f"{hub.base}/user/{learner.name}/{pull_path.replace('git-pull?', 'git-pull/api?')}",
    )
    if '"phase": "finished"' not in pulled.text:
        raise RuntimeError(f"{learner.name}'s pull did not finish: {pulled.text[-500:]}")


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

    def run(self, code: str) -> tuple[str, str | None]:
        """Run code; its printed text and its error's name (None if it ran)."""
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": "execute_request", "session": uuid.uuid4().hex,
                  "username": self.learner.name, "version": "5.3", "date": ""}  # fmt: skip
        self.ws.send(json.dumps({
            "header": header, "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
        }))  # fmt: skip
        text, error, replied, idle = [], None, False, False
        while not (replied and idle):
            msg = json.loads(unframed(self.ws.recv()))
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

    def close(self) -> None:
        self.ws.close()
        api(self.learner, "DELETE", f"{self.server}/api/sessions/{self.session['id']}")


def run_lesson(hub: Hub, learner: Learner, lesson: str = LESSON) -> None:
    """Lesson 1's beginner notebook, every code cell in order, in a fresh kernel."""
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
        kernel.close()


PROBE = """
import json, os, pwd, urllib.request
home = pwd.getpwnam({other!r}).pw_dir
try:
    os.listdir(home)
    home_result = "read"
except PermissionError as error:
    home_result = type(error).__name__
tokens = sorted(k for k in os.environ if "TOKEN" in k or "SECRET" in k)
# The strongest token a kernel can reach: its server's, read from /proc (same Unix user).
environ = open(f"/proc/{{os.getppid()}}/environ", "rb").read().split(b"\\0")
server_token = dict(e.decode().split("=", 1) for e in environ if b"=" in e)["JUPYTERHUB_API_TOKEN"]
def status(url):
    request = urllib.request.Request(url, headers={{"Authorization": "token " + server_token}})
    try:
        return urllib.request.urlopen(request, timeout=30).status
    except urllib.error.HTTPError as error:
        return error.code
print(json.dumps({{"home": home_result, "tokens": tokens,
    "users": status({base!r} + "/hub/api/users"),
    "other_server": status({base!r} + "/user/{other}/api/contents")}}))
"""


def isolation(hub: Hub, learner: Learner, other: Learner) -> None:
    """learner tries other's server (its session, its token) and home; notes each answer."""
    got = learner.session.get(f"{hub.base}/user/{other.name}/lab", allow_redirects=True, timeout=60)
    mine = f"/user/{learner.name}/" in got.url
    learner.refusals.append(
        ("server via hub, signed-in session", got.status_code == 403 or mine,
         f"{got.status_code} at {got.url.removeprefix(hub.base).split('?')[0]}")
    )  # fmt: skip
    by_token = api(learner, "GET", f"{hub.base}/user/{other.name}/api/contents")
    learner.refusals.append(
        ("server via hub, own API token", by_token.status_code == 403, str(by_token.status_code))
    )
    kernel = Kernel(hub, learner, "probe.ipynb")
    try:
        text, error = kernel.run(PROBE.format(other=other.name, base=hub.base))
    finally:
        kernel.close()
    if error:
        raise RuntimeError(f"{learner.name}'s probe raised {error}")
    found = json.loads(text.strip().splitlines()[-1])
    learner.kernel_env_tokens = found["tokens"]
    learner.refusals += [
        ("other's home from kernel", found["home"] == "PermissionError", found["home"]),
        ("hub user list with server's token", found["users"] == 403, str(found["users"])),
        ("other's server with server's token", found["other_server"] == 403, str(found["other_server"])),
    ]  # fmt: skip


def teacher_opens(hub: Hub, teacher: Learner, learner: Learner) -> bool:
    """The admin lists the learner's files through the learner's own server."""
    reply = api(teacher, "GET", f"{hub.base}/user/{learner.name}/api/contents/course")
    return reply.status_code == 200 and reply.json()["type"] == "directory"


def slider_in_chromium(hub: Hub, learner: Learner, pull_path: str) -> float | None:
    """The learner signs in in Chromium, runs an explorer, moves its slider: ms to picture."""
    from playwright.sync_api import sync_playwright

    from tools.notebooks import KERNELSPEC
    from tools.page_timing import key_to_picture

    notebook = {
        "cells": [{"cell_type": "code", "source": EXPLORER_CELL, "metadata": {},
                   "outputs": [], "execution_count": None}],
        "metadata": {"kernelspec": dict(KERNELSPEC)}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip
    server = f"{hub.base}/user/{learner.name}"
    api(learner, "PUT", f"{server}/api/contents/explorer.ipynb",
        json={"type": "notebook", "format": "json", "content": notebook}).raise_for_status()  # fmt: skip
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            # Signing in from the link the teacher hands out: the course pulled, JupyterLab at
            # the course map.
            link = quote(f"/hub/user-redirect/{pull_path}")
            page.goto(f"{hub.base}/hub/login?next={link}")
            page.fill("#username_input", learner.name)
            page.fill("#password_input", PASSWORD)
            page.click("#login_submit")
            try:
                page.wait_for_url(f"**/lab/tree/course/{class_hub.COURSE_MAP}", timeout=120_000)
            except Exception as error:
                raise RuntimeError(f"the learners' link ended at {page.url}") from error
            page.goto(f"{server}/lab/tree/explorer.ipynb?reset")
            page.locator(".jp-Notebook .jp-Cell").first.click()
            picture = page.locator(".explorer-picture[data-revision]")
            for _ in range(3):  # Shift+Enter before the kernel is ready may be lost
                page.keyboard.press("Shift+Enter")
                try:
                    picture.wait_for(timeout=40_000)
                    break
                except Exception:
                    page.locator(".jp-Notebook .jp-Cell").first.click()
            handle = page.locator(".lessons-explorer .noUi-handle").first
            return key_to_picture(handle, picture, "ArrowRight", "data-x", 10_000)
        finally:
            browser.close()


def git(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def notebook_text(notebook: dict) -> str:
    """A notebook as nbformat (so Jupyter's contents API) writes it; the course's are so."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def sources(notebook: dict) -> list[str]:
    """Each cell's source as one string (files hold lists of lines, the contents API strings)."""
    return [c["source"] if isinstance(c["source"], str) else "".join(c["source"])
            for c in notebook["cells"]]  # fmt: skip


def set_source(cell: dict, text: str) -> None:
    cell["source"] = text.splitlines(keepends=True)  # as nbformat splits it


def publish_update(repo: Path, tag: str) -> tuple[dict, dict, str]:
    """A new course commit on branch `course` of repo, made in a temporary clone.

    It changes EDITED's last cell and, on the very line a learner's edit touches, its first;
    another notebook (UPDATED); and adds a file (ADDED). Returns the three new versions.
    """
    with tempfile.TemporaryDirectory(prefix="course-update-") as folder:
        clone = Path(folder) / "course"
        git("clone", "--quiet", "--branch", class_hub.BRANCH, repo, clone)
        inside = lambda path: path.removeprefix("course/")  # noqa: E731
        start = json.loads((clone / inside(EDITED)).read_text(encoding="utf-8"))
        first, last = sources(start)[0], sources(start)[-1]
        set_source(start["cells"][0], f"{first} (Reworded in {tag}.)")  # the learner's line
        set_source(start["cells"][-1], f"{last}\n\nNew in {tag}: a change far from yours.")
        other = json.loads((clone / inside(UPDATED)).read_text(encoding="utf-8"))
        set_source(other["cells"][0], f"{sources(other)[0]}\n\nNew in {tag}.")
        notes = f"The course's notes, {tag}.\n"
        new = {EDITED: notebook_text(start), UPDATED: notebook_text(other), ADDED: notes}
        for path, text in new.items():
            (clone / inside(path)).write_text(text, encoding="utf-8")
        git("add", *map(inside, new), cwd=clone)
        git("-c", "user.name=class_load", "-c", "user.email=class-load@localhost", "commit",
            "--quiet", "-m", f"A course update ({tag})", cwd=clone)  # fmt: skip
        git("push", "--quiet", "origin", f"HEAD:refs/heads/{class_hub.BRANCH}", cwd=clone)
    subprocess.run(["chmod", "-R", "a+rX", repo], check=True)  # learners read it
    return start, other, notes


@dataclass
class CourseUpdate:
    learner: str
    seconds: float = 0.0  # the learner's edits, the new commit, the re-pull and the checks
    checks: dict[str, bool] = field(default_factory=dict)
    renamed: str | None = None  # where nbgitpuller put the learner's clashing file
    error: str | None = None

    @property
    def kept(self) -> bool:
        return self.error is None and bool(self.checks) and all(self.checks.values())


def course_update(hub: Hub, learner: Learner, pull_path: str, repo: Path, tag: str) -> CourseUpdate:
    """The learner edits, a new course commit is published, the learner follows the link again.

    nbgitpuller's rules (docs/topic/automatic-merging.md; pull.py: `git merge -Xours`, local
    untracked files renamed `name__YYYYmmddHHMMSS.ext` before a course file takes their
    place): the course's changes arrive where the learner changed nothing; where both
    changed the same lines, the learner's version is kept; files of their own stay; a
    course file they deleted comes back.
    """
    update = CourseUpdate(learner.name)
    started = time.monotonic()
    server = f"{hub.base}/user/{learner.name}"
    get = lambda path: api(learner, "GET", f"{server}/api/contents/{quote(path)}")  # noqa: E731

    def put(path: str, content: dict | str) -> None:
        kind = ("file", "text") if isinstance(content, str) else ("notebook", "json")
        api(learner, "PUT", f"{server}/api/contents/{quote(path)}",
            json={"type": kind[0], "format": kind[1], "content": content}).raise_for_status()  # fmt: skip

    def listing() -> set[str]:
        return {x["name"] for x in get("course/notebooks").json()["content"]}

    try:
        edited = get(EDITED).json()["content"]
        edited["cells"][0]["source"] += f"\n\nMy own edit, {tag}."
        put(EDITED, edited)
        put(OWN, "# my work\n")
        put(ADDED, "my notes\n")
        mine = sources(get(EDITED).json()["content"])
        before = listing()
        original = get(DELETED).json()["content"]
        api(learner, "DELETE", f"{server}/api/contents/{quote(DELETED)}").raise_for_status()
        start, other, notes = publish_update(repo, tag)
        # The learners' link, as a browser follows it: the hub sends the learner to their
        # own server's nbgitpuller page, whose script reads the pull's event stream.
        landed = learner.session.get(f"{hub.base}/hub/user-redirect/{pull_path}", timeout=60)
        on_page = landed.ok and f"/user/{learner.name}/git-pull?" in landed.url
        pull(hub, learner, pull_path)
        after = sources(get(EDITED).json()["content"])
        course = sources(start)
        added = listing() - before
        update.renamed = next(iter(added)) if len(added) == 1 else None
        aside = re.fullmatch(r"notes__\d{14}\.md", update.renamed or "")
        moved = aside and get(f"course/notebooks/{update.renamed}").json()["content"]
        ours = after[0] == mine[0] and f"Reworded in {tag}" not in after[0]
        clashing = bool(aside) and moved == "my notes\n" and get(ADDED).json()["content"] == notes
        update.checks = {
            "the learners' link led to the learner's own nbgitpuller page": on_page,
            "the learner's edited line kept (the course changed it too: theirs wins)": ours,
            "the course's change to another cell of that notebook arrived": after[-1] == course[-1],
            "the course's change to another notebook arrived": (
                sources(get(UPDATED).json()["content"]) == sources(other)
            ),
            "the learner's own file kept": get(OWN).json()["content"] == "# my work\n",
            "the course file the learner deleted came back": (
                get(DELETED).json().get("content") == original
            ),
            f"the learner's notes.md, a new course file's name, renamed {update.renamed}": clashing,
            "nothing lost: every other cell as the learner left it, every file still there": (
                after == [*mine[:-1], course[-1]] and listing() == before | added
            ),
        }
    except Exception as error:  # reported: the line says False
        update.error = f"{type(error).__name__}: {error}"
    update.seconds = time.monotonic() - started
    return update


class MemorySampler:
    """Peak memory of each learner's processes (their Unix user's) and of hub plus proxy."""

    def __init__(self, hub: Hub, learners: list[Learner]) -> None:
        self.hub, self.learners, self.hub_proxy = hub, learners, 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self) -> None:
        while not self.stopped.wait(1.0):
            owners: dict[int, list[int]] = {}
            for entry in lab_memory.PROC.iterdir():
                if entry.name.isdigit():
                    with contextlib.suppress(OSError):
                        owners.setdefault(entry.stat().st_uid, []).append(int(entry.name))
            for learner in self.learners:
                try:
                    uid = pwd.getpwnam(learner.name).pw_uid
                except KeyError:
                    continue
                if owners.get(uid):
                    used = lab_memory.usage(owners[uid]).total
                    learner.peak = max(learner.peak, used)
            pids = [self.hub.process.pid, self.hub.proxy_pid()]
            used = lab_memory.usage([p for p in pids if p]).total
            self.hub_proxy = max(self.hub_proxy, used)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=30)


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


def server_running(hub: Hub, teacher: Learner, name: str) -> bool:
    reply = api(teacher, "GET", f"{hub.base}/hub/api/users/{name}").json()
    return bool(reply.get("servers"))


def class_load(
    learners: int, cull_timeout: int = 45, log: Path | None = None, lesson: str = LESSON
) -> Outcome:
    """The whole class, as the module's docstring says; everything stopped at the end."""
    prefix = f"cl{secrets.token_hex(3)}"
    log = log or ROOT / "build" / "class-load.log"
    log.parent.mkdir(exist_ok=True)
    hub = Hub(prefix, cull_timeout, log)
    people = [Learner(f"{prefix}learner{i + 1}") for i in range(learners)]
    teacher = Learner(hub.teacher)
    sampler = None
    repo = class_hub.class_env.PREFIX / "course.git"
    found = None  # the course commit the hub published, put back at the end
    try:
        hub.wait()
        pull_path = class_hub.pull_path(repo)
        sampler = MemorySampler(hub, people)
        together(lambda x: (sign_in(hub, x), spawn_and_pull(hub, x, pull_path)), people)
        ready = [x for x in people if x.spawn_s is not None and not x.error]
        together(lambda x: run_lesson(hub, x, lesson), ready)
        idle = ready[-1] if len(ready) > 1 else None
        # The idle learner writes its file and edits a course notebook, then does nothing.
        if idle:
            server = f"{hub.base}/user/{idle.name}"
            api(idle, "PUT", f"{server}/api/contents/my-notes.txt",
                json={"type": "file", "format": "text", "content": "mine"}).raise_for_status()  # fmt: skip
            edited = api(idle, "GET", f"{server}/api/contents/{quote(EDITED)}").json()
            edited["content"]["cells"][0]["source"] += "\n\nMy own note."
            api(idle, "PUT", f"{server}/api/contents/{quote(EDITED)}",
                json={"type": "notebook", "format": "json", "content": edited["content"]})  # fmt: skip
        pairs = list(zip(ready, ready[1:] + ready[:1], strict=True)) if len(ready) > 1 else []
        others = dict(pairs)
        together(lambda x: isolation(hub, x, others[x]), [a for a, _ in pairs])
        sign_in(hub, teacher, TEACHER_PASSWORD)
        opened = bool(ready) and teacher_opens(hub, teacher, ready[0])
        slider = slider_in_chromium(hub, ready[0], pull_path) if ready else None
        update = None
        if ready:  # not the idle learner (with two or more): its server must stay idle
            found = git("-C", repo, "rev-parse", f"refs/heads/{class_hub.BRANCH}")
            update = course_update(hub, ready[0], pull_path, repo, prefix)
        culled, kept = (0, 0), False
        if idle:
            deadline = time.monotonic() + cull_timeout + 60
            while server_running(hub, teacher, idle.name) and time.monotonic() < deadline:
                time.sleep(1)
            gone = not server_running(hub, teacher, idle.name)
            culled = (int(gone), 1)
            if gone:  # signs in again: the course pulled again, their work still there
                idle.session = requests.Session()
                sign_in(hub, idle)
                spawn_and_pull(hub, idle, pull_path)
                server = f"{hub.base}/user/{idle.name}"
                notes = api(idle, "GET", f"{server}/api/contents/my-notes.txt").json()
                again = api(idle, "GET", f"{server}/api/contents/{quote(EDITED)}").json()
                kept = notes.get("content") == "mine" and "My own note." in json.dumps(again)
        sampler.stop()
        started = [hub.process.pid, hub.proxy_pid()]
        outcome = Outcome(
            people, sampler.hub_proxy, culled, opened, slider, kept, update, False, log,
            prefix, started,
        )  # fmt: skip
    finally:
        if sampler:
            sampler.stop()
        hub.stop()
        if found:  # the branch back where the hub published it (other runs publish HEAD)
            git("-C", repo, "update-ref", f"refs/heads/{class_hub.BRANCH}", found)
    outcome.course_restored = (
        found is None or git("-C", repo, "rev-parse", f"refs/heads/{class_hub.BRANCH}") == found
    )
    return outcome


def report(outcome: Outcome) -> str:
    """The table per learner, the attempts, and the last line the class needs."""
    lines = [f"{'learner':<22} {'spawn s':>8} {'run s':>8} {'peak MiB':>9}  note"]
    for x in outcome.learners:
        spawn = f"{x.spawn_s:.1f}" if x.spawn_s is not None else "-"
        run = f"{x.run_s:.1f}" if x.run_s is not None else "-"
        lines.append(f"{x.name:<22} {spawn:>8} {run:>8} {x.peak / MIB:>9.0f}  {x.error or ''}")
    lines.append("")
    lines.append("isolation attempts (each must be refused):")
    for x in outcome.learners:
        for what, refused, why in x.refusals:
            lines.append(f"  {x.name}: {what}: {'refused' if refused else 'ALLOWED'} ({why})")
        if x.kernel_env_tokens is not None:
            lines.append(
                f"  {x.name}: hub tokens in a kernel's environment: {x.kernel_env_tokens or 'none'}"
            )
    lines.append(f"teacher (admin) opened a learner's server: {outcome.teacher_opened}")
    moved = f"{outcome.slider_ms:.0f} ms" if outcome.slider_ms is not None else "no change seen"
    lines.append(f"Chromium: explorer slider moved, picture changed in {moved}")
    if (update := outcome.update) is not None:
        lines.append(f"re-pull after a course update ({update.learner}, {update.seconds:.1f} s):")
        lines += [f"  {what}: {ok}" for what, ok in update.checks.items()]
        if update.error:
            lines.append(f"  failed: {update.error}")
        lines.append(
            "re-pull after a course update kept the learner's edit and brought the new "
            f"change: {update.kept}"
        )
    lines.append(
        f"idle server culled, then the learner's file and edit kept: {outcome.kept_after_cull}"
    )
    spawns = [x.spawn_s for x in outcome.learners if x.spawn_s is not None]
    runs = [x.run_s for x in outcome.learners if x.run_s is not None]
    peaks = [x.peak for x in outcome.learners if x.peak]
    refused, attempts = outcome.refused
    median = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
    lines.append(
        f"class: {len(outcome.learners)} learners, {outcome.finished} finished, "
        f"spawn median {median(spawns):.1f} s, run median {median(runs):.1f} s, "
        f"peak {max(peaks, default=0) / MIB:.0f} MiB per learner, "
        f"hub+proxy {outcome.hub_proxy / MIB:.0f} MiB, refused {refused}/{attempts}, "
        f"culled {outcome.culled[0]}/{outcome.culled[1]}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--learners", type=int, default=3)
    ask.add_argument("--cull-timeout", type=int, default=45, help="seconds idle before culling")
    ask.add_argument(
        "--notebook", default=LESSON, help="the notebook each learner runs, in notebooks/"
    )
    args = ask.parse_args()
    if os.geteuid() != 0:
        sys.exit("the class load test creates Unix users: run it as root")
    print(report(class_load(args.learners, args.cull_timeout, lesson=args.notebook)))
