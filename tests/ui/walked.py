"""One JupyterLab, one page, every notebook run once: what the memory and notebook tests judge.

The learner's walk (course_walk.py) as the memory test takes it: the course map, the
researcher track and the exercise, each followed by its link, then every other notebook
opened, every kernel left running, then the course map run again in a fresh kernel. Of the
other notebooks, one of each kind of widget their stored outputs hold is run: a widget shows
only from a live kernel (run_in_the_walk). The rest show their stored outputs, which nbval
proves are what a fresh kernel prints (tests/test_installed_course.py);
benchmarks/lab_memory.py runs every one.
After each notebook's run, and before the next opens, the page is looked at as the notebooks
test looks at it (`look`): which cells ran, errors, widgets, each explorer's picture
following its point slider, its timings. With UI_SCREENSHOTS=1 the walk also saves what the
page showed in build/ui/, for review (they cost about a fifth of the walk's time).
The page is opened through a slow link (tools/slow_link.py, a 100 ms round trip as on
Binder), which changes nothing the memory test measures: the server and its kernels.
Both test modules read the record; a notebook run fails only its own test.
"""

import functools
import os
import re
import shutil
from collections.abc import Iterator
from urllib.parse import urlsplit

import nbformat

from tests.lab_server import ROOT
from tests.ui.course_walk import (
    COURSE_MAP,
    course_lab,
    every_notebook,
    follow_link,
    open_notebook,
    run_all,
    run_all_timed,
    running_kernels,
    start,
    walk,
)
from tests.ui.page_errors import PAGE_ERRORS
from tools.lab_memory import watching
from tools.page_timing import key_to_picture
from tools.slow_link import SlowLink

ARTIFACTS = ROOT / "build" / "ui"
SCREENSHOTS = os.environ.get("UI_SCREENSHOTS") == "1"
DELAY = 0.05  # seconds each way: a 100 ms round trip
SHOWN = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook in front, not the tabs behind
WIDGET = "application/vnd.jupyter.widget-view+json"
KERNEL_IDLE = (
    "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'"
)
# Every widget output of the notebook in front shows its view, or the error it met instead:
# a view appears only once its model has come from the kernel.
WIDGETS_SHOWN = """(widget) => window.jupyterapp.shell.currentWidget.content.widgets
  .filter((cell) => cell.model.type === 'code')
  .every((cell) => cell.outputArea.model.toJSON().every((output, index) => {
    if (!output.data?.[widget]) return true;
    const shown = cell.outputArea.widgets[index]?.node.querySelector('.jp-OutputArea-output');
    return Boolean(shown) && (shown.childElementCount > 0 || shown.textContent.trim() !== '');
  }))"""


def widget_kinds(path: str) -> set[str]:
    """The kinds of widget the notebook's stored outputs hold, each named by the start of its
    text: "Gradient explorer", "Step-size explorer", "Training explorer", "IntProgress"."""
    nb = nbformat.read(ROOT / "notebooks" / path, as_version=4)
    outputs = [output for cell in nb.cells if cell.cell_type == "code" for output in cell.outputs]
    texts = [out["data"].get("text/plain", "") for out in outputs if WIDGET in out.get("data", {})]
    return {re.split(r" for |:|\(", text, maxsplit=1)[0] for text in texts}


@functools.cache
def run_in_the_walk() -> tuple[str, ...]:
    """The walk's notebooks, then each notebook that shows a kind of widget none before it
    showed. A widget shows only from a live kernel, so each kind is run once in JupyterLab;
    a second notebook of a kind is no new check of the page (tests/ui/test_*explorer*.py
    drive every explorer in depth), and the three such notebooks took 31 s of the walk's
    127 s, measured alone."""
    runs = list(walk("researcher"))
    shown = set().union(*map(widget_kinds, runs))
    for path in every_notebook():
        if path not in runs and not widget_kinds(path) <= shown:
            runs.append(path)
            shown |= widget_kinds(path)
    return tuple(runs)


def off_machine(url: str, found: list[str]) -> None:
    host = urlsplit(url).hostname
    if urlsplit(url).scheme not in ("data", "blob") and host not in ("127.0.0.1", None):
        found.append(url)


def screenshot(shown, name: str, **options) -> None:
    """Save what a page or element shows as build/ui/NAME.png, if UI_SCREENSHOTS=1."""
    if SCREENSHOTS:
        shown.screenshot(path=ARTIFACTS / f"{name}.png", **options)


def shot_name(path: str) -> str:
    """Its screenshots' name: 01-custom-function/1-beginner.ipynb -> 01-custom-function__1-beginner."""
    return path.replace("/", "__").removesuffix(".ipynb")


def look(page, path: str, result: dict) -> dict:
    """What the page shows of the notebook in front, just run: every fact the test judges."""
    name = shot_name(path)
    page.wait_for_function(WIDGETS_SHOWN, arg=WIDGET, timeout=30_000)
    seen = {
        "counts": result["counts"],
        "outputs": result["outputs"],
        "seconds": result["seconds"],
        "widget errors": page.locator(SHOWN).get_by_text("Error displaying widget").count(),
        "explorers": [],
        "ran": True,
    }
    # Explorers with a point slider; the training explorer has none (its widget errors count above)
    explorers = page.locator(f"{SHOWN} .lessons-explorer:not(.training-explorer)")
    for index in range(explorers.count()):
        explorer = explorers.nth(index)
        explorer.scroll_into_view_if_needed()
        picture = explorer.locator(".explorer-picture[data-revision]")  # its curves have arrived
        picture.wait_for()
        before = picture.get_attribute("aria-label")
        messages_before = explorer.locator(".explorer-error").count()
        screenshot(explorer, f"{name}-explorer{index}-before")
        handle = explorer.locator(".explorer-point .noUi-handle").first
        milliseconds = key_to_picture(handle, picture, "ArrowRight", "data-x")
        seen["explorers"].append(
            {
                "milliseconds": milliseconds,
                "label changed": picture.get_attribute("aria-label") != before,
                "new messages": explorer.locator(".explorer-error").count() - messages_before,
            }
        )
        screenshot(explorer, f"{name}-explorer{index}-after")
    screenshot(page, name, full_page=True)
    return seen


def run_and_look(page, path: str, looked: dict) -> list:
    """Run the notebook in front, look at it, keep what was seen (or what went wrong)."""
    result = run_all_timed(page)
    try:
        looked[path] = look(page, path, result)
    except Exception as error:  # judged by this notebook's test, not the whole walk
        looked[path] = {"failed": f"{type(error).__name__}: {error}"}
    looked[path]["page errors"] = PAGE_ERRORS.take()
    looked[path]["off machine"] = list(page.off_machine)
    return result["outputs"]


def open_and_look(page, path: str, looked: dict) -> None:
    """Open a notebook without running it: its stored outputs, as JupyterLab shows them."""
    open_notebook(page, path)
    # As a learner reads it: its kernel has started (a starting kernel is never stopped, so
    # opening the next at once would leave three running: binder/jupyter_server_config.py).
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)  # its stored outputs show by then
    looked[path] = {
        "ran": False,
        "outputs shown": page.locator(f"{SHOWN} .jp-OutputArea-output").count(),
        "page errors": PAGE_ERRORS.take(),
        "off machine": list(page.off_machine),
    }
    screenshot(page, shot_name(path))


def walk_and_look(browser) -> Iterator[dict]:
    """The walk, every notebook looked at on the way, and what the page shows afterwards."""
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    looked: dict[str, dict] = {}
    with (
        course_lab(every_cell_rendered=True) as lab,
        SlowLink(lab.port, DELAY) as link,
        watching(lab.pid) as memory,
    ):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.off_machine = []  # every request that would leave this machine
        page.on("request", lambda request: off_machine(request.url, page.off_machine))
        route = walk("researcher")
        start(page, lab, base=f"http://127.0.0.1:{link.port}")
        map_outputs = run_and_look(page, COURSE_MAP, looked)
        for path in route[1:]:
            follow_link(page, path)
            run_and_look(page, path, looked)
        memory.sample()  # the last moment counts too, not only the watcher's last look
        walk_peak = memory.peak
        for path in every_notebook():
            if path in route:
                continue
            if path in run_in_the_walk():
                open_notebook(page, path)
                run_and_look(page, path, looked)
            else:
                open_and_look(page, path, looked)
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
            "looked": looked,
            "off machine": list(page.off_machine),
        }
        page.close()
