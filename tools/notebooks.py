"""Re-execute notebooks in a fresh kernel and store them normalised.

    python -m tools.notebooks [NOTEBOOK ...]    (default: every notebook under notebooks/)

A notebook is written back only if every cell ran without error, so a stored
notebook is always a clean top-to-bottom run. `normalise` is also what the tests
use to prove the stored notebooks carry no volatile noise.
"""

import copy
import hashlib
import json
import os
import sys
from pathlib import Path

import nbformat
from jupyter_client import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
# Every notebook's first code cell, so it runs outside this repository (Colab); see the file.
FIRST_CELL = Path(__file__).with_name("first_cell.py")
FIRST_CELL_TAG = "course-setup"
# Collapsed in JupyterLab, a form in Colab, left out of the slide decks.
FIRST_CELL_METADATA = {
    "cellView": "form",
    "jupyter": {"source_hidden": True},
    "slideshow": {"slide_type": "skip"},
    "tags": [FIRST_CELL_TAG],
}
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# Cell metadata that changes on every run or every machine.
VOLATILE_CELL_KEYS = ("execution", "ExecuteTime", "collapsed", "scrolled")


def sources_digest(nb: nbformat.NotebookNode) -> str:
    """sha256 of the code cells' sources in order: what the stored outputs were made from."""
    sources = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    return hashlib.sha256(json.dumps(sources).encode()).hexdigest()


def notebook_paths() -> list[Path]:
    """Every notebook of the course, in reading order."""
    return sorted(p for p in NOTEBOOKS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop widget state blobs and volatile metadata; pin the kernelspec."""
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for cell in nb.cells:
        for key in VOLATILE_CELL_KEYS:
            cell.metadata.pop(key, None)
    return nb


def with_first_cell(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """nb with tools/first_cell.py as its first code cell, right after the title, once."""
    nb.cells = [c for c in nb.cells if FIRST_CELL_TAG not in c.metadata.get("tags", [])]
    cell = nbformat.v4.new_code_cell(FIRST_CELL.read_text().rstrip("\n"))
    cell.metadata = copy.deepcopy(FIRST_CELL_METADATA)
    cell.id = FIRST_CELL_TAG  # stable, so re-recording changes nothing
    nb.cells.insert(1, cell)
    return nb


def course_kernel() -> KernelManager:
    """A kernel of this very Python, whatever kernelspecs the machine has installed.

    Its self-checks record no progress: re-running the course is not a learner's work.
    """
    os.environ["LESSONS_PROGRESS"] = "off"  # the kernel inherits this process's environment
    return KernelManager(
        kernel_name=CURRENT_ENV_KERNEL_NAME, kernel_spec_manager=NbvalKernelspecManager()
    )


def execute(path: Path) -> None:
    """Run one notebook top to bottom in a fresh kernel of this environment; store it."""
    nb = with_first_cell(nbformat.read(path, as_version=4))
    client = NotebookClient(
        nb, km=course_kernel(), timeout=600, resources={"metadata": {"path": path.parent}}
    )
    client.execute()
    # `make site` compares it with the sources it publishes: an edited cell means stale outputs.
    nb.metadata.setdefault("course", {})["sources_sha256"] = sources_digest(nb)
    nbformat.validate(nb)
    nbformat.write(normalise(nb), path)


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or notebook_paths()
    failed = []
    for path in paths:
        print(f"running {path} ...", flush=True)
        try:
            execute(path)
        except CellExecutionError as error:
            failed.append(path)
            print(f"  a cell raised, so {path} was left unchanged:\n{error}", file=sys.stderr)
    print(f"{len(paths) - len(failed)} of {len(paths)} notebook(s) re-run and stored.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
