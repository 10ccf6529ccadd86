"""benchmarks/explorer_latency.py runs end to end (one move a case, on the slow link alone: the
straight link is the same code with another address; its numbers are not judged)."""

import subprocess
import sys

from benchmarks.explorer_latency import SLOW, STRAIGHT, TRAINING, verdicts
from tests.lab_server import ROOT

CASES = {
    "browser-drawn": ["point move", "range change"],
    "kernel-drawn": ["point move", "range change"],
    "step-size": ["point move", "x move"],
    "surrogate": ["point move", "width change"],
    "training": ["Train again"],
}
QUICKEST = ["--moves", "1", "--trainings", "1", "--link", "slow"]
NOT_MEASURED = "not measured (a link it needs was not run)"


def test_latency_benchmark_runs_and_prints_every_case_and_goal(browser):
    """`browser` only skips this where Debian's Chromium is missing; the script starts its own."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.explorer_latency", *QUICKEST],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    ).stdout
    for explorer, cases in CASES.items():
        for case in cases:
            assert f"{SLOW:19}{explorer:15}{case:14}" in out, out
    assert f"{STRAIGHT:19}" not in out, out
    goals = [line for line in out.splitlines() if line.startswith("goal: ")]
    assert len(goals) == 8 and "1-minute load" in out, out
    # Two goals need the straight link: they say so, neither met nor missed.
    assert sum(line.endswith(NOT_MEASURED) for line in goals) == 2, out


def test_a_goal_whose_link_was_not_run_is_neither_met_nor_missed():
    def link(ms: float) -> dict:
        found = {(name, case): [ms] for name, cases in CASES.items() for case in cases}
        return found | {TRAINING: [ms]}

    both = dict(verdicts({STRAIGHT: link(10), SLOW: link(20)}))
    assert set(both.values()) == {True}
    slow_only = verdicts({SLOW: link(20)})
    assert [met for _, met in slow_only].count(None) == 2
    assert all(met is True for _, met in slow_only if met is not None)
    assert [met for _, met in verdicts({SLOW: link(40)})].count(False) == 3  # the 30 ms goals
