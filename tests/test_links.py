"""`make links` turns the clone's GitHub origin into Binder, Colab and class hub links."""

import os
import re
import subprocess
from pathlib import Path

import pytest

from tools.links import (
    ROOT,
    badge,
    binder_url,
    colab_badge,
    colab_url,
    github_repo,
    main,
    naming_origin,
    notebooks,
    report,
)

LINK = "https://mybinder.org/v2/gh/ada/backward-course/HEAD?urlpath=lab/tree/notebooks/00-start-here.ipynb"


@pytest.mark.parametrize(
    "remote",
    [
        "https://github.com/ada/backward-course",
        "https://github.com/ada/backward-course.git",
        "https://github.com/ada/backward-course/",
        "http://github.com/ada/backward-course.git",
        "https://ada@github.com/ada/backward-course.git",
        "git@github.com:ada/backward-course.git",
        "git@github.com:ada/backward-course",
        "ssh://git@github.com/ada/backward-course.git",
        "ssh://git@github.com:22/ada/backward-course",
        "git://github.com/ada/backward-course.git",
    ],
)
def test_every_form_of_a_github_remote_names_the_same_repository(remote):
    assert github_repo(remote) == ("ada", "backward-course")


def test_a_repository_name_may_hold_dots_and_only_a_final_dot_git_is_dropped():
    assert github_repo("git@github.com:ada/course.git.io.git") == ("ada", "course.git.io")


@pytest.mark.parametrize(
    "remote",
    [
        "https://gitlab.com/ada/backward-course.git",
        "git@bitbucket.org:ada/backward-course.git",
        "/srv/git/backward-course.git",
        "https://github.com/ada",
        "https://github.com.evil.example/ada/backward-course",
    ],
)
def test_a_remote_not_on_github_gives_no_repository(remote):
    assert github_repo(remote) is None


def test_the_link_builds_the_ref_and_opens_the_course_map_in_jupyterlab():
    assert binder_url("ada", "backward-course") == LINK
    assert binder_url("ada", "backward-course", "feature/binder") == LINK.replace(
        "/HEAD?", "/feature%2Fbinder?"
    )
    assert badge(LINK) == f"[![Launch on Binder](https://mybinder.org/badge_logo.svg)]({LINK})"


def git(cwd: Path, *args: str) -> None:
    who = ["-c", "user.name=course", "-c", "user.email=course@example.org"]
    subprocess.run(["git", *who, *args], cwd=cwd, check=True, capture_output=True)


def touch(root: Path, *paths: str) -> None:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("{}")


@pytest.fixture
def clone(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "start")
    touch(tmp_path, "notebooks/00-start-here.ipynb", "notebooks/01-lesson/1-beginner.ipynb")
    return tmp_path


def test_a_clone_without_origin_is_told_in_one_line_what_the_links_need(clone):
    text, status = report(clone, hub="https://hub.example.edu")
    assert status == 1 and "\n" not in text
    assert text.startswith("No links: this clone has no origin.")
    assert "GitHub" in text and "(git remote add origin https://github.com/OWNER/REPO.git)" in text
    assert "set-url" not in text


def test_a_clone_whose_origin_is_not_on_github_is_told_so(clone):
    git(clone, "remote", "add", "origin", "https://gitlab.com/ada/backward-course.git")
    text, status = report(clone)
    assert status == 1 and "\n" not in text
    assert "origin is https://gitlab.com/ada/backward-course.git, not on GitHub" in text
    assert "(git remote set-url origin https://github.com/OWNER/REPO.git)" in text
    assert "remote add" not in text


@pytest.mark.parametrize("origin", [None, "/srv/git/backward-course.git"])
def test_the_advised_command_names_origin_with_or_without_one(clone, origin):
    """Run as advised, it works: add fails where origin exists, set-url where it does not."""
    if origin:
        git(clone, "remote", "add", "origin", origin)
    command = naming_origin(clone, "git@github.com:ada/backward-course.git").split()
    assert command[:3] == ["git", "remote", "set-url" if origin else "add"]
    git(clone, *command[1:])
    text, status = report(clone)
    assert status == 0 and text.startswith(f"Binder link: {LINK}\n")


def test_a_branch_not_on_origin_links_to_the_default_branch(clone):
    git(clone, "remote", "add", "origin", "git@github.com:ada/backward-course.git")
    text, status = report(clone)
    assert status == 0 and text.startswith(f"Binder link: {LINK}\n")
    assert f"\nREADME badges: {badge(LINK)} [![Open In Colab]" in text


def test_a_branch_tracking_origin_links_to_that_branch(clone):
    git(clone, "remote", "add", "origin", "https://github.com/ada/backward-course")
    git(clone, "update-ref", "refs/remotes/origin/lesson-2", "HEAD")
    git(clone, "branch", "-q", "--set-upstream-to=origin/lesson-2")
    text, status = report(clone)
    assert status == 0
    assert f"Binder link: {LINK.replace('/HEAD?', '/lesson-2?')}" in text


COLAB = "https://colab.research.google.com/github/ada/backward-course/blob"
HUB = "https://hub.example.edu"


def colab_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.startswith("  https://colab.")]


def line_starting(text: str, start: str) -> str:
    [line] = [line for line in text.splitlines() if line.startswith(start)]
    return line.removeprefix(start)


def track(clone: Path, branch: str) -> None:
    git(clone, "update-ref", f"refs/remotes/origin/{branch}", "HEAD")
    git(clone, "branch", "-q", f"--set-upstream-to=origin/{branch}")


@pytest.mark.parametrize(
    "remote",
    [
        "https://github.com/ada/backward-course",
        "https://github.com/ada/backward-course.git",
        "git@github.com:ada/backward-course.git",
        "ssh://git@github.com/ada/backward-course",
    ],
)
def test_every_notebook_gets_a_colab_link_from_https_and_ssh_remotes(clone, remote):
    git(clone, "remote", "add", "origin", remote)
    track(clone, "main")
    text, status = report(clone)
    assert status == 0 and "Note:" not in text
    assert colab_lines(text) == [
        f"{COLAB}/main/notebooks/00-start-here.ipynb",
        f"{COLAB}/main/notebooks/01-lesson/1-beginner.ipynb",
    ]
    course_map = f"{COLAB}/main/notebooks/00-start-here.ipynb"
    badges = line_starting(text, "README badges: ")
    assert badges.endswith(f" {colab_badge(course_map)}")
    assert colab_badge(course_map) == (
        "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
        f"({course_map})"
    )


def test_a_branch_with_a_slash_stays_a_path_for_colab_and_one_segment_for_binder(clone):
    git(clone, "remote", "add", "origin", "https://github.com/ada/backward-course.git")
    track(clone, "feature/colab")
    text, _ = report(clone)
    assert colab_lines(text)[0] == f"{COLAB}/feature/colab/notebooks/00-start-here.ipynb"
    assert "/backward-course/feature%2Fcolab?urlpath=" in line_starting(text, "Binder link: ")


def test_colab_paths_are_quoted_segment_by_segment_and_checkpoints_are_left_out(clone):
    touch(clone, "notebooks/my notes/a#b.ipynb", "notebooks/.ipynb_checkpoints/x-checkpoint.ipynb")
    assert notebooks(clone) == [
        "notebooks/00-start-here.ipynb",
        "notebooks/01-lesson/1-beginner.ipynb",
        "notebooks/my notes/a#b.ipynb",
    ]
    url = colab_url("ada", "backward-course", "fix#1", "notebooks/my notes/a#b.ipynb")
    assert url == f"{COLAB}/fix%231/notebooks/my%20notes/a%23b.ipynb"


def notebooks_on_disk(root: Path) -> list[str]:
    found = []
    for folder, subfolders, files in os.walk(root / "notebooks"):
        subfolders[:] = [name for name in subfolders if name != ".ipynb_checkpoints"]
        found += [Path(folder, name) for name in files if name.endswith(".ipynb")]
    return sorted(path.relative_to(root).as_posix() for path in found)


def test_every_notebook_of_the_course_is_listed_course_map_first(clone):
    on_disk = notebooks_on_disk(ROOT)
    assert len(on_disk) > 1 and on_disk[0] == "notebooks/00-start-here.ipynb"
    touch(clone, *on_disk)
    git(clone, "remote", "add", "origin", "https://github.com/ada/backward-course")
    track(clone, "main")
    listed = [url.removeprefix(f"{COLAB}/main/") for url in colab_lines(report(clone)[0])]
    assert listed == notebooks_on_disk(clone) and set(on_disk) <= set(listed)


def test_off_origin_colab_and_the_hub_use_origins_default_branch_when_git_knows_it(clone):
    git(clone, "remote", "add", "origin", "https://github.com/ada/backward-course")
    git(clone, "update-ref", "refs/remotes/origin/trunk", "HEAD")
    git(clone, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    text, _ = report(clone, hub=HUB)
    assert line_starting(text, "Binder link: ") == LINK
    assert colab_lines(text)[0] == f"{COLAB}/trunk/notebooks/00-start-here.ipynb"
    assert "&branch=trunk&" in line_starting(text, "Class hub link: ")
    assert "Note:" not in text


def test_off_origin_without_a_known_default_colab_guesses_main_and_says_so(clone):
    git(clone, "remote", "add", "origin", "https://github.com/ada/backward-course")
    text, _ = report(clone, hub=HUB)
    assert colab_lines(text)[0] == f"{COLAB}/main/notebooks/00-start-here.ipynb"
    note = line_starting(text, "Note: ")
    assert "guess branch main" in note and "git remote set-head origin --auto" in note
    # nbgitpuller finds the default branch itself: the hub link need not guess.
    assert "branch=" not in line_starting(text, "Class hub link: ")


def test_the_hub_link_pulls_the_course_into_its_folder_and_opens_the_course_map(clone):
    git(clone, "remote", "add", "origin", "git@github.com:ada/backward-course.git")
    track(clone, "feature/x")
    link = line_starting(report(clone, hub=HUB + "/")[0], "Class hub link: ")
    assert link == (
        f"{HUB}/hub/user-redirect/git-pull?repo=https%3A//github.com/ada/backward-course"
        "&branch=feature/x&urlpath=lab/tree/backward-course/notebooks/00-start-here.ipynb"
    )


def test_the_kubernetes_hub_link_pulls_the_course_from_the_hubs_image(clone):
    """hub/z2jh's image holds the course it was built from: its link names no GitHub branch."""
    git(clone, "remote", "add", "origin", "git@github.com:ada/backward-course.git")
    track(clone, "feature/x")
    link = line_starting(report(clone, hub=HUB + "/")[0], "Kubernetes class hub link ")
    assert link.endswith(
        f": {HUB}/hub/user-redirect/git-pull?repo=file%3A///srv/lessons&branch=course"
        "&urlpath=lab/tree/lessons/notebooks/00-start-here.ipynb"
    )
    assert "Kubernetes" not in report(clone)[0]


def test_without_a_hub_one_line_says_how_to_get_its_link(clone):
    git(clone, "remote", "add", "origin", "git@github.com:ada/backward-course.git")
    hint = line_starting(report(clone)[0], "Class hub link: ")
    assert "make links HUB=https://your-hub" in hint and "git-pull" not in hint


@pytest.mark.parametrize(
    "hub", ["hub.example.edu", "ftp://hub.example.edu", "https://", "", f"{HUB}/?next=x"]
)
def test_a_hub_that_is_not_an_http_address_is_refused_in_one_line(hub, capsys):
    assert main(["--hub", hub]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.count("\n") == 1
    assert said.err.startswith("--hub needs the hub's http(s) address") and repr(hub) in said.err


@pytest.mark.parametrize("target, hub", [("links", None), ("binder-link", None), ("links", HUB)])
def test_make_links_and_its_old_name_print_the_report_for_this_clone(target, hub):
    text, status = report(ROOT, hub)
    command = ["make", "-s", target, *([f"HUB={hub}"] if hub else [])]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    said = done.stderr if status else done.stdout
    assert said.startswith(text + "\n") and (done.returncode == 0) == (status == 0)


def test_make_passes_hub_on_and_a_bad_one_is_refused():
    command = ["make", "-s", "links", "HUB=ftp://hub.example.edu"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.startswith("--hub needs the hub's http(s) address")


def test_the_readmes_example_is_what_make_links_prints(clone):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## On Binder and Colab", 1)[1].split("\n## ", 1)[0]
    example = re.search(r"\n```\n(Binder link: .*?)\n```", section, re.DOTALL)[1]
    touch(clone, *notebooks_on_disk(ROOT))
    git(clone, "remote", "add", "origin", "git@github.com:ada/backward-course.git")
    git(clone, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(clone, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    printed = report(clone)[0].splitlines()
    shown = [line for line in example.splitlines() if line.strip() != "..."]
    assert shown == [line for line in printed if line in shown]
    assert printed[0] == shown[0] and printed[-2:] == shown[-2:]
