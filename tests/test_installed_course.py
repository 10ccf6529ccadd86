"""The course runs from its installed package, outside this repository, as in Colab.

tools/installed_env.py builds lessons_lib's wheel and sdist (`python -m build`), then puts the
wheel in place of the editable lessons_lib of Binder's environment (built once for this
module and tests/test_binder_env.py: tests/learner_env.py; log: build/installed-env.log).
Every notebook, copied to a temporary folder, then passes nbval in a kernel of that
environment, with `ATEN_CPU_CAPABILITY=default`: a notebook that reads a file of the
repository fails here, and so does a stored output that only a CPU with AVX prints. Last,
with lessons_lib uninstalled, the notebooks' first cell installs a fork's branch for real
(pip, git) from a local repository standing in for GitHub. Marked `installed` (a couple of
minutes): `make check` leaves it out; like Binder's build it needs python3.11 (skipped
without it, but not in CI).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest

from tests.colab_stand_in import Colab
from tests.kernel_elsewhere import assert_nbval_passes, kernelspec, probe
from tests.learner_env import skip_reason
from tools.installed_env import dist, install_wheel
from tools.notebooks import NOTEBOOKS

ROOT = NOTEBOOKS.parent
LOG = ROOT / "build" / "installed-env.log"
pytestmark = [
    pytest.mark.installed,
    *([pytest.mark.skip(reason=why)] if (why := skip_reason()) else []),
]


@pytest.fixture(scope="module")
def wheel_and_sdist():
    LOG.parent.mkdir(exist_ok=True)
    with LOG.open("w") as log:
        return dist(log)


@pytest.fixture(scope="module")
def installed_python(binder_env, wheel_and_sdist):
    with LOG.open("a") as log:
        try:
            install_wheel(binder_env.python, wheel_and_sdist[0], log=log)
        except subprocess.CalledProcessError as error:
            pytest.fail(f"the wheel did not install ({error.cmd}); see {LOG}")
    return binder_env.python


def test_twine_passes_the_wheel_and_the_sdist(wheel_and_sdist):
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, wheel_and_sdist)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_wheel_holds_every_file_of_the_package_its_licences_and_ranges_not_pins(
    wheel_and_sdist,
):
    names = set(zipfile.ZipFile(wheel_and_sdist[0]).namelist())
    package = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "lessons_lib").rglob("*")
        if p.is_file() and not {"__pycache__", ".hypothesis"} & set(p.parts)  # run leftovers
    }
    assert package - names == set(), "files of lessons_lib the wheel leaves out"
    info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert {f"{info}/licenses/LICENSE", f"{info}/licenses/LICENSE-CC-BY-4.0"} <= names
    metadata = zipfile.ZipFile(wheel_and_sdist[0]).read(f"{info}/METADATA").decode()
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert f"\nVersion: {version}\n" in metadata
    assert "\nLicense-Expression: MIT AND CC-BY-4.0\n" in metadata
    needs = re.findall(r"^Requires-Dist: (.+)$", metadata, re.M)
    assert "torch>=2.13" in needs and not [n for n in needs if "==" in n]


def test_every_notebook_passes_nbval_from_a_copy_with_the_wheel_and_on_any_cpu(
    installed_python, tmp_path
):
    course = tmp_path / "course"
    shutil.copytree(NOTEBOOKS, course, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    kernelspec(installed_python, tmp_path, "installed")
    # One more notebook proves where lessons_lib came from (the environment, with no checkout
    # on the path), and that torch used no AVX kernels: what a learner's older CPU runs.
    probe(
        course / "where_lessons_lib_is.ipynb",
        "import sys, torch, lessons_lib\n"
        "print(lessons_lib.__file__.startswith(sys.prefix))\n"
        f"print([p for p in sys.path if p.startswith({str(ROOT)!r})"
        " and not p.startswith(sys.prefix)])\n"
        "print(torch.backends.cpu.get_cpu_capability())",
        "True\n[]\nDEFAULT\n",
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not the repository's settings
    options = [
        "--nbval",
        "--nbval-kernel-name=installed",
        f"--nbval-sanitize-with={ROOT / 'tests' / 'nbval_sanitize.cfg'}",
        "-p",
        "no:cacheprovider",
        "-q",
    ]
    assert_nbval_passes(
        ["-c", tmp_path / "pytest.ini", *options, course],
        tmp_path,
        tmp_path,
        {"ATEN_CPU_CAPABILITY": "default"},
    )


def git(*args, cwd):
    who = ["-c", "user.name=course", "-c", "user.email=course@example.org"]
    return subprocess.run(
        ["git", *who, *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_in_colab_the_first_cell_installs_the_forks_branch_for_real(installed_python, tmp_path):
    """Last in this file: it swaps the venv's lessons_lib for the fork's (the same code)."""
    subprocess.run(
        [installed_python, "-m", "pip", "uninstall", "-q", "-y", "lessons_lib"], check=True
    )
    # "GitHub": git fetches https://github.com/OWNER/REPO from this folder instead.
    github = tmp_path / "github"
    fork = github / "a-fork" / "backward-course"
    git("clone", "-q", "--bare", str(ROOT), str(fork), cwd=tmp_path)
    git("branch", "feature/colab", "HEAD", cwd=fork)
    config = tmp_path / "gitconfig"
    config.write_text(f'[url "file://{github}/"]\n\tinsteadOf = https://github.com/\n')
    path = "fileId=https%3A%2F%2Fgithub.com%2Fa-fork%2Fbackward-course%2Fblob%2Ffeature%2Fcolab%2Fnotebooks%2F00-start-here.ipynb"
    colab = Colab(tmp_path / "colab", [{"path": path}], torch_version=None, pip=False)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_GLOBAL": str(config)}
    out, calls = colab.run(python=str(installed_python), env=env)
    assert out == (
        "Installing lessons_lib from github.com/a-fork/backward-course, branch feature/colab"
        " ... done.\n"
    )
    assert calls == ["widget manager"]
    shown = subprocess.run(
        [
            installed_python,
            "-c",
            "from importlib.metadata import distribution as d; "
            "print(d('lessons_lib').read_text('direct_url.json'))",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    origin = json.loads(shown)
    assert origin["url"] == "https://github.com/a-fork/backward-course"
    assert origin["vcs_info"]["requested_revision"] == "feature/colab"
    assert origin["vcs_info"]["commit_id"] == git("rev-parse", "feature/colab", cwd=fork)
