"""training/runs: the runs planned, trained, and their facts in stable words; and
benchmarks/training.py, which times them on one core, runs and prints every row."""

import subprocess
import sys

import pytest

from lessons_lib.explorers.training.runs import GOAL, TRUE, Run, planned, train_all
from lessons_lib.surrogate_gradients import SHAPES
from lessons_lib.threshold_training import Training


def test_the_true_gradient_runs_first_then_every_shape_at_every_width():
    assert planned(["triangle", "sigmoid"], [0.5, 2.0]) == [
        (TRUE, None),
        ("triangle", 0.5),
        ("triangle", 2.0),
        ("sigmoid", 0.5),
        ("sigmoid", 2.0),
    ]


def test_each_step_of_each_run_is_counted():
    ticks = []
    runs = train_all(["triangle"], [0.5, 0.01], 10, lambda: ticks.append(1))
    assert len(ticks) == 3 * 10 and len(runs) == 3


def test_the_true_gradient_never_learns_and_a_moderate_width_does():
    truth, triangle, narrow = train_all(["triangle"], [0.5, 0.01], 200)
    assert (
        truth.fact()
        == "true gradient (TrueStep): did not learn; never reached loss ≤ 0.05; accuracy 41%"
    )
    assert triangle.fact().startswith("triangle, width 0.5: learned; loss ≤ 0.05 after ")
    assert triangle.fact().endswith("steps; accuracy 100%")
    assert narrow.fact().startswith("triangle, width 0.01: did not learn")


@pytest.mark.parametrize(
    ("losses", "accuracy", "says"),
    [
        ([0.5, 0.2, GOAL, 0.0], 0.995, "learned; loss ≤ 0.05 after 2 steps; accuracy 100%"),
        ([0.5, 0.5], 0.404, "did not learn; never reached loss ≤ 0.05; accuracy 40%"),
        ([0.5, 0.4], 0.6, "learned; never reached loss ≤ 0.05; accuracy 60%"),
    ],
)
def test_a_fact_is_learned_or_not_the_step_it_fitted_and_a_whole_percent(losses, accuracy, says):
    run = Run("sigmoid", 2.0, Training(losses, accuracy, (0.0, 0.0), 0.0))
    assert run.fact() == f"sigmoid, width 2: {says}"


def test_the_training_benchmark_runs_and_prints_every_row_and_goal():
    """A few steps, one call per row: it runs, and its numbers are not judged."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.training", "--repeat", "1", "--steps", "3"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    names = ["true gradient (TrueStep)"] + [
        f"{shape}, width {width}" for shape in SHAPES for width in ("0.01", "0.5", "2", "10")
    ]
    names += ["default set: train_all, 10 runs", "default set: 10 runs trained and drawn"]
    for name in names:
        assert f"\n{name:44}" in out, name
    assert out.count("goal: ") == 2 and "one core" in out, out
