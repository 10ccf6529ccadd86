"""Binder's environment, built from binder/ alone as repo2docker builds it, holds the course.

tools/binder_env.py builds it into build/binder-env/ (a fresh venv each run; pip's cache
kept; log: build/binder-env.log), once for this module and tests/test_installed_course.py,
which then runs every notebook in it (tests/learner_env.py); `make test` builds it ahead,
while pip sets up .venv/. Marked `binder` (a few minutes): `make test` runs it;
`pytest -m "not binder"` skips it.
"""

import re
import stat
import threading
from importlib.resources import files

import pytest

from tests.learner_env import binder_marks, require_binders_python, skip_reason
from tests.test_requirements import TEST_TOOLS
from tools import binder_env
from tools.binder_env import missing_runtime, runtime_version
from tools.notebooks import NOTEBOOKS


class TestBindersEnvironment:
    """Built from binder/ alone, it holds what a learner needs and nothing of the tests."""

    pytestmark = binder_marks()

    def test_binders_environment_holds_cpu_torch_and_no_test_tool(self, binder_env):
        assert binder_env.packages["torch"].endswith("+cpu")
        # nbformat and nbclient, pinned for the tools, come with JupyterLab: not asked about here.
        assert set(binder_env.packages) & TEST_TOOLS == set(), (
            "a learner's environment pulled in a test tool"
        )

    def test_binders_server_and_kernels_load_the_course_settings(self, binder_env):
        assert "kernel_manager_class = <class 'CourseKernelManager'>" in binder_env.server_config
        prefix = binder_env.python.parent.parent
        assert (prefix / "etc" / "ipython" / "ipython_kernel_config.py").exists()

    def test_postbuild_installs_this_checkouts_lessons_lib_for_every_notebook(self, binder_env):
        """Editable: the notebooks, run where Binder opens them, import the repository's code."""
        assert binder_env.lessons_lib_file == str(NOTEBOOKS.parent / "lessons_lib" / "__init__.py")


@pytest.fixture
def path_without_binders_python(monkeypatch, tmp_path):
    """A PATH of one empty folder, as on a machine with Python 3.12 only; CI unset."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CI", raising=False)
    return tmp_path


def test_without_binders_python_the_build_is_skipped_with_one_line_saying_why(
    path_without_binders_python,
):
    why = skip_reason()
    assert f"needs python{runtime_version()} on the PATH" in why and why.endswith("; skipped")
    assert "\n" not in why
    binder, skip = binder_marks()
    assert (binder.name, skip.name, skip.kwargs) == ("binder", "skip", {"reason": why})


def test_without_binders_python_ci_fails_instead_of_skipping(
    path_without_binders_python, monkeypatch
):
    monkeypatch.setenv("CI", "true")
    assert skip_reason() is None
    assert [mark.name for mark in binder_marks()] == ["binder"]
    with pytest.raises(pytest.fail.Exception) as failed:
        require_binders_python()
    assert f"CI must build Binder's environment, but: {missing_runtime()}" == str(failed.value)


def test_with_binders_python_on_the_path_nothing_is_skipped(path_without_binders_python):
    python = path_without_binders_python / f"python{runtime_version()}"
    python.write_text("#!/bin/sh\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    assert missing_runtime() is None and skip_reason() is None
    require_binders_python()  # does not fail


def test_the_packaging_pins_are_repo2dockers_for_binders_python():
    lock = (
        files("repo2docker.buildpacks.conda") / f"environment.py-{runtime_version()}-linux-64.lock"
    )
    text = lock.read_text()
    for pin in binder_env.PACKAGING:
        name, version = pin.split("==")
        assert re.search(rf"/{name}-([0-9.]+)-", text)[1] == version, pin


@pytest.fixture
def stand_in_builds(monkeypatch, tmp_path):
    """build() replaced by one that makes an empty bin/python and counts; a scratch lock."""
    made = []

    def build(target, log):
        made.append(target)
        (target / "bin").mkdir(parents=True, exist_ok=True)
        (target / "bin" / "python").write_text("")
        return target / "bin" / "python"

    monkeypatch.setattr(binder_env, "build", build)
    monkeypatch.setattr(binder_env, "missing_runtime", lambda: None)
    monkeypatch.setattr(binder_env, "LOCK", tmp_path / "lock")
    monkeypatch.setattr(binder_env, "LOG", tmp_path / "log")
    return made


def test_a_build_made_ahead_is_taken_once_then_the_next_taker_builds(stand_in_builds, tmp_path):
    target = tmp_path / "env"
    binder_env.build_ahead(target)
    assert binder_env.take_or_build(target) == target / "bin" / "python"
    assert len(stand_in_builds) == 1 and not (target / binder_env.FRESH).exists()
    binder_env.take_or_build(target)
    assert len(stand_in_builds) == 2


def test_a_build_made_ahead_from_other_binder_files_is_not_taken(stand_in_builds, tmp_path):
    target = tmp_path / "env"
    binder_env.build_ahead(target)
    (target / binder_env.FRESH).write_text("binder/ as it was before an edit")
    binder_env.take_or_build(target)
    assert len(stand_in_builds) == 2


def test_a_taker_waits_for_the_build_under_way(stand_in_builds, tmp_path):
    target = tmp_path / "env"
    taken = threading.Event()
    with binder_env.held():  # as build_ahead holds it while it builds
        taker = threading.Thread(target=lambda: (binder_env.take_or_build(target), taken.set()))
        taker.start()
        assert not taken.wait(0.5), "took the environment while a build was under way"
    assert taken.wait(5)
    taker.join()
