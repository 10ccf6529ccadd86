"""A learner's walk through the course in JupyterLab, as JupyterLab leaves it by default.

Open the course map, run it, follow its link to a track, run that, follow the track's link
to the exercise, run that: nothing closed, no kernel shut down by hand. The walks: each of
lesson 1's tracks with its exercise, and lesson 3's beginner track with its exercise.
Shared by the memory test (tests/ui/test_memory_in_browser.py) and benchmarks/lab_memory.py.
"""

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.lab_server import ROOT, Lab, running_lab
from tools.notebooks import notebook_paths

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")  # as tests/ui/conftest.py
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
COURSE_MAP = "00-start-here.ipynb"
EXERCISE = "exercises/your-own-backward-pass.ipynb"
TRACKS = {
    "beginner": "01-custom-function/1-beginner.ipynb",
    "developer": "01-custom-function/2-developer.ipynb",
    "researcher": "01-custom-function/3-researcher.ipynb",
}
# Each walk by its name: the notebooks in order, each linked from the one before.
WALKS = {
    **{track: [COURSE_MAP, path, EXERCISE] for track, path in TRACKS.items()},
    "lesson 3": [
        COURSE_MAP,
        "03-surrogate-gradients/1-beginner.ipynb",
        "exercises/choose-your-surrogate.ipynb",
    ],
}
# What JupyterHub tells a server on mybinder.org: its memory limit, 2 GiB, in bytes.
BINDER_MEM_LIMIT = str(2 << 30)
# JupyterLab's own kernel manager, for comparison with the course's (binder/jupyter_server_config.py).
STOCK = "--ServerApp.kernel_manager_class=jupyter_server.services.kernels.kernelmanager.AsyncMappingKernelManager"
SHOWING = """(path) => {
  const panel = window.jupyterapp?.shell.currentWidget;
  return panel?.context?.path === path && panel.sessionContext !== undefined;
}"""
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
OPEN = "async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }"


def walk(name: str) -> list[str]:
    """The course map, then the track, then its exercise: each linked from the one before."""
    return WALKS[name]


def every_notebook() -> list[str]:
    """Every notebook of the course, as paths below notebooks/."""
    return [p.relative_to(ROOT / "notebooks").as_posix() for p in notebook_paths()]


@contextmanager
def course_lab(*lab_args: str, every_cell_rendered: bool = False) -> Iterator[Lab]:
    """`make lab` as on Binder, on a scratch copy of notebooks/, JupyterLab's default settings.

    As on Binder: with the memory limit JupyterHub declares there. The copy takes the
    autosaves of the notebooks run; the private settings and workspace folders keep the
    machine's own JupyterLab settings out of the measurement. `every_cell_rendered` turns
    off the notebook's windowing, a setting of the page alone, so that a test can reach
    every explorer; the server and its kernels are the same either way.
    """
    with tempfile.TemporaryDirectory(prefix="course-walk-") as scratch:
        copy = Path(scratch) / "notebooks"
        shutil.copytree(
            ROOT / "notebooks", copy, ignore=shutil.ignore_patterns(".ipynb_checkpoints")
        )
        if every_cell_rendered:
            settings = Path(scratch) / "settings" / "@jupyterlab" / "notebook-extension"
            settings.mkdir(parents=True)
            (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
        env = {
            "MEM_LIMIT": BINDER_MEM_LIMIT,
            "JUPYTERLAB_SETTINGS_DIR": f"{scratch}/settings",
            "JUPYTERLAB_WORKSPACES_DIR": f"{scratch}/workspaces",
        }
        args = ("--LabApp.expose_app_in_browser=True", *lab_args)
        with running_lab(*args, name="walk", course_dir=copy, env=env) as lab:
            yield lab


def start(page, lab: Lab, base: str | None = None) -> None:
    """Open the course map, as the Binder link and `make lab` do (through `base` if given)."""
    page.goto(f"{base or lab.base}/lab/tree/{COURSE_MAP}?reset&token={lab.token}")
    page.wait_for_function(SHOWING, arg=COURSE_MAP, timeout=60_000)


def follow_link(page, path: str) -> None:
    """Click the current notebook's link to `path` (JupyterLab opens it in a new tab)."""
    link = page.locator(
        f".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown a[href*='/files/{path}?']"
    ).first
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_function(SHOWING, arg=path, timeout=60_000)


def open_notebook(page, path: str) -> None:
    """Open `path` as the file browser does (or bring its tab to the front if open)."""
    page.evaluate(OPEN, path)
    page.wait_for_function(SHOWING, arg=path, timeout=60_000)


def run_all(page) -> list:
    """Run every cell of the notebook in front, as Run > Run All Cells does; its outputs."""
    return run_all_timed(page)["outputs"]


def run_all_timed(page) -> dict:
    """As run_all, with the run's seconds and each code cell's execution count."""
    return page.evaluate(RUN_ALL)


def running_kernels(page) -> int:
    """How many kernels the server runs, as JupyterLab's running-kernels panel counts them."""
    return page.evaluate(
        """async () => {
          const kernels = window.jupyterapp.serviceManager.kernels;
          await kernels.refreshRunning();
          return Array.from(kernels.running()).length;
        }"""
    )
