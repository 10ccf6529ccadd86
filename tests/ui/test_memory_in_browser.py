"""A learner's JupyterLab stays within Binder's memory: 1 GiB guaranteed, 2 GiB at most.

Binder counts a server's memory as its container does: every page the server and its
kernels hold, once. tools/lab_memory.py reads exactly that from /proc ("held"; PSS
where page numbers are hidden). JupyterHub, which Binder runs on, reckons 1G as 1 GiB.
One JupyterLab serves the whole sequence: the walk through the course as a learner
takes it, through the researcher track (the heaviest kernel), with every kernel left
running; then every other notebook opened, one of each kind of widget run (walked.py);
then a notebook whose kernel the server stopped is run again. The walk is the one the
notebooks test looks at (walked.py, the `walked` fixture of conftest.py): each notebook
is opened once for both. benchmarks/lab_memory.py measures every walk (course_walk.WALKS)
and runs every notebook after it; each link a walk clicks is checked here to be in the
notebook's text.
"""

import itertools
import posixpath
import re
import subprocess
import sys

import nbformat
import pytest

from tests.lab_server import ROOT
from tests.ui.course_walk import WALKS
from tools.lab_memory import Usage
from tools.notebooks import NOTEBOOKS, notebook_paths

GIB = 1 << 30


def mib(usage: Usage) -> str:
    held = "n/a" if usage.held is None else f"{usage.held >> 20}"
    return f"held {held} MiB, PSS {usage.pss >> 20} MiB, RSS {usage.rss >> 20} MiB, {usage.processes} processes"


def test_the_walk_map_track_exercise_stays_under_1_gib(walked):
    peak = walked["walk"]
    assert peak.processes >= 3, f"the server and two kernels should have been measured: {mib(peak)}"
    assert peak.total < GIB, f"the walk peaked at {mib(peak)}"


def test_every_notebook_open_each_kind_of_widget_run_stays_under_2_gib(walked):
    peak = walked["every"]
    assert len(notebook_paths()) >= 5
    assert peak.total < 2 * GIB, f"every notebook open peaked at {mib(peak)}"


def test_the_server_runs_at_most_two_kernels(walked):
    assert walked["kernels"] == 2
    assert walked["kernels after rerun"] == 2


def test_a_notebook_whose_kernel_was_stopped_runs_again_as_before(walked):
    """Its tab shows "No Kernel"; Run All starts a fresh kernel, then prints what it printed."""
    # The first code cell, the course's set-up, prints nothing where lessons_lib is installed.
    setup, *cells = walked["map"]
    assert setup == [] and cells != [] and all(cells), "the course map printed nothing"
    assert walked["rerun"] == walked["map"]


def linked_from(path: str) -> set[str]:
    """The notebooks a notebook's text links to, as paths below notebooks/."""
    nb = nbformat.read(NOTEBOOKS / path, as_version=4)
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    targets = re.findall(r"\]\(([^)\s#]+\.ipynb)\)", text)
    return {posixpath.normpath(posixpath.join(posixpath.dirname(path), t)) for t in targets}


@pytest.mark.parametrize("name", WALKS)
def test_each_walk_follows_a_link_of_the_notebook_before(name):
    """The walks click links (course_walk.follow_link): each must be in the notebook's text."""
    route = WALKS[name]
    for here, there in itertools.pairwise(route):
        assert there in linked_from(here), f"{here} links to no {there}"


def test_the_memory_benchmark_runs_and_prints_both_servers_side_by_side(browser):
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.lab_memory", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    assert "stock JupyterLab" in out and "course settings" in out, out
    assert "course map" in out, out
