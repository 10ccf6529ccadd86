"""`make binder-link` turns the clone's GitHub origin into a Binder link that opens the course map."""

import subprocess
from pathlib import Path

import pytest

from tools.binder_link import ROOT, badge, binder_url, github_repo, report

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


@pytest.fixture
def clone(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "start")
    return tmp_path


def test_a_clone_without_origin_is_told_in_one_line_what_binder_needs(clone):
    text, status = report(clone)
    assert status == 1 and "\n" not in text
    assert text.startswith("No Binder link: this clone has no origin.")
    assert "GitHub" in text and "git remote add origin" in text


def test_a_clone_whose_origin_is_not_on_github_is_told_so(clone):
    git(clone, "remote", "add", "origin", "https://gitlab.com/ada/backward-course.git")
    text, status = report(clone)
    assert status == 1 and "\n" not in text
    assert "origin is https://gitlab.com/ada/backward-course.git, not on GitHub" in text


def test_a_branch_not_on_origin_links_to_the_default_branch(clone):
    git(clone, "remote", "add", "origin", "git@github.com:ada/backward-course.git")
    assert report(clone) == (f"Binder link: {LINK}\nREADME badge: {badge(LINK)}", 0)


def test_a_branch_tracking_origin_links_to_that_branch(clone):
    git(clone, "remote", "add", "origin", "https://github.com/ada/backward-course")
    git(clone, "update-ref", "refs/remotes/origin/lesson-2", "HEAD")
    git(clone, "branch", "-q", "--set-upstream-to=origin/lesson-2")
    text, status = report(clone)
    assert status == 0
    assert f"Binder link: {LINK.replace('/HEAD?', '/lesson-2?')}" in text


def test_make_binder_link_prints_the_report_for_this_clone():
    text, status = report(ROOT)
    done = subprocess.run(["make", "-s", "binder-link"], cwd=ROOT, capture_output=True, text=True)
    assert (done.stderr if status else done.stdout).splitlines()[: len(text.splitlines())] == (
        text.splitlines()
    )
    assert (done.returncode == 0) == (status == 0)
