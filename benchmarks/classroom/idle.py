"""The idle culler: a learner leaves work behind, goes idle, is culled, comes back to it.

The last learner writes a file and edits a course notebook, then does nothing until the
idle culler stops their server; they sign in again and find both their own file and their
edit to a course notebook after the pull (across any course update in between).
"""

import json
import time
from urllib.parse import quote

import requests

from benchmarks.classroom.course_update import EDITED
from benchmarks.classroom.learners import (
    Learner,
    Room,
    api,
    server_running,
    sign_in,
    spawn_and_pull,
)


def leave_work(room: Room, idle: Learner) -> None:
    """The idle learner's file and edit to a course notebook; then nothing."""
    server = f"{room.hub.base}/user/{idle.name}"
    api(idle, "PUT", f"{server}/api/contents/my-notes.txt",
        json={"type": "file", "format": "text", "content": "mine"}).raise_for_status()  # fmt: skip
    edited = api(idle, "GET", f"{server}/api/contents/{quote(EDITED)}").json()
    edited["content"]["cells"][0]["source"] += "\n\nMy own note."
    api(idle, "PUT", f"{server}/api/contents/{quote(EDITED)}",
        json={"type": "notebook", "format": "json", "content": edited["content"]})  # fmt: skip


def culled_then_kept(
    room: Room, teacher: Learner, idle: Learner, cull_timeout: int
) -> tuple[tuple[int, int], bool]:
    """(culled, of 1) and whether, signed in again, the learner's work is all there."""
    hub = room.hub
    deadline = time.monotonic() + cull_timeout + 60
    while server_running(hub, teacher, idle.name) and time.monotonic() < deadline:
        time.sleep(1)
    gone = not server_running(hub, teacher, idle.name)
    if not gone:
        return (0, 1), False
    # Signs in again: the course pulled again, their work still there.
    idle.session = requests.Session()
    sign_in(hub, idle)
    spawn_and_pull(hub, idle, room.pull_path)
    server = f"{hub.base}/user/{idle.name}"
    notes = api(idle, "GET", f"{server}/api/contents/my-notes.txt").json()
    again = api(idle, "GET", f"{server}/api/contents/{quote(EDITED)}").json()
    return (1, 1), notes.get("content") == "mine" and "My own note." in json.dumps(again)
