"""Build Binder's environment from binder/ alone, as repo2docker does, in a fresh venv.

    python -m tools.binder_env [DIR]        (default: build/binder-env; replaced if present)

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
"""

import os
import re
import shutil
import socket
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
DEFAULT = ROOT / "build" / "binder-env"
PACKAGING = ("pip", "setuptools", "wheel")


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


def base_packaging(version: str) -> list[str]:
    """pip, setuptools and wheel pinned as in repo2docker's environment for that Python."""
    lock = files("repo2docker.buildpacks.conda") / f"environment.py-{version}-linux-64.lock"
    text = lock.read_text()
    return [f"{name}=={re.search(rf'/{name}-([0-9.]+)-', text)[1]}" for name in PACKAGING]


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
        [f"{target}/bin/pip", "install", "--upgrade", *base_packaging(runtime_version())],
        [f"{target}/bin/pip", "install", "--no-compile", "-r", "binder/requirements.txt"],
        ["./binder/postBuild"],
    ]
    for step in steps:
        print("$", " ".join(map(str, step)), file=log, flush=True)
        subprocess.run(step, cwd=ROOT, env=env, check=True, stdout=log, stderr=subprocess.STDOUT)
    return target / "bin" / "python"


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT))
