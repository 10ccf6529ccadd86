"""A learner's JupyterLab stays within Binder's memory: 1 GiB guaranteed, 2 GiB at most.

Binder counts a server's memory as its container does: every page the server and its
kernels hold, once. tools/lab_memory.py reads exactly that from /proc ("held"; PSS
where page numbers are hidden). JupyterHub, which Binder runs on, reckons 1G as 1 GiB.
One JupyterLab serves the whole sequence: the walk through the course as a learner
takes it, through the researcher track (the heaviest kernel), with every kernel left
running; then every other notebook opened and run; then a notebook whose kernel the
server stopped is run again.
"""

import subprocess
import sys

import pytest

from tests.lab_server import ROOT
from tests.ui.course_walk import (
    COURSE_MAP,
    course_lab,
    every_notebook,
    follow_link,
    open_notebook,
    run_all,
    running_kernels,
    start,
    walk,
)
from tools.lab_memory import Usage, watching
from tools.notebooks import notebook_paths

GIB = 1 << 30


def mib(usage: Usage) -> str:
    held = "n/a" if usage.held is None else f"{usage.held >> 20}"
    return f"held {held} MiB, PSS {usage.pss >> 20} MiB, RSS {usage.rss >> 20} MiB, {usage.processes} processes"


@pytest.fixture(scope="module")
def walked(browser):
    """Peaks of the walk and of every notebook open, and what the page shows afterwards."""
    with course_lab() as lab, watching(lab.pid) as memory:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        route = walk("researcher")
        start(page, lab)
        map_outputs = run_all(page)
        for path in route[1:]:
            follow_link(page, path)
            run_all(page)
        memory.sample()  # the last moment counts too, not only the watcher's last look
        walk_peak = memory.peak
        for path in every_notebook():
            if path not in route:
                open_notebook(page, path)
                run_all(page)
        memory.sample()
        every_peak = memory.peak
        kernels_after_all = running_kernels(page)
        open_notebook(page, COURSE_MAP)  # its tab, still open; its kernel was stopped
        # JupyterLab's Run All in a tab with no kernel starts one and runs only the first cell
        # in it (here the set-up cell); the next Run All runs every cell.
        first_run = run_all(page)
        rerun_outputs = run_all(page)
        yield {
            "walk": walk_peak,
            "every": every_peak,
            "kernels": kernels_after_all,
            "kernels after rerun": running_kernels(page),
            "map": map_outputs,
            "first run": first_run,
            "rerun": rerun_outputs,
        }
        page.close()


def test_the_walk_map_track_exercise_stays_under_1_gib(walked):
    peak = walked["walk"]
    assert peak.processes >= 3, f"the server and two kernels should have been measured: {mib(peak)}"
    assert peak.total < GIB, f"the walk peaked at {mib(peak)}"


def test_every_notebook_open_and_run_stays_under_2_gib(walked):
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
