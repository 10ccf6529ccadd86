"""Build Binder's environment from binder/ alone, as repo2docker does, in a fresh venv.

    python -m tools.binder_env [DIR]        (default: build/binder-env; replaced if present)
    python -m tools.binder_env --ahead      (build/binder-env, kept for the next test run)

repo2docker's Dockerfile (`repo2docker --no-build`, checked in tests/test_binder.py) makes a
conda environment with the Python of binder/runtime.txt and repo2docker's own pins, puts it
first on PATH, and then, from the repository root, runs
`pip install -r binder/requirements.txt` and `./binder/postBuild`. Here the environment is
a venv of that Python whose packaging tools (pip, setuptools, wheel) are upgraded to the
versions repo2docker's lock file pins; the two steps then run unchanged, except that pip
keeps its cache (repo2docker's --no-cache-dir only keeps its image small) and does not
byte-compile every file it installs (Python writes the bytecode of what it imports, on
first use): both change how fast, not what, pip installs.

Where PyTorch's CPU index cannot be reached (a machine that reaches PyPI only), pip warns
and takes the pin `torch==2.13.0+cpu` from wherever else it is configured to look (here, a
local folder of PyTorch's CPU wheels); with no such wheel the build fails, as it should.
pip is then told not to retry the index, which costs seconds, not minutes.

`make test` builds it ahead (`--ahead`, in the background, with only the standard library),
while pip sets up .venv/ on one core and the other idles; the tests then take that build
(`take_or_build`) instead of making their own, once: it is marked fresh for binder/'s
files as they were, and the mark is removed when taken, as the tests then change it.
"""

import fcntl
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
DEFAULT = ROOT / "build" / "binder-env"
LOG = ROOT / "build" / "binder-env.log"
LOCK = ROOT / "build" / "binder-env.lock"  # held by whoever builds it or takes it
# Held by each `pip install -e .` of this checkout (postBuild's, the Makefile's for .venv/):
# both write lessons_lib.egg-info/ here, and `make test` runs them at once.
EDITABLE_LOCK = ROOT / "build" / "editable-install.lock"
FRESH = ".fresh"  # in the environment: binder/'s fingerprint when built, until taken
# pip, setuptools and wheel as repo2docker's lock file pins them for binder/runtime.txt's
# Python (written here so that the build needs nothing installed; tests/test_binder_env.py
# checks them against the lock of the installed repo2docker).
PACKAGING = ("pip==25.2", "setuptools==80.9.0", "wheel==0.45.1")


def runtime_version() -> str:
    """The Python version binder/runtime.txt names: python-3.11 -> 3.11."""
    return (BINDER / "runtime.txt").read_text().strip().removeprefix("python-")


def missing_runtime() -> str | None:
    """Why Binder's environment cannot be built on this machine, or None if it can."""
    version = runtime_version()
    if shutil.which(f"python{version}") is None:
        return (
            f"Binder's environment needs python{version} on the PATH (Binder builds with {version})"
        )
    return None


def runtime_python() -> str:
    """That interpreter, found on PATH."""
    if why := missing_runtime():
        raise SystemExit(why)
    return shutil.which(f"python{runtime_version()}")


def unreachable_indexes() -> list[str]:
    """Extra package indexes binder/requirements.txt names whose host does not resolve here."""
    urls = re.findall(
        r"^--extra-index-url\s+(\S+)", (BINDER / "requirements.txt").read_text(), re.M
    )
    down = []
    for url in urls:
        try:
            socket.getaddrinfo(urlsplit(url).hostname, 443)
        except OSError:
            down.append(url)
    return down


def build(target: Path = DEFAULT, log=sys.stdout) -> Path:
    """A fresh venv at target holding exactly what Binder installs; its python."""
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([runtime_python(), "-m", "venv", target], check=True)
    env = {**os.environ, "PATH": f"{target}/bin{os.pathsep}{os.environ['PATH']}"}
    env.pop("VIRTUAL_ENV", None)
    if down := unreachable_indexes():
        print(f"unreachable from here, so not retried: {', '.join(down)}", file=log, flush=True)
        env["PIP_RETRIES"] = "0"
    steps = [
        [f"{target}/bin/pip", "install", "--upgrade", *PACKAGING],
        [f"{target}/bin/pip", "install", "--no-compile", "-r", "binder/requirements.txt"],
        ["./binder/postBuild"],
    ]
    for step in steps:
        print("$", " ".join(map(str, step)), file=log, flush=True)
        # postBuild's `pip install -e .` writes in this checkout, as .venv/'s does.
        with held(EDITABLE_LOCK) if step == steps[-1] else nullcontext():
            subprocess.run(
                step, cwd=ROOT, env=env, check=True, stdout=log, stderr=subprocess.STDOUT
            )
    return target / "bin" / "python"


def fingerprint() -> str:
    """What a build depends on in this checkout: binder/'s files, pyproject.toml, these pins."""
    digest = hashlib.sha256(" ".join(PACKAGING).encode())
    for path in [ROOT / "pyproject.toml", *sorted(BINDER.rglob("*"))]:
        if path.is_file():
            digest.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


@contextmanager
def held(path: Path | None = None) -> Iterator[None]:
    """An exclusive lock on path (default LOCK: one builder or taker at a time, so a taker
    waits for a build under way)."""
    path = path or LOCK
    path.parent.mkdir(exist_ok=True)
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def logged_build(target: Path) -> Path:
    """build(target), its steps' output in build/binder-env.log (replaced)."""
    with LOG.open("w") as log:
        return build(target, log)


def build_ahead(target: Path = DEFAULT) -> None:
    """Build it for the next taker (log: build/binder-env.log); quietly nothing without python3.11."""
    if missing_runtime():
        return  # the tests say why, or skip
    with held():
        (target / FRESH).unlink(missing_ok=True)
        try:
            logged_build(target)
        except subprocess.CalledProcessError:
            return  # the taker builds again, and reports what failed
        (target / FRESH).write_text(fingerprint())


def take_or_build(target: Path = DEFAULT) -> Path:
    """The build made ahead if fresh for this checkout (waiting for it), else a new one; its python.

    A new build logs to build/binder-env.log and raises CalledProcessError if a step fails.
    """
    with held():
        fresh = target / FRESH
        if fresh.exists() and fresh.read_text() == fingerprint():
            fresh.unlink()
            return target / "bin" / "python"
        return logged_build(target)


if __name__ == "__main__":
    if sys.argv[1:] == ["--ahead"]:
        build_ahead()
    else:
        print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT))
