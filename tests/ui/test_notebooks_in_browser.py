"""Every notebook, run in JupyterLab in a real headless Chromium, works as a learner sees it.

nbval proves stored outputs but cannot see a widget; this test can. Per notebook: run
all cells; every code cell ran, none errored, no widget failed to display; each
explorer's picture changes when its point slider moves. The beginner notebook is opened
through a slow link (tools/slow_link.py, a 100 ms round trip as on Binder), and there a
point move must be drawn sooner than any answer from the kernel could arrive.
Screenshots and timings land in build/ui/ for review.
"""

import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.lab_server import ROOT, running_lab
from tools.notebooks import notebook_paths
from tools.page_timing import key_to_picture
from tools.slow_link import SlowLink

ARTIFACTS = ROOT / "build" / "ui"
NOTEBOOKS = notebook_paths()
OVER_A_SLOW_LINK = "01-custom-function/1-beginner.ipynb"
DELAY = 0.05  # seconds each way: a 100 ms round trip
RUN_ALL = """async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  await panel.context.ready;
  await panel.sessionContext.ready;
  const started = performance.now();
  await app.commands.execute('notebook:run-all-cells');
  const cells = panel.content.widgets.filter(cell => cell.model.type === 'code');
  return {
    seconds: (performance.now() - started) / 1000,
    counts: cells.map(cell => cell.model.executionCount),
    outputs: cells.map(cell => cell.model.outputs.toJSON()),
  };
}"""
SHUT_DOWN = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.sessionContext.shutdown();
}"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab serving a scratch copy of notebooks/, so runs never touch stored outputs."""
    scratch = tmp_path_factory.mktemp("course")
    copy = scratch / "notebooks"
    shutil.copytree(ROOT / "notebooks", copy, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    # Private JupyterLab settings: render every cell (no windowing), so each explorer
    # can be reached; the machine's own settings and workspaces stay untouched.
    settings = scratch / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    env = {
        "JUPYTERLAB_SETTINGS_DIR": str(scratch / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(scratch / "workspaces"),
    }
    with running_lab(
        "--LabApp.expose_app_in_browser=True", name="ui", course_dir=copy, env=env
    ) as lab:
        yield lab


@pytest.fixture(scope="module")
def slow_link(lab):
    with SlowLink(lab.port, DELAY) as link:
        yield link


@pytest.fixture
def page(browser, lab):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.off_machine = []  # every request that would leave this machine
    page.on("request", lambda request: off_machine(request.url, page.off_machine))
    yield page
    page.close()


def off_machine(url: str, found: list[str]) -> None:
    host = urlsplit(url).hostname
    if urlsplit(url).scheme not in ("data", "blob") and host not in ("127.0.0.1", None):
        found.append(url)


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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=relative)
def test_notebook_runs_in_jupyterlab_and_its_explorers_respond(
    page, lab, slow_link, path, ui_timings
):
    name = relative(path).replace("/", "__").removesuffix(".ipynb")
    slow = relative(path) == OVER_A_SLOW_LINK
    base = f"http://127.0.0.1:{slow_link.port}" if slow else lab.base
    # ?reset: a fresh workspace, so no tab from an earlier notebook is restored beside it
    page.goto(f"{base}/lab/tree/{relative(path)}?reset&token={lab.token}")
    page.wait_for_function(
        "window.jupyterapp?.shell.currentWidget?.sessionContext !== undefined", timeout=60_000
    )
    result = page.evaluate(RUN_ALL)
    counts = result["counts"]
    assert None not in counts and len(counts) == len(set(counts)), f"cells that never ran: {counts}"
    assert errors_in(result["outputs"]) == []
    page.wait_for_timeout(500)  # let widget views render
    assert page.get_by_text("Error displaying widget").count() == 0

    explorers = page.locator(".lessons-explorer")
    latencies = []
    for index in range(explorers.count()):
        explorer = explorers.nth(index)
        explorer.scroll_into_view_if_needed()
        picture = explorer.locator(".explorer-picture[data-revision]")  # its curves have arrived
        picture.wait_for()
        before = picture.get_attribute("aria-label")
        messages_before = explorer.locator(".explorer-error").count()
        explorer.screenshot(path=ARTIFACTS / f"{name}-explorer{index}-before.png")
        handle = explorer.locator(".explorer-point .noUi-handle").first
        milliseconds = key_to_picture(handle, picture, "ArrowRight", "data-x")
        assert milliseconds is not None, "the picture did not follow the point slider"
        assert picture.get_attribute("aria-label") != before  # the words follow it too
        latencies.append(milliseconds / 1000)
        if slow:  # a kernel round trip alone takes 2 * DELAY
            assert milliseconds < 2000 * DELAY, f"the point move waited: {milliseconds:.0f} ms"
        explorer.screenshot(path=ARTIFACTS / f"{name}-explorer{index}-after.png")
        assert explorer.locator(".explorer-error").count() == messages_before, "moving raised"
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)
    assert page.off_machine == [], "JupyterLab or a notebook fetched from the network"
    page.evaluate(SHUT_DOWN)
    ui_timings[relative(path)] = (result["seconds"], latencies)
