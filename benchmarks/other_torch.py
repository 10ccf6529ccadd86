"""The course on another torch release: lessons_lib's tests and every notebook, run there.

    .venv/bin/python -m benchmarks.other_torch [--torch 2.14.1] [--keep]

The course pins torch==2.13.0; learners (Colab) have whatever torch they have. This builds
build/torch-<version>/, a python3.11 venv holding requirements.txt with only the torch pin
changed, requirements-test.txt and lessons_lib (a plain, non-editable install), and the
course's kernel settings (binder/ipython_kernel_config.py, as `make` installs them); its pip
log is build/torch-<version>.log. PyPI's torch 2.14.1 is a CUDA build (~6 GB here) that
runs on the CPU. A venv that already holds that torch is reused, not rebuilt (pip then only
checks the pins and reinstalls lessons_lib). --keep keeps what each step
wrote (junit XML, pytest's output) in build/torch-<version>/runs/; without it they go.

Then, in that venv (its own pytest; each notebook in a kernel of its own python):
  tests     lessons_lib's tests, bar what `make check` leaves out (the Makefile's QUICK_SKIP)
            and the few tests that are about the course's own .venv (EXCLUDED, with why);
  lax       every notebook run top to bottom, outputs not compared (--nbval-lax);
  strict    every notebook again with full comparison (--nbval, the suite's own options), to
            LIST the stored outputs that differ on this torch. Information, not a failure.

How to read the table: a test failure or a notebook failing lax means the course breaks on
that torch: the exit status is 1. Cells listed under strict still run there; what they
print differs from what is stored (a number, a warning, an error text): where a learner
would notice, the course should say that it differs between torch releases.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tools.installed_env import dist

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
PYTHON = "python3.11"  # what the course's .venv and Binder run
DEFAULT_TORCH = "2.14.1"
TORCH_PIN = re.compile(r"^torch==[^\s#;]+", re.M)
INCLUDE_LEARNERS_LIST = re.compile(r"^(-r|--requirement)\s+requirements\.txt\s*$", re.M)
# Any other include, made absolute: the rewritten list is written outside the repository.
OTHER_INCLUDE = re.compile(r"^(-r|--requirement)\s+(?!/)(\S+)", re.M)
# Tests about the course's own .venv, not about lessons_lib: they would run that .venv (and
# build it where it is missing), so they say nothing about the other torch. Found by running
# the suite in build/torch-2.14.1/.
EXCLUDED = {
    "tests/test_lab.py": "starts `make lab`, which serves the course's .venv (torch 2.13.0)",
    "tests/test_slides.py": "runs `make slides`, the course's .venv's nbconvert (runs no cell)",
}


def quick_skip() -> list[str]:
    """What `make check` leaves out (browsers, the hub's class, Binder's and the wheel's
    builds), read from the Makefile so that both leave out the same."""
    line = re.search(r"^QUICK_SKIP\s*:=(.*)$", (ROOT / "Makefile").read_text(), re.M)
    if line is None:
        raise SystemExit("the Makefile no longer sets QUICK_SKIP: say here what to leave out")
    return shlex.split(line[1])


def pinned_list(learners: str, tests: str, torch_version: str) -> str:
    """requirements.txt with its torch pin set to torch_version, then requirements-test.txt
    without its include of requirements.txt (which would bring the old pin back)."""
    if len(TORCH_PIN.findall(learners)) != 1:
        raise ValueError("requirements.txt must pin torch exactly once (torch==X)")
    if TORCH_PIN.search(tests):
        raise ValueError("requirements-test.txt pins torch itself; only requirements.txt may")
    return (
        TORCH_PIN.sub(f"torch=={torch_version}", learners)
        + "\n"
        + OTHER_INCLUDE.sub(lambda m: f"{m[1]} {ROOT / m[2]}", INCLUDE_LEARNERS_LIST.sub("", tests))
    )


def installed_torch(python: Path) -> str | None:
    """The torch version a venv holds (local tag dropped), or None."""
    if not python.exists():
        return None
    done = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('torch'))"],
        capture_output=True,
        text=True,
    )
    return done.stdout.strip().split("+")[0] if done.returncode == 0 else None


def run_logged(argv: list, log, **kwargs) -> None:
    print("$", " ".join(map(str, argv)), file=log, flush=True)
    subprocess.run(argv, check=True, stdout=log, stderr=subprocess.STDOUT, **kwargs)


def build(torch_version: str, venv: Path, log) -> tuple[Path, bool]:
    """venv holding the course's lists with torch_version, and lessons_lib: its python, and
    whether an existing venv was reused."""
    python = venv / "bin" / "python"
    reused = installed_torch(python) == torch_version
    if reused:
        print(f"reused {venv.relative_to(ROOT)}: it already holds torch {torch_version}")
    else:
        shutil.rmtree(venv, ignore_errors=True)
        print(f"building {venv.relative_to(ROOT)} with torch {torch_version} (minutes: GBs)")
        run_logged([PYTHON, "-m", "venv", venv], log)
    venv.mkdir(exist_ok=True)
    pins = venv / "requirements-other-torch.txt"
    pins.write_text(
        pinned_list(
            (ROOT / "requirements.txt").read_text(),
            (ROOT / "requirements-test.txt").read_text(),
            torch_version,
        )
    )
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check"]
    run_logged([*pip, "-r", pins], log)  # pip's cache kept; a reused venv only checks pins
    # The wheel tests/test_installed_course.py checks, reinstalled every run: a non-editable
    # install would otherwise go stale.
    wheel, _ = dist(log)
    run_logged([*pip, "--no-deps", "--force-reinstall", wheel], log)
    # Every kernel of the course's environments loads the plain-English hints (as `make`
    # installs them); stored outputs count on them.
    (venv / "etc" / "ipython").mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "binder" / "ipython_kernel_config.py", venv / "etc" / "ipython")
    return python, reused


@dataclass
class Outcome:
    """What one pytest run found, read from its junit XML."""

    counts: Counter = field(default_factory=Counter)  # passed, failed, skipped
    failed: list[str] = field(default_factory=list)  # test ids, file::name
    by_file: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    differs: dict[str, list[str]] = field(default_factory=dict)  # test id: what_differs()
    seconds: float = 0.0


# Colour codes, raw or as pytest's junit XML escapes them.
COLOUR = re.compile(r"(\x1b|#x1B)\[[0-9;]*m")


def what_differs(message: str) -> list[str]:
    """nbval's reason for a failed cell, shortened: what the kernel printed against what is
    stored (from pytest's diff, whose '-' lines are the new run's), or which output is new."""
    shown = []
    for line in COLOUR.sub("", message).split("Traceback:", 1)[-1].splitlines():
        line = line.strip()
        if line.startswith("- "):
            shown.append(f"got:    {line[2:]}")
        elif line.startswith("+ "):
            shown.append(f"stored: {line[2:]}")
        elif line.startswith(("Unexpected output", "Expected output")):
            shown.append(line)
    return shown


def read_junit(path: Path) -> Outcome:
    outcome = Outcome()
    for case in ET.parse(path).iter("testcase"):
        kinds = {child.tag for child in case}
        reports = [child.text or "" for child in case if child.tag in ("failure", "error")]
        if kinds & {"failure", "error"}:
            kind = "failed"
        elif "skipped" in kinds:
            kind = "skipped"
        else:
            kind = "passed"
        where = case.get("file") or case.get("classname", "?")
        outcome.counts[kind] += 1
        outcome.by_file[where][kind] += 1
        if kind == "failed":
            test_id = f"{where}::{case.get('name')}"
            outcome.failed.append(test_id)
            outcome.differs[test_id] = what_differs("".join(reports))
    return outcome


def suite_options() -> str:
    """The suite's own pytest options (pyproject.toml): strict nbval in the current env."""
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    return ini["addopts"]


def venv_env(python: Path) -> dict[str, str]:
    """This environment as if that venv were activated: whatever a test finds on PATH (jupyter,
    pip) is the other torch's, never the course's .venv."""
    env = {**os.environ, "PATH": f"{python.parent}{os.pathsep}{os.environ['PATH']}"}
    env["VIRTUAL_ENV"] = str(python.parent.parent)
    return env


def run_pytest(python: Path, name: str, options: str, args: list[str], runs: Path) -> Outcome:
    """One pytest run in the other venv, from the repository root; output kept in runs/."""
    junit = runs / f"{name}.xml"
    argv = [python, "-m", "pytest", "-o", f"addopts={options}", f"--junitxml={junit}", *args]
    started = time.perf_counter()
    with (runs / f"{name}.txt").open("w") as out:
        print("$", " ".join(map(str, argv)), file=out, flush=True)
        done = subprocess.run(
            argv, cwd=ROOT, env=venv_env(python), stdout=out, stderr=subprocess.STDOUT
        )
    seconds = time.perf_counter() - started
    if not junit.exists():  # pytest did not even collect: count it as one failure
        outcome = Outcome(
            counts=Counter(failed=1), failed=[f"{name}: pytest exit {done.returncode}"]
        )
    else:
        outcome = read_junit(junit)
    outcome.seconds = seconds
    return outcome


def notebooks_passed(outcome: Outcome) -> tuple[int, int]:
    """How many notebooks ran every cell without error, of how many."""
    files = outcome.by_file
    return sum(1 for counts in files.values() if counts["failed"] == 0), len(files)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--torch", default=DEFAULT_TORCH, help="the torch release to try")
    parser.add_argument("--keep", action="store_true", help="keep each step's output and XML")
    args = parser.parse_args(argv)

    venv = BUILD / f"torch-{args.torch}"
    BUILD.mkdir(exist_ok=True)
    started = time.perf_counter()
    log_path = BUILD / f"torch-{args.torch}.log"
    with log_path.open("w") as log:
        try:
            python, reused = build(args.torch, venv, log)
        except subprocess.CalledProcessError as error:
            tail = "\n".join(log_path.read_text().splitlines()[-20:])
            print(f"the venv did not build ({error.cmd}); end of {log_path}:\n{tail}")
            return 1
    build_seconds = time.perf_counter() - started
    got = installed_torch(python)
    runs = venv / "runs"
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir()

    strict = suite_options()
    lax = strict.replace("--nbval ", "--nbval-lax ")
    assert "--nbval-lax " in lax and "--nbval-current-env" in lax
    excluded = [f"--ignore={path}" for path in EXCLUDED]
    tests = run_pytest(python, "tests", strict, ["tests", *quick_skip(), *excluded], runs)
    nb_lax = run_pytest(python, "notebooks-lax", lax, ["notebooks"], runs)
    nb_strict = run_pytest(python, "notebooks-strict", strict, ["notebooks"], runs)

    passed, total = notebooks_passed(nb_lax)
    c = tests.counts
    print()
    print(
        f"torch {got} in {venv.relative_to(ROOT)} (course pins {TORCH_PIN.search((ROOT / 'requirements.txt').read_text())[0]})"
    )
    print(f"{'step':28} {'result':44} {'seconds':>8}")
    print(f"{'build venv':28} {'reused' if reused else 'built':44} {build_seconds:8.0f}")
    result = f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped"
    print(f"{'lessons_lib tests':28} {result:44} {tests.seconds:8.0f}")
    print(
        f"{'notebooks, lax (run only)':28} {f'{passed} of {total} passed':44} {nb_lax.seconds:8.0f}"
    )
    differs = f"{len(nb_strict.failed)} of {sum(nb_strict.counts.values())} cells differ"
    print(f"{'notebooks, strict (compare)':28} {differs:44} {nb_strict.seconds:8.0f}")
    print(f"\nleft out as `make check` does: {' '.join(quick_skip())}")
    print("left out, about the course's own .venv:")
    for path, why in EXCLUDED.items():
        print(f"  {path}: {why}")
    for title, ids in [("failed tests", tests.failed), ("cells failing lax", nb_lax.failed)]:
        if ids:
            print(f"\n{title}:")
            print("\n".join(f"  {test_id}" for test_id in ids))
    if nb_strict.failed:
        print("\nstored outputs that differ (strict; information, not failure):")
        for test_id in nb_strict.failed:
            print(f"  {test_id}")
            print("\n".join(f"      {line}" for line in nb_strict.differs[test_id]))
    if args.keep:
        print(f"\neach step's output: {runs.relative_to(ROOT)}/")
    else:
        shutil.rmtree(runs)
    return 1 if tests.failed or nb_lax.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
