"""Where the notebooks' launch buttons point: the repository, read from SITE_REPOSITORY or
from origin as site/launch_links.py reads it, and why a build has none."""

import importlib
import re
import subprocess
from pathlib import Path

from tests.lab_server import ROOT
from tests.site.build import (
    NO_BUTTONS,
    NO_BUTTONS_EMPTY_SETTING,
    REPOSITORY,
    TO_ADD_THEM,
    build_site,
    load_site_module,
)


def load_launch_links():
    return load_site_module("launch_links")


def test_make_site_says_why_a_clone_without_a_github_origin_gets_no_launch_buttons():
    site_tool = importlib.import_module("tools.site")
    origin = subprocess.run(
        ["git", "remote", "get-url", "origin"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    on_github = re.search(r"github\.com[:/]", origin) is not None
    expected = None if on_github else f"{NO_BUTTONS}this clone has no GitHub origin{TO_ADD_THEM}"
    assert site_tool.no_launch_buttons(None) == expected
    assert site_tool.no_launch_buttons("") == NO_BUTTONS_EMPTY_SETTING
    assert site_tool.no_launch_buttons(REPOSITORY) is None


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_the_repository_is_origin_on_github_as_make_links_reads_it(tmp_path):
    launch = load_launch_links()
    git(tmp_path, "init", "-q")
    assert launch.repository(None, None, cwd=tmp_path) is None, "no origin: no buttons"
    git(tmp_path, "remote", "add", "origin", "/srv/git/backward-course.git")
    assert launch.repository(None, None, cwd=tmp_path) is None, "origin not on GitHub"
    git(tmp_path, "remote", "set-url", "origin", "git@github.com:ada/backward-course.git")
    found = launch.repository(None, None, cwd=tmp_path)
    assert (found.owner, found.name, found.binder_ref, found.branch) == (
        "ada",
        "backward-course",
        "HEAD",
        None,
    )
    assert launch.repository("", None, cwd=tmp_path) is None, "an empty setting: none"
    named = launch.repository(REPOSITORY, "spring", cwd=tmp_path)
    assert (named.binder_ref, named.branch) == ("spring", "spring")


def test_a_repository_setting_not_on_github_is_refused(tmp_path):
    done = build_site(ROOT, tmp_path / "site", SITE_REPOSITORY="https://gitlab.com/ada/course")
    assert done.returncode != 0
    assert "SITE_REPOSITORY='https://gitlab.com/ada/course' is not a GitHub" in done.stderr
