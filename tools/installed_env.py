"""lessons_lib as a learner outside this repository gets it: built, then installed from its wheel.

    python -m tools.installed_env [DIR]     (default: build/binder-env; replaced if present)

`dist()` builds the wheel and sdist with `python -m build` into build/dist/. `install_wheel()`
puts the wheel in place of an environment's editable lessons_lib: not editable, no checkout
on its path. tests/test_installed_course.py does that to Binder's environment (CPU torch and
the learner's list, requirements.txt) and runs every notebook in a kernel of it, from a copy
of the notebooks outside the repository; run as a script, this builds that environment.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tools import binder_env

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "build" / "dist"


def dist(log=sys.stdout) -> tuple[Path, Path]:
    """(wheel, sdist) of lessons_lib, freshly built into build/dist/."""
    shutil.rmtree(DIST, ignore_errors=True)
    step = [sys.executable, "-m", "build", "--outdir", str(DIST), str(ROOT)]
    subprocess.run(step, check=True, stdout=log, stderr=subprocess.STDOUT)
    return next(DIST.glob("*.whl")), next(DIST.glob("*.tar.gz"))


def install_wheel(python: Path, wheel: Path, log=sys.stdout) -> None:
    """Replace that environment's lessons_lib (editable or not) with the wheel's."""
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    steps = [
        [python, "-m", "pip", "uninstall", "--yes", "lessons_lib"],
        [python, "-m", "pip", "install", "--no-deps", wheel],
    ]
    for step in steps:
        print("$", " ".join(map(str, step)), file=log, flush=True)
        # From a folder outside the checkout, so nothing of it can end up on the path.
        subprocess.run(
            step, cwd=python.parent, env=env, check=True, stdout=log, stderr=subprocess.STDOUT
        )


if __name__ == "__main__":
    wheel, _ = dist()
    python = binder_env.build(Path(sys.argv[1]) if len(sys.argv) > 1 else binder_env.DEFAULT)
    install_wheel(python, wheel)
    print(python)
