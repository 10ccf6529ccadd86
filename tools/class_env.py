"""The class's shared environment: what the hub and every learner's server run.

    python -m tools.class_env [PREFIX]      (default: /srv/lessons-class)

Learners' servers run as their own Unix users, who cannot enter root's home, where the
PATH's first Python lives; nor, in CI, the checkout (a 0700 temporary folder). So the
environment is a venv of Debian's /usr/bin/python3.11 in PREFIX/env, readable by all,
holding the learner's pins (requirements.txt), the class's (requirements-class.txt: the
hub, its idle culler, nbgitpuller), lessons_lib installed from a wheel of this checkout
(not editable: the checkout may be unreadable), and the settings `make lab` installs
(binder/: plain-English hints, two kernels under MEM_LIMIT; no news prompt).

The venv is rebuilt only when the pins change (PREFIX/env/.pins holds their hash);
lessons_lib's wheel is reinstalled when its sources or the settings change (.course).
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFIX = Path("/srv/lessons-class")
PYTHON = "/usr/bin/python3.11"
PINS = ("requirements.txt", "requirements-class.txt")
SETTINGS = ("binder/ipython_kernel_config.py", "binder/jupyter_server_config.py")
NEWS_PLUGIN = "@jupyterlab/apputils-extension:announcements"
# The hub hands each learner's server an API token in its environment. Kernels and
# terminals start without it (it is scoped to the learner's own server anyway: see
# hub/jupyterhub_config.py and tests/hub/).
HUB_SECRETS = ("JUPYTERHUB_API_TOKEN", "JPY_API_TOKEN")


def without_secrets(command: list[str]) -> list[str]:
    """command, started through env(1) with the hub's tokens removed from its environment."""
    return ["/usr/bin/env", *(x for name in HUB_SECRETS for x in ("-u", name)), *command]


def install_settings(env: Path) -> None:
    """The course's settings (as `make lab` installs them) and the class's kernel and terminal."""
    for setting, where in zip(SETTINGS, ("etc/ipython", "etc/jupyter"), strict=True):
        (env / where).mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / setting, env / where)
    kernel = env / "share/jupyter/kernels/python3/kernel.json"
    spec = json.loads(kernel.read_text())
    python = str(env / "bin" / "python")
    spec["argv"] = without_secrets([python, "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    kernel.write_text(json.dumps(spec, indent=1))
    terminal = env / "etc/jupyter/jupyter_server_config.d/lessons-class.json"
    terminal.parent.mkdir(parents=True, exist_ok=True)
    shell = {
        "ServerApp": {"terminado_settings": {"shell_command": without_secrets(["/bin/bash", "-l"])}}
    }
    terminal.write_text(json.dumps(shell, indent=1))
    run(
        env / "bin" / "jupyter",
        "labextension",
        "disable",
        "--level=sys_prefix",
        NEWS_PLUGIN,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def digest(paths: list[Path]) -> str:
    """One hash of these files' names and contents."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def pins_digest() -> str:
    return digest([ROOT / p for p in PINS])


PINS_STAMP = ".pins"  # in the venv: the hash of the pins it holds, written once pip is done


def installed(env: Path) -> bool:
    """Whether env holds every pinned package: its PINS_STAMP, written once pip has
    installed them, names the current pins (a build under way has none yet)."""
    stamp = env / PINS_STAMP
    return stamp.exists() and stamp.read_text() == pins_digest()


def course_digest() -> str:
    sources = [
        p for p in (ROOT / "lessons_lib").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ]
    return digest(
        [*sources, ROOT / "pyproject.toml", Path(__file__), *(ROOT / s for s in SETTINGS)]
    )


def run(*args, **kwargs) -> None:
    print("$", " ".join(map(str, args)), flush=True)
    subprocess.run(args, check=True, **kwargs)


def build(prefix: Path = PREFIX) -> Path:
    """Make PREFIX/env current; return it."""
    os.umask(0o022)  # everything readable (and programs runnable) by every learner
    if not Path(PYTHON).exists():
        raise SystemExit(
            f"the class's environment needs Debian's {PYTHON}: apt-get install python3.11-venv"
        )
    env = prefix / "env"
    prefix.mkdir(parents=True, exist_ok=True)
    prefix.chmod(0o755)
    pip = [env / "bin" / "python", "-m", "pip", "--disable-pip-version-check"]
    if not installed(env):
        print(f"Building the class's environment in {env}/ (pins changed or first run; minutes)")
        shutil.rmtree(env, ignore_errors=True)
        run(PYTHON, "-m", "venv", env)
        run(*pip, "install", "--quiet", *(x for p in PINS for x in ("-r", ROOT / p)))
        (env / PINS_STAMP).write_text(pins_digest())
        (env / ".course").unlink(missing_ok=True)
    course_stamp, course = env / ".course", course_digest()
    if not course_stamp.exists() or course_stamp.read_text() != course:
        with tempfile.TemporaryDirectory() as wheels, tempfile.TemporaryDirectory() as src:
            # Built from a copy, so the checkout gets no build/ or egg-info of ours.
            copy = Path(src) / "course"
            for name in (
                "pyproject.toml",
                "README.md",
                "MANIFEST.in",
                "LICENSE",
                "LICENSE-CC-BY-4.0",
            ):
                (copy / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / name, copy / name)
            shutil.copytree(
                ROOT / "lessons_lib",
                copy / "lessons_lib",
                ignore=shutil.ignore_patterns("__pycache__"),
            )
            run(*pip, "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", wheels, copy)
            wheel = next(Path(wheels).glob("lessons_lib-*.whl"))
            run(*pip, "install", "--quiet", "--no-deps", "--force-reinstall", wheel)
        install_settings(env)
        course_stamp.write_text(course)
    return env


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else PREFIX))
