"""Headless Chromium for the browser tests: Debian's package, never a downloaded browser.

The fixtures live as long as this package's tests, not the session: Playwright's sync API
leaves its event loop registered as running on the main thread, and a test that pytest-xdist
sends to the same worker afterwards (asyncio, nbclient) must not find it there.

Every page it opens is watched (page_errors.py): a test during which any page threw an
uncaught error fails with the error's message, whatever else the test checked.
"""

import os
from pathlib import Path

import pytest

from tests.conftest import UI_TIMING
from tests.ui.page_errors import PAGE_ERRORS, WatchedBrowser, failure

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ENABLE = "browser tests skipped: install Debian's chromium (apt-get install chromium) to run them"


@pytest.fixture(scope="package")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing")
        pytest.skip(ENABLE)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield WatchedBrowser(browser, PAGE_ERRORS)
        browser.close()
    left = PAGE_ERRORS.take()  # thrown while a module's pages closed, after its last test
    if left:
        pytest.fail(failure(left, "after the last test that used them"), pytrace=False)


@pytest.fixture(scope="package")
def walked(browser):
    """The learner's walk with every notebook run and looked at once (walked.py): shared by
    the memory test and the notebooks test, which judge different facts of one run."""
    from tests.ui.walked import walk_and_look

    yield from walk_and_look(browser)


@pytest.fixture(scope="package")
def scratch_lab_and_link(tmp_path_factory):
    """One `make lab` and slow link for every explorer test module's scratch notebook."""
    from tests.ui.scratch_lab import shared_lab

    yield from shared_lab(tmp_path_factory.mktemp("ui-scratch"))


@pytest.fixture(scope="package")
def scratch_page(browser, scratch_lab_and_link):
    """One JupyterLab page on that lab, over its slow link, where each explorer test module
    opens its notebook: JupyterLab starts once, not once a module."""
    from tests.ui.scratch_lab import lab_page

    with lab_page(browser, *scratch_lab_and_link) as page:
        yield page


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Fail the test if a page threw while it ran, or while its fixtures opened pages."""
    try:
        return (yield)
    finally:
        # Taken after a failure too, so no error is blamed on the next test.
        found = PAGE_ERRORS.take()
        if found:
            pytest.fail(failure(found, "during this test"), pytrace=False)


@pytest.fixture(autouse=True)
def no_page_errors_at_teardown():
    """Fail the test if a page threw while its fixtures closed it (e.g. kernel shut down)."""
    yield
    found = PAGE_ERRORS.take()
    if found:
        pytest.fail(failure(found, "while this test's pages closed"), pytrace=False)


@pytest.fixture
def ui_timings(request):
    """Where a test notes a notebook's time in the browser: its report carries the note to
    the main process (pytest-xdist runs the test in a worker), which prints them at the end
    (tests/conftest.py)."""

    class Note(dict):
        def __setitem__(self, name: str, timing: tuple[float, list[float]]) -> None:
            request.node.user_properties.append((UI_TIMING, (name, *timing)))

    return Note()
