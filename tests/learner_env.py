"""Binder's environment, built once per test run for the two modules that judge it.

tests/test_binder_env.py judges it as binder/ alone builds it: its facts are read right
after the build, before anything changes it. tests/test_installed_course.py then puts
lessons_lib's wheel in place of the editable install and runs every notebook in it. One
build serves both (a few minutes saved); tests/conftest.py keeps both modules on one worker.
`make test` starts that build ahead, while pip sets up .venv/ (tools/binder_env.py).

It needs binder/runtime.txt's Python (python3.11) on the PATH. A contributor's machine
without it skips the build with one line saying why; in CI (CI=true) that is a failure.
"""

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.lab_server import ROOT
from tests.requirements_files import normalise
from tools.binder_env import LOG, missing_runtime, take_or_build


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


@dataclass(frozen=True)
class BuiltEnv:
    """Binder's environment and what it held straight after the build."""

    python: Path
    packages: dict[str, str]  # normalised name -> version, from pip list
    server_config: str  # `jupyter server --show-config`
    lessons_lib_file: str  # where `import lessons_lib` found it, run from notebooks/


def read(python: Path, *args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(
        [python, *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def built() -> BuiltEnv:
    """Binder's environment, as `make test` built it ahead or built now, and its facts."""
    require_binders_python()
    try:
        python = take_or_build()
    except subprocess.CalledProcessError as error:
        tail = "\n".join(LOG.read_text().splitlines()[-30:])
        pytest.fail(f"Binder's environment did not build ({error.cmd}):\n{tail}")
    listed = json.loads(read(python, "-m", "pip", "list", "--format=json"))
    return BuiltEnv(
        python=python,
        packages={normalise(p["name"]): p["version"] for p in listed},
        server_config=read(python.parent / "jupyter", "server", "--show-config"),
        lessons_lib_file=read(
            python, "-c", "import lessons_lib; print(lessons_lib.__file__)", cwd=ROOT / "notebooks"
        ).strip(),
    )
