"""Every notebook in JupyterLab in a real headless Chromium, as a learner sees it.

nbval proves stored outputs but cannot see a widget; this test can. Each of the walk's
notebooks is run, and one notebook of each kind of widget (walked.run_in_the_walk): every
code cell ran, none errored, no widget failed to display; each explorer's picture changes
when its point slider moves. The others show the outputs nbval proves, opened without a
run. None throws in the page or fetches from the network. All on the learner's walk that
the memory test measures (walked.py): one JupyterLab, one page, opened through a slow link
(tools/slow_link.py, a 100 ms round trip as on Binder). In lesson 1 a gradient explorer's
point move must be drawn sooner than any answer from the kernel could arrive. With
UI_SCREENSHOTS=1, screenshots land in build/ui/ for review.
"""

from pathlib import Path

import pytest

from tests.lab_server import ROOT
from tests.ui.course_walk import walk
from tests.ui.page_errors import failure
from tests.ui.walked import DELAY, run_in_the_walk, widget_kinds
from tools.notebooks import notebook_paths

NOTEBOOKS = notebook_paths()
OVER_A_SLOW_LINK = "01-custom-function/3-researcher.ipynb"  # the walk's gradient explorer


def relative(path: Path) -> str:
    return path.relative_to(ROOT / "notebooks").as_posix()


def errors_in(outputs: list) -> list[str]:
    """Error outputs and tracebacks printed to stderr, across every cell."""
    found = []
    for cell in outputs:
        for output in cell:
            if output["output_type"] == "error":
                found.append(f"{output['ename']}: {output['evalue']}")
            elif output.get("name") == "stderr" and "Traceback" in "".join(output["text"]):
                found.append("".join(output["text"]))
    return found


RUN = [path for path in NOTEBOOKS if relative(path) in run_in_the_walk()]
OPENED = [path for path in NOTEBOOKS if path not in RUN]


@pytest.mark.parametrize("path", OPENED, ids=relative)
def test_notebook_shows_its_stored_outputs_and_fetches_nothing(walked, path):
    seen = walked["looked"][relative(path)]
    if seen["page errors"]:
        pytest.fail(failure(seen["page errors"], "while this notebook opened"), pytrace=False)
    assert seen["ran"] is False and seen["outputs shown"] > 0
    assert seen["off machine"] == [], "JupyterLab or a notebook fetched from the network"


@pytest.mark.parametrize("path", RUN, ids=relative)
def test_notebook_runs_in_jupyterlab_and_its_explorers_respond(walked, path, ui_timings):
    seen = walked["looked"][relative(path)]
    if seen["page errors"]:
        pytest.fail(failure(seen["page errors"], "while this notebook ran"), pytrace=False)
    assert "failed" not in seen, seen.get("failed")
    counts = seen["counts"]
    assert None not in counts and len(counts) == len(set(counts)), f"cells that never ran: {counts}"
    assert errors_in(seen["outputs"]) == []
    assert seen["widget errors"] == 0
    latencies = []
    for explorer in seen["explorers"]:
        milliseconds = explorer["milliseconds"]
        assert milliseconds is not None, "the picture did not follow the point slider"
        assert explorer["label changed"]  # the words follow it too
        latencies.append(milliseconds / 1000)
        if relative(path) == OVER_A_SLOW_LINK:  # a kernel round trip alone takes 2 * DELAY
            assert milliseconds < 2000 * DELAY, f"the point move waited: {milliseconds:.0f} ms"
        assert explorer["new messages"] == 0, "moving raised"
    assert seen["off machine"] == [], "JupyterLab or a notebook fetched from the network"
    ui_timings[relative(path)] = (seen["seconds"], latencies)


def test_each_kind_of_widget_is_run_and_each_run_beyond_the_walk_adds_one():
    every_kind = set().union(*(widget_kinds(relative(path)) for path in NOTEBOOKS))
    assert every_kind == {
        "Gradient explorer",
        "Step-size explorer",
        "Surrogate explorer",
        "Training explorer",
        "IntProgress",
    }
    route = walk("researcher")
    shown = set().union(*map(widget_kinds, route))
    for path in run_in_the_walk()[len(route) :]:
        assert not widget_kinds(path) <= shown, f"{path} shows no new kind of widget"
        shown |= widget_kinds(path)
    assert shown == every_kind
