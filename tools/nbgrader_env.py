"""nbgrader's own environment, build/nbgrader-env/, layered over the course's .venv/.

    python -m tools.nbgrader_env      (make nbgrader runs it; prints the environment's path)

nbgrader brings JupyterLab menus and Notebook 7 with it; installed into .venv/ they would
change the learner's JupyterLab that `make lab` opens and the browser tests judge. So it
gets a venv of its own whose one .pth file adds .venv/'s site-packages after its own (and a
link to .venv/'s nbconvert templates): it sees torch, lessons_lib and JupyterLab from
there and holds only what nbgrader adds
(requirements-nbgrader.txt; pip installs just what .venv/ lacks). Its kernels (nbgrader's
autograding) run its python, so they see both. Rebuilt when the pins or .venv/ change.
"""

import hashlib
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = ROOT / "build" / "nbgrader-env"
PINS = ROOT / "requirements-nbgrader.txt"
LAYER = "course-venv.pth"


def digest() -> str:
    """The pins, and which .venv/ lies underneath."""
    return hashlib.sha256(PINS.read_bytes() + sys.prefix.encode()).hexdigest()[:16]


def site_packages(env: Path) -> Path:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return env / "lib" / version / "site-packages"


def build(env: Path = ENV) -> Path:
    """Make `env` current (minutes the first time, nothing after); return it."""
    stamp = env / ".pins"
    if stamp.exists() and stamp.read_text() == digest() and (env / "bin" / "nbgrader").exists():
        return env
    print(f"Installing nbgrader ({PINS.name}) into {env}/, over {sys.prefix}/", flush=True)
    shutil.rmtree(env, ignore_errors=True)
    # No pip or setuptools of its own: .venv/'s serve (torch wants its newer setuptools).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", env], check=True)
    # addsitedir (not a bare path) also reads .venv's own .pth files: lessons_lib's editable
    # install is one.
    underneath = sysconfig.get_paths()["purelib"]
    (site_packages(env) / LAYER).write_text(f"import site; site.addsitedir({underneath!r})\n")
    # Jupyter looks for data (nbconvert's templates, for nbgrader's feedback) under the
    # running prefix only: .venv/'s templates, linked in.
    data = env / "share" / "jupyter"
    data.mkdir(parents=True)
    (data / "nbconvert").symlink_to(Path(sys.prefix) / "share" / "jupyter" / "nbconvert")
    pip = [sys.executable, "-m", "pip", "--python", env / "bin" / "python", "install"]
    subprocess.run([*pip, "--quiet", "--disable-pip-version-check", "--no-compile", "-r", PINS],
                   check=True)  # fmt: skip
    stamp.write_text(digest())
    return env


if __name__ == "__main__":
    print(build())
