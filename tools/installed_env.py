"""lessons_lib as a learner outside this repository gets it: built, then installed from its wheel.

    python -m tools.installed_env [DIR]     (default: build/installed-env; replaced if present)

`dist()` builds the wheel and sdist with `python -m build` into build/dist/. `build()` makes a
fresh venv of binder/runtime.txt's Python holding only the learner's list (requirements.txt)
and that wheel: not editable, no checkout on its path. tests/test_installed_course.py runs
every notebook in a kernel of it, from a copy of the notebooks outside the repository.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tools.binder_env import runtime_python

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "build" / "dist"
DEFAULT = ROOT / "build" / "installed-env"


def dist(log=sys.stdout) -> tuple[Path, Path]:
    """(wheel, sdist) of lessons_lib, freshly built into build/dist/."""
    shutil.rmtree(DIST, ignore_errors=True)
    step = [sys.executable, "-m", "build", "--outdir", str(DIST), str(ROOT)]
    subprocess.run(step, check=True, stdout=log, stderr=subprocess.STDOUT)
    return next(DIST.glob("*.whl")), next(DIST.glob("*.tar.gz"))


def build(wheel: Path, target: Path = DEFAULT, log=sys.stdout) -> Path:
    """A fresh venv at target with the learner's list and the wheel; its python."""
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([runtime_python(), "-m", "venv", target], check=True)
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    step = [f"{target}/bin/pip", "install", "-r", str(ROOT / "requirements.txt"), str(wheel)]
    print("$", " ".join(step), file=log, flush=True)
    # From a folder outside the checkout, so nothing of it can end up on the path.
    subprocess.run(step, cwd=target, env=env, check=True, stdout=log, stderr=subprocess.STDOUT)
    return target / "bin" / "python"


if __name__ == "__main__":
    wheel, _ = dist()
    print(build(wheel, Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT))
