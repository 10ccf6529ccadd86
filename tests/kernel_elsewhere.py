"""nbval in a kernel of another Python environment (Binder's, the wheel's), not this one."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat

KERNELS_STDERR = "kernels-stderr.log"  # in the folder a kernelspec is written under


def kernelspec(python: Path, folder: Path, name: str) -> None:
    """A kernel named `name` of that python, under folder/kernels (put folder on JUPYTER_PATH).

    Its stderr goes to folder/KERNELS_STDERR (nbval would send it to /dev/null), so that a
    kernel that dies before it answers leaves its reason for the failure message."""
    spec = folder / "kernels" / name
    spec.mkdir(parents=True)
    launch = 'exec "$0" -m ipykernel_launcher -f "$1" 2>>"$2"'  # exec: the kernel keeps its pid
    argv = ["sh", "-c", launch, str(python), "{connection_file}", str(folder / KERNELS_STDERR)]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "language": "python"}))


def probe(path: Path, source: str, stdout: str) -> None:
    """A one-cell notebook whose stored output proves which kernel ran the others."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    notebook.cells[0].execution_count = 1
    notebook.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text=stdout)]
    nbformat.write(notebook, path)


def assert_nbval_passes(
    pytest_args: list, cwd: Path, jupyter_path: Path, env: dict[str, str] | None = None
) -> None:
    """Run pytest (nbval) with those arguments, its kernels seeing `env` as well; fail with
    its output unless all passed."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *map(str, pytest_args)],
        cwd=cwd,
        env={**os.environ, "JUPYTER_PATH": str(jupyter_path), **(env or {})},
        capture_output=True,
        text=True,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    kernels_said = jupyter_path / KERNELS_STDERR
    said = kernels_said.read_text()[-3000:] if kernels_said.exists() else ""
    assert done.returncode == 0, done.stdout[-6000:] + f"\n--- the kernels' stderr ---\n{said}"
    assert re.search(r"\d+ passed", summary) and "failed" not in summary, summary
