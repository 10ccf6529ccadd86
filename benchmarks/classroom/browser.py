"""A learner in Chromium: signs in from the learners' link, moves an explorer's slider; or
runs a cell that outgrows their memory limit, and reads what JupyterLab and the course say."""

import contextlib
import os
import time
from pathlib import Path
from urllib.parse import quote

from benchmarks.classroom.hub import PASSWORD, Hub
from benchmarks.classroom.learners import Learner, api
from tools import class_hub

EXPLORER_CELL = "from lessons_lib import RoundSTE, explore\nexplore(RoundSTE)"


def launch(playwright, lowest_priority: bool = False):
    """Debian's Chromium. With lowest_priority, it and everything it starts run at nice 19:
    it stands in for a learner's own computer, which in a class is not the hub's machine,
    so it must not take CPU from the learners' servers that a fault test compares."""
    browser = playwright.chromium.launch(
        executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    )
    if lowest_priority:  # every thread now; what starts later inherits it
        for pid in descendants(os.getpid()):
            for task in Path(f"/proc/{pid}/task").glob("*"):
                with contextlib.suppress(OSError, ValueError):
                    os.setpriority(os.PRIO_PROCESS, int(task.name), 19)
    return browser


def descendants(root: int) -> list[int]:
    """Every process below root, from /proc's parent links."""
    parents = {}
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, IndexError):
            parents[int(entry.name)] = int(
                (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            )
    found, frontier = [], [root]
    while frontier:
        below = [pid for pid, parent in parents.items() if parent in frontier]
        found += below
        frontier = below
    return found


def slider_in_chromium(hub: Hub, learner: Learner, pull_path: str) -> tuple[float | None, str]:
    """The learner signs in in Chromium, reads their memory in the status bar, runs an
    explorer, moves its slider: (ms from the key to the picture, the status bar's text)."""
    from playwright.sync_api import sync_playwright

    from tools.notebooks import KERNELSPEC
    from tools.page_timing import key_to_picture

    notebook = {
        "cells": [{"cell_type": "code", "source": EXPLORER_CELL, "metadata": {},
                   "outputs": [], "execution_count": None}],
        "metadata": {"kernelspec": dict(KERNELSPEC)}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip
    server = f"{hub.base}/user/{learner.name}"
    api(learner, "PUT", f"{server}/api/contents/explorer.ipynb",
        json={"type": "notebook", "format": "json", "content": notebook}).raise_for_status()  # fmt: skip
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            # Signing in from the link the teacher hands out: the course pulled, JupyterLab at
            # the course map.
            link = quote(f"/hub/user-redirect/{pull_path}")
            page.goto(f"{hub.base}/hub/login?next={link}")
            page.fill("#username_input", learner.name)
            page.fill("#password_input", PASSWORD)
            page.click("#login_submit")
            try:
                page.wait_for_url(f"**/lab/tree/course/{class_hub.COURSE_MAP}", timeout=120_000)
            except Exception as error:
                raise RuntimeError(f"the learners' link ended at {page.url}") from error
            # jupyter-resource-usage's item: the server's and kernels' memory / MEM_LIMIT.
            memory = page.locator(".jp-StatusBar-Item", has_text="Mem:").first
            memory.filter(has_text="/").wait_for(timeout=30_000)
            status = memory.inner_text().strip()
            page.goto(f"{server}/lab/tree/explorer.ipynb?reset")
            picture = page.locator(".explorer-picture[data-revision]")
            run_until(page, page.locator(".jp-Notebook .jp-Cell").first, picture)
            handle = page.locator(".lessons-explorer .noUi-handle").first
            return key_to_picture(handle, picture, "ArrowRight", "data-x", 10_000), status
        finally:
            browser.close()


# The notebook's kernel, as its toolbar shows it: a Shift+Enter pressed while the kernel
# is still starting can be lost, so each press waits for this.
KERNEL_IDLE = (
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator[data-status="idle"]'
)


def answer_any_dialog(page) -> None:
    """A dialog JupyterLab put up over the notebook (it takes every click meant for a cell),
    answered with its default button, as a learner would; what it said is printed."""
    dialog = page.locator(".jp-Dialog")
    if dialog.count() and dialog.first.is_visible():
        said = " ".join(dialog.first.inner_text().split())
        print(f"Chromium: JupyterLab showed a dialog, answered with its last button: {said!r}")
        dialog.first.locator(".jp-Dialog-footer button").last.click()
        dialog.first.wait_for(state="detached", timeout=10_000)


def run_until(page, cell, shown, tries: int = 3) -> None:
    """Shift+Enter in the cell, once its kernel is idle, until shown appears: a text in
    the cell's output, or a locator of the page."""
    if isinstance(shown, str):
        shown = cell.locator(".jp-OutputArea-output", has_text=shown).first
    for attempt in range(tries):
        page.locator(KERNEL_IDLE).first.wait_for(timeout=60_000)
        answer_any_dialog(page)
        cell.click()
        page.keyboard.press("Shift+Enter")
        try:
            shown.wait_for(timeout=40_000)
            return
        except Exception:
            if attempt == tries - 1:
                raise


class RunawayPage:
    """The runaway learner's notebook open in JupyterLab (Chromium), its first cell run:
    `with RunawayPage(...) as page: ... page.runaway()` (all in one thread)."""

    def __init__(self, hub: Hub, learner: Learner, path: str) -> None:
        self.hub, self.learner, self.path = hub, learner, path

    def __enter__(self) -> "RunawayPage":
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        self.browser = launch(self.playwright, lowest_priority=True)
        page = self.page = self.browser.new_page(viewport={"width": 1400, "height": 1000})
        name = self.learner.name
        page.goto(f"{self.hub.base}/hub/login?next={quote(f'/user/{name}/lab/tree/{self.path}')}")
        page.fill("#username_input", name)
        page.fill("#password_input", PASSWORD)
        page.click("#login_submit")
        self.cells = page.locator(".jp-Notebook .jp-Cell")
        self.cells.nth(2).wait_for(timeout=120_000)
        run_until(page, self.cells.nth(0), "ready")
        return self

    def runaway(self) -> tuple[str, float | None, str]:
        """The second cell (it outgrows the memory limit), then, once JupyterLab says the
        kernel died, the third: (JupyterLab's message, seconds from the run to it, the
        third cell's output)."""
        page = self.page
        self.cells.nth(1).click()
        started = time.monotonic()
        page.keyboard.press("Shift+Enter")
        dialog = page.locator(".jp-Dialog")
        try:
            dialog.wait_for(timeout=120_000)
        except Exception:
            return "no message within 120 s", None, ""
        seen = time.monotonic() - started
        said = " ".join(dialog.inner_text().split())
        dialog.locator("button").last.click()
        run_until(page, self.cells.nth(2), "after", tries=4)
        output = self.cells.nth(2).locator(".jp-OutputArea").first.inner_text()
        return said, seen, " | ".join(x for x in output.splitlines() if x.strip())

    def __exit__(self, *_) -> None:
        self.browser.close()
        self.playwright.stop()
