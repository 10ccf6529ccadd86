"""Shared test settings."""

import pytest
from hypothesis import settings

UI = "tests/ui/"
# Both judge one build of Binder's environment (tests/learner_env.py).
BINDERS_ENVIRONMENT = ("tests/test_binder_env.py", "tests/test_installed_course.py")

# The first call into torch is slow; a per-example deadline would only add flakiness.
settings.register_profile("course", deadline=None, max_examples=60)
settings.load_profile("course")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`make test`'s workers (pytest-xdist's --dist loadfile), with the browser tests as one.

    Each file stays on one worker: a notebook's cells share one kernel, and a module's
    fixture (a lab) is built once. The browser tests all go to one worker: they share one
    Chromium and its build/ui/ folder, and a second lab and browser at once would only slow
    both. The two modules that judge Binder's environment share one worker and one build. (--dist loadgroup cannot do this: pytest-xdist 3.8 sets
    a group by renaming each test, which pytest 9 no longer lets it do.)
    """
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class BrowserTestsTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(UI):
                return "tests/ui"
            if nodeid.startswith(BINDERS_ENVIRONMENT):
                return "Binder's environment"
            return super()._split_scope(nodeid)

    return BrowserTestsTogether(config, log)


@pytest.fixture(scope="session")
def binder_env():
    """Binder's environment, built once for both modules that judge it (BuiltEnv)."""
    from tests.learner_env import built

    return built()


UI_TIMING = "notebook in the browser"  # as tests/ui/conftest.py notes it on a report
_ui_timings: list[tuple[str, float, list[float]]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Gather the browser tests' notebook timings, in whichever process ran them."""
    if report.when == "call":
        _ui_timings.extend(value for key, value in report.user_properties if key == UI_TIMING)


def pytest_terminal_summary(terminalreporter) -> None:
    if not _ui_timings:
        return
    terminalreporter.section("notebooks in the browser")
    for name, seconds, latencies in _ui_timings:
        moves = ", ".join(f"{1000 * s:.0f} ms" for s in latencies) or "no explorer"
        terminalreporter.write_line(f"{name}: ran in {seconds:.1f} s; slider to picture: {moves}")
