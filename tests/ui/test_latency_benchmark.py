"""benchmarks/explorer_latency.py runs end to end (one move a case; its numbers are not judged)."""

import subprocess
import sys

from tests.lab_server import ROOT

CASES = {
    "browser-drawn": ["point move", "range change"],
    "kernel-drawn": ["point move", "range change"],
    "step-size": ["point move", "range change"],
    "surrogate": ["point move", "width change"],
    "training": ["Train again"],
}


def test_latency_benchmark_runs_and_prints_every_case_and_goal(browser):
    """`browser` only skips this where Debian's Chromium is missing; the script starts its own."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.explorer_latency", "--moves", "1", "--trainings", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    ).stdout
    for link in ["straight", "100 ms round trip"]:
        for explorer, cases in CASES.items():
            for case in cases:
                assert f"{link:19}{explorer:15}{case:14}" in out, out
    assert out.count("goal: ") == 8 and "1-minute load" in out, out
