"""A scratch notebook in the real `make lab`, opened in Chromium over a slow link.

Shared by the explorers' browser tests: one lab for the session serving each module's
notebook of given cells, and one JupyterLab page on it over tools/slow_link.py (a 100 ms
round trip, as on Binder), in which each module opens its notebook once for its tests, as
a learner opens one from the file browser (fixtures()); the page must fetch nothing beyond
this machine. Also the page-side calls that run a cell, read its output and read the
picture's text alternative.
"""

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from tests.lab_server import Lab, running_lab
from tools.notebooks import KERNELSPEC
from tools.slow_link import SlowLink

DELAY = 0.05  # seconds each way
NOTEBOOK = "explorer.ipynb"  # the scratch notebook's name
RUN_CELL = """async ([index, wait]) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  panel.content.activeCellIndex = index;
  const done = app.commands.execute('notebook:run-cell');
  if (wait) await done;
}"""
OUTPUT_TEXT = """(index) => window.jupyterapp.shell.currentWidget.content.widgets[index].model.outputs
  .toJSON().map((output) => [].concat(output.text ?? '').join('')).join('')"""
KERNEL_STATUS = (
    "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status"
)
KERNEL_IS = f"(status) => ({KERNEL_STATUS})() === status"
FINISHED = """(index) =>
  window.jupyterapp.shell.currentWidget.content.widgets[index].model.executionCount !== null"""
NO_OUTPUTS = """async () => {
  const app = window.jupyterapp;
  await app.commands.execute('notebook:clear-all-cell-outputs');
  app.shell.currentWidget.content.activeCellIndex = 0;
}"""
SHUT_DOWN = "async () => { await window.jupyterapp.shell.currentWidget.sessionContext.shutdown(); }"
# Open a notebook as the file browser does, or bring its tab to the front if it is open.
OPEN = "async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }"
SHOWING = f"""(path) => window.jupyterapp.shell.currentWidget?.context?.path === path
  && ({KERNEL_IS})('idle')"""
# Its kernel shut down (the page sees it go), then its tab closed without asking to save.
CLOSE = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.sessionContext.shutdown();
  panel.dispose();
}"""
INTERRUPT = (
    "async () => { await window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
    ".interrupt(); }"
)
# The focused control's name: its aria-label, its <label>, a button's text, or its tag.
FOCUSED = """() => {
  const e = document.activeElement;
  return e.getAttribute('aria-label') || (e.labels && e.labels[0]?.textContent)
    || (e.tagName === 'BUTTON' ? e.textContent : e.tagName);
}"""
LOCAL = ("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:")


@contextmanager
def scratch_lab(
    folder: Path, cells: list[str] | dict[str, list[str]], name: str
) -> Iterator[tuple[Lab, SlowLink]]:
    """`make lab` serving folder/NOTEBOOK made of `cells` (or one notebook per name of a
    dict of cells), and a slow link to it."""
    for notebook, its_cells in (cells if isinstance(cells, dict) else {NOTEBOOK: cells}).items():
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = dict(KERNELSPEC)
        nb.cells = [nbformat.v4.new_code_cell(source) for source in its_cells]
        nbformat.write(nb, folder / notebook)
    env = {
        "JUPYTERLAB_SETTINGS_DIR": str(folder / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(folder / "workspaces"),
    }
    with (
        running_lab(
            "--LabApp.expose_app_in_browser=True", name=name, course_dir=folder, env=env
        ) as lab,
        SlowLink(lab.port, DELAY) as link,
    ):
        yield lab, link


@contextmanager
def lab_page(browser, lab: Lab, link: SlowLink) -> Iterator:
    """JupyterLab opened over the slow link, no notebook open yet; closed after."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    fetched = []  # anything the page asks of a host other than this machine's loopback
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(f"http://127.0.0.1:{link.port}/lab?reset&token={lab.token}")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate("async () => { await window.jupyterapp.restored; }")
    yield page
    page.close()
    assert [url for url in fetched if not url.startswith(LOCAL)] == []


@contextmanager
def notebook_in(page, notebook: str = NOTEBOOK) -> Iterator:
    """The scratch notebook opened in JupyterLab's page, in front, its kernel idle; its
    kernel shut down and its tab closed after. Nothing fetched meanwhile left the machine."""
    fetched = []

    def record(request) -> None:
        fetched.append(request.url)

    page.on("request", record)
    page.evaluate(OPEN, notebook)
    page.wait_for_function(SHOWING, arg=notebook, timeout=60_000)
    yield page
    page.evaluate(OPEN, notebook)
    page.evaluate(CLOSE)
    page.remove_listener("request", record)
    assert [url for url in fetched if not url.startswith(LOCAL)] == []


# Every test module's scratch notebook, by its name: one lab serves them all (shared_lab).
SCRATCH_NOTEBOOKS: dict[str, list[str]] = {}


def notebook_of(name: str) -> str:
    return f"{name}.ipynb"


def scratch_notebook(name: str, cells: list[str]) -> str:
    """Have the shared lab serve `name`.ipynb made of `cells` (call it at a module's top
    level); the notebook's file name."""
    SCRATCH_NOTEBOOKS[notebook_of(name)] = cells
    return notebook_of(name)


def shared_lab(folder: Path) -> Iterator[tuple[Lab, SlowLink]]:
    """The lab and slow link serving every module's scratch notebook (a session fixture:
    the modules were all imported, so every notebook is known, before it starts)."""
    with scratch_lab(folder, dict(SCRATCH_NOTEBOOKS), "ui-scratch") as both:
        yield both
    shutil.rmtree(folder, ignore_errors=True)


def fixtures(cells: list[str], name: str) -> tuple:
    """A test module's fixtures, to be assigned at its top level as
    `lab_and_link, opened_notebook, page, fresh_page = fixtures(CELLS, "ui-name")`:

    - `lab_and_link`: the session's lab, serving this module's notebook, `name`.ipynb;
    - `opened_notebook`: that notebook opened once for the module in the session's
      JupyterLab page (conftest.py's `scratch_page`), one kernel for its tests;
    - `page`: it, in front, for one test, every output cleared first (the test runs the
      cells it needs);
    - `fresh_page`: a notebook just as a learner opens it (a fresh kernel, nothing run, the
      first cell selected): the module's own, if no test has used it yet (so a module puts
      the test that needs it first); else a copy of it, `name`-fresh.ipynb, opened in the
      same page just for the test, shut down and closed after.
    """
    scratch_notebook(name, cells)
    scratch_notebook(f"{name}-fresh", cells)

    @pytest.fixture(scope="module")
    def lab_and_link(scratch_lab_and_link):
        return scratch_lab_and_link

    @pytest.fixture(scope="module")
    def opened_notebook(scratch_page):
        with notebook_in(scratch_page, notebook_of(name)) as page:
            yield page

    def in_front_and_cleared(page):
        page.evaluate(OPEN, notebook_of(name))
        page.evaluate(NO_OUTPUTS)
        page.wait_for_function(SHOWING, arg=notebook_of(name), timeout=30_000)
        return page

    used = []  # a test has had the module's notebook: it is no longer as it opened

    @pytest.fixture
    def page(opened_notebook):
        used.append(True)
        return in_front_and_cleared(opened_notebook)

    @pytest.fixture
    def fresh_page(opened_notebook):
        if not used:  # as it opened: no kernel to start and stop for a copy
            used.append(True)
            yield opened_notebook
            return
        # Only the fresh copy's explorers are then in the page, for the test to find.
        in_front_and_cleared(opened_notebook)
        with notebook_in(opened_notebook, notebook_of(f"{name}-fresh")) as page:
            yield page

    return lab_and_link, opened_notebook, page, fresh_page


def alt(page, index=0):
    return page.locator(".explorer-picture").nth(index).get_attribute("aria-label")


def tab_to(page, name: str, most: int) -> list[str]:
    """Press Tab, at most `most` times, until the focused control is named `name`; the names
    it passed on the way (the test fails if it never gets there)."""
    visited = []
    for _ in range(most):
        page.keyboard.press("Tab")
        visited.append(page.evaluate(FOCUSED))
        if visited[-1] == name:
            return visited
    raise AssertionError(f"Tab never reached {name!r}: {visited}")


def wait_for_words(page, *words, index=0, timeout=10_000):
    """Wait until the picture's text alternative says every one of `words`."""
    page.wait_for_function(
        "([index, words]) => { const label = document.querySelectorAll('.explorer-picture')"
        "[index]?.getAttribute('aria-label') ?? ''; return words.every((w) => label.includes(w)); }",
        arg=[index, list(words)],
        timeout=timeout,
    )
