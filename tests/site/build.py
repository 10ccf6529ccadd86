"""Building sites for the tests: `make site` itself, tools/site.py on a course folder, a copy
of the course to break, and one of site/'s extensions loaded on its own."""

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.lab_server import ROOT
from tools.site import OUT, stage

SITE = OUT["students"]  # where `make site` writes each edition
REPOSITORY = "https://github.com/ada/backward-course"
HUB = "https://hub.example.edu"
NO_BUTTONS = "No launch buttons (Binder, Colab) on the notebooks' pages: "
TO_ADD_THEM = "; set SITE_REPOSITORY=https://github.com/OWNER/REPO to add them."
NO_BUTTONS_EMPTY_SETTING = f"{NO_BUTTONS}SITE_REPOSITORY is empty{TO_ADD_THEM}"
# Sphinx colours its warnings where CI=true or FORCE_COLOR is set; the tests
# read them line by line, as a terminal without colour shows them.
PLAIN = {"NO_COLOR": "1"}


def build_site(
    course: Path, out: Path, edition: str = "students", **env: str
) -> subprocess.CompletedProcess:
    where = ["--course", str(course), "--out", str(out)]
    return subprocess.run(
        [sys.executable, "-m", "tools.site", "--edition", edition, *where],
        cwd=ROOT,
        env=os.environ | PLAIN | env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def copy_of_the_course(into: Path) -> Path:
    """The course's files a site is built from (what tools/site.py copies), to break."""
    stage(ROOT, into)
    return into


def make_site(*args: str) -> subprocess.CompletedProcess:
    """`make site` itself, for a clone whose repository is not known."""
    done = subprocess.run(
        ["make", "-s", "site", *args],
        cwd=ROOT,
        env=os.environ | PLAIN | {"SITE_REPOSITORY": ""},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\(\d+ pages, \d+ MiB\) in \d+ s\.", done.stdout), done.stdout
    assert NO_BUTTONS_EMPTY_SETTING in done.stdout.splitlines(), done.stdout
    return done


def install_mathjax() -> None:
    """site/node_modules' MathJax, which a whole build copies into the site: `make site`'s own
    step, under its lock (a build elsewhere may be installing it at the same time)."""
    done = subprocess.run(
        ["make", "-s", "site/node_modules/.package-lock.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def load_site_module(name: str):
    """One of site/'s Sphinx extensions (not a package: conf.py puts its folder on the path)."""
    sys.path.insert(0, str(ROOT / "site"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "site"))
