"""Uncaught errors in the browser's pages: recorded for every page a UI test opens.

A widget that breaks in the page need not show it: the explorer may still draw while
JupyterLab's widget manager throws (an exception nothing caught, or a promise rejection
nobody handled). Playwright reports both as a page's "pageerror". The `browser` fixture
(conftest.py) hands out a WatchedBrowser, so every page and every page those pages open
is watched, and conftest.py fails the test during which an error was recorded.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # playwright itself is imported only where a browser starts
    from playwright.sync_api import Browser, BrowserContext, Error, Page

STACK_LINES = 4  # enough of a stack to find the throwing function in a minified bundle


class PageErrors:
    """Every uncaught error in the watched pages since it was last taken."""

    def __init__(self) -> None:
        self._found: list[str] = []
        # The pages themselves, weakly: a closed page's id() may be given to a new page,
        # which a set of ids would then take as watched already (a popup went unwatched).
        self._watched: weakref.WeakSet[Page] = weakref.WeakSet()

    def watch(self, page: Page) -> Page:
        """Record this page's uncaught errors from now on (once, however often asked)."""
        if page not in self._watched:
            self._watched.add(page)
            page.on("pageerror", lambda error: self._found.append(describe(page, error)))
        return page

    def take(self) -> list[str]:
        """The errors recorded since the last take; the record starts empty again."""
        found, self._found = self._found, []
        return found


def describe(page: Page, error: Error) -> str:
    """An error as a failure shows it: where, what, and the top of its stack."""
    stack = (error.stack or "").splitlines()[1 : 1 + STACK_LINES]
    where = "\n".join(f"  {line.strip()}" for line in stack)
    return f"{page.url}\n  {error.name}: {error.message}\n{where}".rstrip()


class WatchedBrowser:
    """The browser, with every page it opens watched by `errors` (else as Playwright's)."""

    def __init__(self, browser: Browser, errors: PageErrors) -> None:
        self._browser = browser
        self._errors = errors

    def new_page(self, **options: object) -> Page:
        page = self._browser.new_page(**options)
        page.context.on("page", self._errors.watch)  # a tab or popup this page opens
        return self._errors.watch(page)

    def new_context(self, **options: object) -> BrowserContext:
        context = self._browser.new_context(**options)
        context.on("page", self._errors.watch)
        return context

    def __getattr__(self, name: str) -> object:
        return getattr(self._browser, name)


PAGE_ERRORS = PageErrors()  # one record for the session's browser


def failure(found: list[str], when: str) -> str:
    """The message of a test failed by uncaught page errors."""
    listed = "\n".join(found)
    return f"{len(found)} uncaught error(s) in the page {when}:\n{listed}"
