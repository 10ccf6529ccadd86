"""Shared test settings."""

import atexit
import gc
import os

import pytest
from hypothesis import settings

UI = "tests/ui/"
# The browser tests in two halves of about equal time, one per worker: the walk through the
# course (its lab, its memory, the site's pages) and the rest (explorers, decks, latency).
WALK_AND_SITE = tuple(
    f"{UI}{name}.py"
    for name in ("test_memory_in_browser", "test_notebooks_in_browser", "test_site_in_browser")
)
# Both judge one build of Binder's environment (tests/learner_env.py).
BINDERS_ENVIRONMENT = ("tests/test_binder_env.py", "tests/test_installed_course.py")
# It starts `make class`'s hub (and builds the class's environment the first time).
CLASS_ON_THE_HUB = ("tests/hub/test_class.py",)
# The longest work units start first, so that no worker is left alone with one at the end.
LONGEST_FIRST = ("the walk and the site", "tests/ui", "Binder's environment", "tests/hub")

# The environments are installed without bytecode (pip --no-compile): every process the tests
# start (kernels, labs, nbval) writes what it imports once, for the next, even where this
# shell says not to.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# The self-checks the tests run (and the kernels they start) record no verdict in this
# machine's home (lessons_lib/progress.py); tests/test_progress.py turns it on where it looks.
os.environ["LESSONS_PROGRESS"] = "off"

# At exit Python collects the garbage again while it tears the modules down. A test process
# that has held thousands of tensors spent 3-4 s in that (py-spy showed the collector), and
# the run waits for its last worker to exit; frozen, every object is left to the process's end.
atexit.register(gc.freeze)

# The first call into torch is slow; a per-example deadline would only add flakiness.
settings.register_profile("course", deadline=None, max_examples=60)
settings.load_profile("course")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`make test`'s workers (pytest-xdist's --dist loadfile), with some files kept together.

    Each file stays on one worker: a notebook's cells share one kernel, and a module's
    fixture (a lab) is built once. The browser tests go to the two workers in two halves,
    each half's files sharing one Chromium (a package-scoped fixture: tests/ui/conftest.py);
    the walk's half also shares one lab and build/ui/. The two modules that judge Binder's
    environment share one worker and one build.
    (--dist loadgroup cannot do this:
    pytest-xdist 3.8 sets a group by renaming each test, which pytest 9 no longer lets it do.)
    """
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class BrowserTestsTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(WALK_AND_SITE):
                return "the walk and the site"
            if nodeid.startswith(UI):
                return "tests/ui"
            if nodeid.startswith(BINDERS_ENVIRONMENT):
                return "Binder's environment"
            if nodeid.startswith(CLASS_ON_THE_HUB):
                return "tests/hub: the class"
            return super()._split_scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            # pytest-xdist orders the units by their number of tests; time matters more.
            for scope in reversed(LONGEST_FIRST):
                for unit in [u for u in self.workqueue if u.startswith(scope)]:
                    self.workqueue.move_to_end(unit, last=False)
            super()._assign_work_unit(node)

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
