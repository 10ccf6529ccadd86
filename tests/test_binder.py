"""binder/ builds the learner's environment, with CPU-only torch, and Binder reads it as meant.

The last tests ask repo2docker itself, the tool Binder builds with: `--no-build` prints
the Dockerfile it would build, without Docker.
"""

import re
import subprocess
import sys

import pytest

from tests.lab_server import ROOT
from tests.requirements_files import requirements

BINDER = ROOT / "binder"


def pins(path) -> dict[str, str]:
    """name -> version of the file's own `name==version` lines (includes not followed)."""
    return {pin.name: pin.spec.removeprefix("==") for pin in requirements(path, follow=False)}


def test_binder_takes_cpu_torch_of_the_pinned_version_from_the_cpu_index():
    binder = (BINDER / "requirements.txt").read_text()
    torch_version = pins(ROOT / "requirements.txt")["torch"]
    assert pins(BINDER / "requirements.txt") == {"torch": f"{torch_version}+cpu"}
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in binder


def test_binder_includes_every_other_pin_of_the_learners_list():
    assert "-r ../requirements.txt" in (BINDER / "requirements.txt").read_text().split("\n")


def test_binder_python_matches_the_course_floor():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    assert 'requires-python = ">=3.11"' in (ROOT / "pyproject.toml").read_text()


def test_binder_installs_lessons_lib():
    assert "pip install" in (BINDER / "postBuild").read_text()
    assert "-e ." in (BINDER / "postBuild").read_text()


@pytest.mark.parametrize(
    ("config", "folder"),
    [("ipython_kernel_config.py", "etc/ipython"), ("jupyter_server_config.py", "etc/jupyter")],
)
def test_binder_and_make_install_the_same_kernel_and_server_settings(config, folder):
    assert f'cp binder/{config} "$prefix/{folder}/"' in (BINDER / "postBuild").read_text()
    assert f"cp binder/{config} $(VENV)/{folder}/" in (ROOT / "Makefile").read_text()
    # ... and `make` sets .venv/ up again when it changes (`make lab`'s and `make test`'s)
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(rf"^LEARNER_INPUTS :=.* binder/{config}", makefile, re.M)
    assert re.search(r"^\$\(READY\): \$\(LEARNER_INPUTS\)$", makefile, re.M)
    assert re.search(r"^\$\(TEST_READY\): \$\(LEARNER_INPUTS\) ", makefile, re.M)


@pytest.fixture(scope="module")
def repo2docker():
    """(Dockerfile, log) that repo2docker prints for this repository without building it."""
    done = subprocess.run(
        [sys.executable, "-m", "repo2docker", "--no-build", "--debug", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def test_repo2docker_picks_python_3_11_or_newer(repo2docker):
    dockerfile, log = repo2docker
    picked = re.search(r"Building conda environment for python=(\d+)\.(\d+)", log)
    assert picked, log
    assert (int(picked[1]), int(picked[2])) >= (3, 11)
    assert "ENV KERNEL_PYTHON_PREFIX=${NB_PYTHON_PREFIX}" in dockerfile  # kernels use that Python


def test_repo2docker_installs_binders_requirements_after_copying_the_repository(repo2docker):
    """binder/requirements.txt includes ../requirements.txt, which exists only once the
    whole repository is copied in; installed earlier, the build would fail."""
    lines = repo2docker[0].splitlines()
    install = lines.index(
        'RUN ${KERNEL_PYTHON_PREFIX}/bin/pip install --no-cache-dir -r "binder/requirements.txt"'
    )
    assert lines.index("COPY --chown=0:0 src/ ${REPO_DIR}/") < install
    # Only binder/ counts: no other requirements file, no install of the repository as a package.
    assert [line for line in lines if "pip install" in line] == [lines[install]]


def test_repo2docker_runs_binders_postbuild_after_the_requirements(repo2docker):
    lines = repo2docker[0].splitlines()
    install = next(
        i
        for i, line in enumerate(lines)
        if 'pip install --no-cache-dir -r "binder/requirements.txt"' in line
    )
    assert lines.index("RUN ./binder/postBuild") > install
