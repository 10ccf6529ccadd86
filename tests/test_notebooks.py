"""The stored notebooks are clean, normalised, top-to-bottom runs with the house skeleton.

nbval (configured in pyproject.toml) re-executes each notebook and compares outputs;
these checks cover what nbval cannot see: how the notebook was stored.
"""

import copy
import re
import subprocess
import sys

import nbformat
import pytest

from tools.notebooks import normalise, notebook_paths

NOTEBOOKS = notebook_paths()


def test_the_course_map_exists():
    assert [p.name for p in NOTEBOOKS][:1] == ["00-start-here.ipynb"]


def test_the_notebooks_folder_holds_only_what_learners_open():
    """Every file git tracks there is a notebook or the teacher's guide: a picture written
    beside a notebook (nbconvert's *_c12_0.png) would show in every learner's file browser."""
    tracked = subprocess.run(
        ["git", "ls-files", "notebooks"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert [p for p in tracked if not p.endswith(".ipynb")] == ["notebooks/teachers-guide.md"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_normalised(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert normalise(copy.deepcopy(nb)) == nb, "run `make notebooks` to store it normalised"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_a_clean_top_to_bottom_run(path):
    cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1))
    errors = [o for c in cells for o in c.outputs if o.output_type == "error"]
    assert errors == [], "a stored cell raised; cells meant to fail must catch and print"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_follows_the_skeleton(path):
    text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    for heading in ["What you will learn", "What you need first", "How long it takes"]:
        assert heading.lower() in text.lower(), heading
    assert "## Remember this" in text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_heading_starts_a_slide(path):
    """Teachers build a deck per notebook with `make slides`; headings mark its slides."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown" and cell.source.startswith("#"):
            assert cell.metadata.get("slideshow", {}).get("slide_type") == "slide", cell.source[:60]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file(path):
    text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not target.startswith(("http://", "https://", "#", "mailto:")):
            assert (path.parent / target.split("#")[0]).exists(), target


def test_the_notebook_benchmark_runs_and_reports_time_and_peak_memory():
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.notebooks", str(NOTEBOOKS[0])],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.search(r"00-start-here\.ipynb\s+\d+\.\d\s+(\d+|n/a)\n", out), out
