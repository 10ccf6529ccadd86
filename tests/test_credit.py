"""`make credit`: the course's credit line from LICENSE and origin, and the code's notice."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import links
from tools.credit import (
    ADAPTED,
    CC_BY,
    COURSE,
    KEEP_CODE,
    ROOT,
    credit_line,
    no_address,
    notice,
    report,
    source,
    web_address,
)

ADDRESS = "https://github.com/ada/backward-course"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_the_holder_and_year_are_licenses():
    held = notice()
    assert (held.year, held.holder) == ("2026", f'The authors of "{COURSE}"')
    assert held.copyright in (ROOT / "LICENSE").read_text()
    assert held.permission.startswith("Permission is hereby granted")
    assert held.permission.endswith("OTHER DEALINGS IN THE SOFTWARE.")


def test_a_license_without_a_copyright_line_is_named(tmp_path):
    license_file = tmp_path / "LICENSE"
    license_file.write_text("MIT License\n")
    with pytest.raises(SystemExit, match=r"LICENSE has no line 'Copyright \(c\) YEAR HOLDER'"):
        notice(license_file)


def test_the_credit_line_names_the_course_its_holder_the_address_and_the_licence():
    assert credit_line(ADDRESS) == (
        f'"{COURSE}" © 2026 The authors of "{COURSE}", {ADDRESS}, licensed under CC BY 4.0 '
        f"({CC_BY})"
    )
    assert ", http" not in credit_line(None)


@pytest.mark.parametrize(
    ("remote", "address"),
    [
        ("git@github.com:ada/backward-course.git", ADDRESS),
        ("https://ada:secret@github.com/ada/backward-course.git", ADDRESS),
        (
            "https://gitlab.example.edu/teach/backward-course.git",
            "https://gitlab.example.edu/teach/backward-course",
        ),
        ("https://ada:secret@git.example.edu:8443/c.git/", "https://git.example.edu:8443/c"),
        ("/srv/git/backward-course.git", None),
        ("git@bitbucket.org:ada/backward-course.git", None),
    ],
)
def test_a_remote_gives_the_address_a_reader_opens(remote, address):
    assert web_address(remote) == address


def test_the_address_is_origins_unless_one_is_given(tmp_path):
    git(tmp_path, "init", "-q")
    assert source(cwd=tmp_path) == (None, "this clone has no origin")
    git(tmp_path, "remote", "add", "origin", "/srv/git/backward-course.git")
    assert source(cwd=tmp_path) == (
        None,
        "origin is /srv/git/backward-course.git, not a web address",
    )
    git(tmp_path, "remote", "set-url", "origin", "git@github.com:ada/backward-course.git")
    assert source(cwd=tmp_path) == (ADDRESS, "")
    assert source("https://github.com/bo/fork", cwd=tmp_path) == ("https://github.com/bo/fork", "")
    assert source("", cwd=tmp_path) == (None, "'' is not a web address of a repository")


def test_make_credit_prints_the_line_and_what_copied_code_keeps():
    lines = report(ADDRESS).splitlines()
    assert lines[:4] == [
        "The credit line for the course's text and pictures (CC BY 4.0):",
        f"  {credit_line(ADDRESS)}",
        ADAPTED,
        KEEP_CODE,
    ]
    assert f"  {notice().copyright}" in lines
    assert "  The above copyright notice and this permission notice shall be included in all" in (
        lines
    )


def make_credit(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-s", "credit", f"PYTHON={sys.executable}", *args],
        cwd=course,
        capture_output=True,
        text=True,
        check=False,
    )


def test_make_credit_without_an_address_says_how_to_name_one():
    done = make_credit(ROOT, "REPOSITORY=/srv/git/course.git")
    # The line is complete but for its address: no failure, and make adds no "Error" line.
    assert done.returncode == 0 and done.stderr == ""
    first = done.stdout.splitlines()[0]
    assert first == (
        "No address in the credit line: '/srv/git/course.git' is not a web address of a "
        f"repository. Name the course's repository with {links.naming_origin()}, or pass it: "
        "make credit REPOSITORY=https://github.com/OWNER/REPO."
    )
    assert f"  {credit_line(None)}" in done.stdout.splitlines()


def test_make_credit_in_a_clone_of_a_local_path_prints_its_line_and_succeeds(tmp_path):
    """A clone whose origin is a folder: the one line of advice, the line, status 0."""
    for name in ("Makefile", "LICENSE", "tools/__init__.py", "tools/credit.py", "tools/links.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "/srv/git/backward-course.git")
    done = make_credit(tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == no_address(
        "origin is /srv/git/backward-course.git, not a web address", cwd=tmp_path
    )
    assert "git remote set-url origin https://github.com/OWNER/REPO.git" in lines[0]
    assert lines[1:3] == [
        "The credit line for the course's text and pictures (CC BY 4.0):",
        f"  {credit_line(None)}",
    ]


@pytest.mark.parametrize("origin", [None, "/srv/git/backward-course.git"])
def test_the_advice_without_an_address_works_with_or_without_an_origin(tmp_path, origin):
    """git remote add where the clone has no origin, set-url where it has one: as advised."""
    git(tmp_path, "init", "-q")
    if origin:
        git(tmp_path, "remote", "add", "origin", origin)
    first = report(cwd=tmp_path).splitlines()[0]
    why = f"origin is {origin}, not a web address" if origin else "this clone has no origin"
    assert first == no_address(why, cwd=tmp_path)
    verb = "set-url" if origin else "add"
    command = f"git remote {verb} origin https://github.com/OWNER/REPO.git"
    assert f" with {command}, or pass it: make credit REPOSITORY=" in first
    git(tmp_path, *command.split()[1:])
    assert source(cwd=tmp_path) == ("https://github.com/OWNER/REPO", "")
