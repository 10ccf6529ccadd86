"""Binder's environment, built from binder/ alone as repo2docker builds it, runs the course.

tools/binder_env.py builds it into build/binder-env/ (a fresh venv each run; pip's cache
kept); its log is build/binder-env.log. nbval then re-runs every notebook in a kernel of
that environment, so a learner's environment that cannot run the course fails CI. Marked
`binder` (a few minutes): `make test` runs it; `pytest -m "not binder"` skips it.

It needs binder/runtime.txt's Python (python3.11) on the PATH. A contributor's machine
without it skips the build with one line saying why; in CI (CI=true) that is a failure.
"""

import json
import os
import stat
import subprocess
import tomllib

import pytest

from tests.kernel_elsewhere import assert_nbval_passes, kernelspec, probe
from tests.lab_server import ROOT
from tests.requirements_files import normalise
from tests.test_requirements import TEST_TOOLS
from tools.binder_env import DEFAULT, build, missing_runtime, runtime_version

LOG = ROOT / "build" / "binder-env.log"


def skip_reason() -> str | None:
    """Why this machine skips Binder's build, or None; CI (CI=true) never skips it."""
    why = missing_runtime()
    return f"{why}; skipped" if why and os.environ.get("CI") != "true" else None


def binder_marks() -> list[pytest.MarkDecorator]:
    """`binder`, and a skip where this machine skips the build. Set on a class, not on each
    test (which would store its marks on the function), -rs folds the skips into one line."""
    reason = skip_reason()
    return [pytest.mark.binder, *([pytest.mark.skip(reason=reason)] if reason else [])]


def require_binders_python() -> None:
    """Fail where Binder's Python is missing yet the build was not skipped: in CI."""
    if why := missing_runtime():
        pytest.fail(f"CI must build Binder's environment, but: {why}", pytrace=False)


@pytest.fixture(scope="module")
def binder_python():
    require_binders_python()
    LOG.parent.mkdir(exist_ok=True)
    with LOG.open("w") as log:
        try:
            return build(DEFAULT, log)
        except subprocess.CalledProcessError as error:
            tail = "\n".join(LOG.read_text().splitlines()[-30:])
            pytest.fail(f"Binder's environment did not build ({error.cmd}):\n{tail}")


def installed(python) -> dict[str, str]:
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=json"], capture_output=True, text=True, check=True
    ).stdout
    return {normalise(p["name"]): p["version"] for p in json.loads(listed)}


class TestBindersEnvironment:
    """Built from binder/ alone, it holds what a learner needs and runs every notebook."""

    pytestmark = binder_marks()

    def test_binders_environment_holds_cpu_torch_and_no_test_tool(self, binder_python):
        packages = installed(binder_python)
        assert packages["torch"].endswith("+cpu")
        # nbformat and nbclient, pinned for the tools, come with JupyterLab: not asked about here.
        assert set(packages) & TEST_TOOLS == set(), "a learner's environment pulled in a test tool"

    def test_binders_server_and_kernels_load_the_course_settings(self, binder_python):
        shown = subprocess.run(
            [binder_python.parent / "jupyter", "server", "--show-config"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "kernel_manager_class = <class 'CourseKernelManager'>" in shown
        prefix = binder_python.parent.parent
        assert (prefix / "etc" / "ipython" / "ipython_kernel_config.py").exists()

    def test_every_notebook_passes_nbval_in_a_kernel_of_binders_environment(
        self, binder_python, tmp_path
    ):
        kernelspec(binder_python, tmp_path, "binder-env")
        # The suite's own nbval options, but with that kernel instead of this environment's.
        addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
            "ini_options"
        ]
        options = addopts["addopts"].replace(
            "--nbval-current-env", "--nbval-kernel-name=binder-env"
        )
        assert "--nbval-kernel-name=binder-env" in options
        # One more notebook proves the kernel is Binder's: its stored output is that sys.prefix.
        probe(tmp_path / "which_environment.ipynb", "import sys; print(sys.prefix)", f"{DEFAULT}\n")
        assert_nbval_passes(["-o", f"addopts={options}", "notebooks", tmp_path], ROOT, tmp_path)


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
