"""Headless Chromium for the browser tests: Debian's package, never a downloaded browser."""

import os
import shutil
from pathlib import Path

import pytest

from tests.lab_server import ROOT

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ENABLE = "browser tests skipped: install Debian's chromium (apt-get install chromium) to run them"
TIMINGS: dict[str, tuple[float, list[float]]] = {}


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing")
        pytest.skip(ENABLE)
    from playwright.sync_api import sync_playwright

    artifacts = ROOT / "build" / "ui"
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield browser
        browser.close()


@pytest.fixture
def ui_timings():
    return TIMINGS


def pytest_terminal_summary(terminalreporter):
    if not TIMINGS:
        return
    terminalreporter.section("notebooks in the browser")
    for name, (seconds, latencies) in TIMINGS.items():
        moves = ", ".join(f"{1000 * s:.0f} ms" for s in latencies) or "no explorer"
        terminalreporter.write_line(f"{name}: ran in {seconds:.1f} s; slider to picture: {moves}")
