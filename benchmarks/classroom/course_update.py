"""A pull across a new course commit keeps the learner's work, by nbgitpuller's rules.

The first learner edits a course notebook (one cell) and makes files of their own in
course/; a new course commit is published to the class's bare repository (from a
temporary clone, as a teacher would), changing the same notebook elsewhere and on the very
line the learner changed, another notebook, and adding a file where the learner has one
(the learner also deletes a course file); the learner follows the learners' link again,
and each of nbgitpuller's merging rules is checked.
"""

import json
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from benchmarks.classroom.hub import Hub
from benchmarks.classroom.learners import Learner, api, pull
from tools import class_hub

EDITED = "course/notebooks/00-start-here.ipynb"  # the learner's edit nbgitpuller must keep
# The course update (a new commit on the class's course branch) also changes this notebook,
# and adds this file where the learner has made one of their own; OWN is the learner's
# other file in course/, which no course file touches.
UPDATED = "course/notebooks/02-checking-gradients/1-beginner.ipynb"
ADDED = "course/notebooks/notes.md"
OWN = "course/notebooks/my-work.py"
DELETED = "course/notebooks/teachers-guide.md"  # the learner deletes it; the pull restores it


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
