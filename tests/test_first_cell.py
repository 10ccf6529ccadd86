"""Every notebook's first code cell (tools/first_cell.py): silent where lessons_lib is
installed; in Colab, installs it from the repository and branch the notebook came from.

Colab itself cannot run here. These tests run the real cell in a Python without
site-packages (`-S`), with stand-ins on its path for what Colab provides: a torch of a
given version, `google.colab.output`, pip (which records what it was asked), and Colab's
sessions API, served on 127.0.0.1. tests/test_installed_course.py installs a fork for real.
"""

import importlib.util
import re
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import nbformat
import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests.colab_stand_in import Colab
from tools.notebooks import FIRST_CELL, FIRST_CELL_METADATA, notebook_paths

ROOT = Path(__file__).resolve().parents[1]
CELL = FIRST_CELL.read_text().rstrip("\n")
FORK = "a-fork", "backward-course", "feature/colab"
FORK_PATH = "fileId=https%3A%2F%2Fgithub.com%2Fa-fork%2Fbackward-course%2Fblob%2Ffeature%2Fcolab%2Fnotebooks%2F01-custom-function%2F1-beginner.ipynb"


def cell_functions() -> dict:
    """The cell's functions, defined without running its last line (the set-up itself)."""
    namespace: dict = {}
    exec(CELL.removesuffix("_set_up_course()"), namespace)
    return namespace


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_every_notebooks_first_code_cell_is_the_set_up_cell_right_after_its_title(path):
    cells = nbformat.read(path, as_version=4).cells
    assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# ")
    assert cells[1].cell_type == "code", "run `make notebooks` to insert it"
    assert cells[1].source == CELL, "run `make notebooks` to refresh it from tools/first_cell.py"
    assert cells[1].metadata == FIRST_CELL_METADATA
    assert cells[1].outputs == [], "where lessons_lib is installed the cell prints nothing"


def test_the_minimum_torch_is_the_one_the_package_declares():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    declared = next(d for d in dependencies if d.startswith("torch"))
    minimum = cell_functions()["_set_up_course"].__defaults__[0]
    assert declared == "torch>=" + ".".join(map(str, minimum))


@pytest.mark.parametrize(
    ("address", "found"),
    [
        (FORK_PATH, FORK),
        (
            "https://colab.research.google.com/github/ada/course/blob/main/notebooks/00-start-here.ipynb",
            ("ada", "course", "main"),
        ),
        (
            "https://github.com/ada/course.v2/blob/lesson-2/notebooks/exercises/check-your-clamp01.ipynb",
            ("ada", "course.v2", "lesson-2"),
        ),
        ("fileId=1AbCdEfGhIjKlMnOpQrStUvWxYz", None),  # a notebook on Google Drive
        ("https://github.com/ada/course/blob/main/README.md", None),
    ],
)
def test_a_notebooks_address_names_owner_repository_and_branch(address, found):
    assert cell_functions()["_github_notebook"](address) == found


def test_in_colab_a_notebook_from_a_fork_installs_that_forks_branch(tmp_path):
    out, calls = Colab(tmp_path, [{"name": "1-beginner.ipynb", "path": FORK_PATH}]).run()
    assert out == (
        "Installing lessons_lib from github.com/a-fork/backward-course, branch feature/colab"
        " ... done.\n"
    )
    assert calls == [
        "install -q lessons_lib @ git+https://github.com/a-fork/backward-course@feature/colab",
        "widget manager",
    ]


def test_a_folder_an_uninstall_left_behind_is_not_taken_for_the_course(tmp_path):
    """pip uninstall leaves a folder holding caches Python wrote after the install (pytest's
    rewritten tests, say); it imports as an empty namespace package."""
    leftover = tmp_path / "lessons_lib" / "examples" / "__pycache__"
    leftover.mkdir(parents=True)
    (leftover / "test_clamp_example.cpython-311-pytest-9.2.0.pyc").write_bytes(b"")
    out, calls = Colab(tmp_path, [{"path": FORK_PATH}]).run()
    assert out.endswith(" ... done.\n") and calls[0].startswith("install -q lessons_lib @ ")


def test_in_colab_without_a_network_the_install_fails_with_one_line_saying_what_to_do(tmp_path):
    offline = "fatal: unable to access 'https://github.com/a-fork/backward-course/': Could not resolve host: github.com"
    colab = Colab(tmp_path, [{"path": FORK_PATH}], pip_fails=offline)
    out, calls = colab.run()
    assert out.count("\n") == 1 and "cannot be reached from this runtime" in out
    assert "Check its internet connection, then run this cell again" in out
    assert len(calls) == 1, "nothing after the failed install"


def test_a_torch_older_than_the_minimum_gets_one_line_naming_it_and_nothing_is_installed(tmp_path):
    out, calls = Colab(tmp_path, [{"path": FORK_PATH}], torch_version="2.9.1+cu126").run()
    assert out == (
        "This course needs torch 2.13 or newer; this runtime has 2.9.1+cu126. Run "
        "`%pip install -q 'torch>=2.13'`, restart the session, then run this cell again.\n"
    )
    assert calls == []


def test_a_notebook_colab_did_not_open_from_github_says_how_to_open_it_or_install(tmp_path):
    out, calls = Colab(tmp_path, [{"path": "fileId=1AbCdEfGhIjKlMnOpQrStUvWxYz"}]).run()
    assert out.count("\n") == 1 and "was not opened from GitHub (a copy saved to Drive?)" in out
    assert "File > Open notebook > GitHub" in out
    assert '`%pip install "lessons_lib @ git+https://github.com/OWNER/REPO"`' in out
    assert calls == []


def test_a_branch_github_does_not_have_asks_whether_it_was_pushed_and_quotes_git(tmp_path):
    missing = (
        "  Running command git clone --filter=blob:none --quiet https://github.com/a-fork/backward-course\n"
        "  fatal: Remote branch feature/colab not found in upstream origin\n"
        "  error: subprocess-exited-with-error"
    )
    out, calls = Colab(tmp_path, [{"path": FORK_PATH}], pip_fails=missing).run()
    assert out.count("\n") == 1 and "Is the repository public, and the branch pushed to it?" in out
    assert len(calls) == 1, "nothing after the failed install"
    assert "(fatal: Remote branch feature/colab not found in upstream origin)" in out


def test_when_colabs_sessions_api_does_not_answer_the_cell_says_how_to_install(tmp_path):
    colab = Colab(tmp_path, [])
    colab.server.shutdown()
    colab.server.server_close()  # nothing listens on that port any more
    out, calls = colab.run()
    assert out.count("\n") == 1 and out.startswith(
        "Colab did not say where this notebook came from"
    )
    assert "%pip install" in out and calls == []


def test_outside_colab_without_lessons_lib_the_cell_says_how_to_install_it(tmp_path):
    out, calls = Colab(tmp_path, []).run(in_colab=False)
    assert out.count("\n") == 1 and out.startswith("lessons_lib is not installed in this kernel")
    assert "%pip install" in out and "make lab" in out and calls == []


def test_where_lessons_lib_is_installed_the_cell_prints_nothing_and_loads_the_hints():
    shell = InteractiveShell.instance()
    done = subprocess.run(
        [sys.executable, "-c", f"exec(open({str(FIRST_CELL)!r}).read(), {{}})"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert (done.stdout, done.stderr) == ("", "")
    exec(CELL, {})
    assert "lessons_lib.friendly" in shell.extension_manager.loaded


def test_ipython_shows_a_refusal_as_its_one_line_not_a_traceback(monkeypatch, capsys):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "lessons_lib" else find_spec(name, *a),
    )
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(__version__="2.0.0"))
    result = InteractiveShell.instance().run_cell(CELL)
    assert type(result.error_in_exec).__name__ == "CourseSetupError"
    out = capsys.readouterr().out
    assert re.fullmatch(r"This course needs torch 2\.13 or newer; [^\n]*\n", out), out
