"""How long the trainings behind lesson 3's training explorer take on one core.

    .venv/bin/python -m benchmarks.training [--repeat N] [--steps 200]

torch.set_num_threads(1): one core, as a learner's kernel may get on a shared machine.
Each row is the wall-clock time, in this process, of: the neuron trained
(lessons_lib.threshold_training.train_neuron, 200 steps) with make_spike(shape, width=w)
for every shape in SHAPES at widths 0.01, 0.5, 2 and 10, and with TrueStep; then the set
that train_surrogates() trains by default, as "Train again" trains it (train_all: the true
gradient, then every default shape at every default width), and that set trained and drawn
(draw_runs), all the kernel does between the click and the new picture. One untimed
training first loads what torch loads lazily. Goal: each, and the default set as a whole,
within 3 s on one core.
"""

import argparse
import inspect
import os
import statistics
import sys
import time
from collections.abc import Callable

import torch

from lessons_lib.explorers.training.drawing import draw_runs
from lessons_lib.explorers.training.runs import TRUE, Run, planned, train_all
from lessons_lib.explorers.training.widget import train_surrogates
from lessons_lib.surrogate_gradients import SHAPES, TrueStep, make_spike
from lessons_lib.threshold_training import train_neuron

WIDTHS = (0.01, 0.5, 2.0, 10.0)
GOAL_MS = 3000
DEFAULTS = inspect.signature(train_surrogates).parameters
DEFAULT_SHAPES, DEFAULT_WIDTHS = DEFAULTS["shapes"].default, DEFAULTS["widths"].default


def timed(work: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds of wall-clock time per call, `repeat` calls."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1e3)
    return times


def one_neuron(shape: str, width: float | None, steps: int) -> Callable[[], object]:
    """One training, as the explorer makes it for a shape and width (TrueStep for None)."""
    spike = TrueStep if width is None else make_spike(shape, width=width)
    return lambda: train_neuron(spike.apply, steps=steps)


def trained_and_drawn(steps: int) -> bytes:
    """What Train again does in the kernel for the default set: train every run, draw them."""
    runs: list[Run] = train_all(DEFAULT_SHAPES, DEFAULT_WIDTHS, steps)
    return draw_runs(runs, list(DEFAULT_SHAPES), list(DEFAULT_WIDTHS))


def rows(steps: int) -> list[tuple[str, Callable[[], object]]]:
    """Every row's name and its work, in the order printed."""
    singles = [(TRUE, None)] + [(shape, width) for shape in SHAPES for width in WIDTHS]
    found = [
        (f"{TRUE} (TrueStep)" if width is None else f"{shape}, width {width:g}", work)
        for shape, width in singles
        for work in [one_neuron(shape, width, steps)]
    ]
    count = len(planned(DEFAULT_SHAPES, DEFAULT_WIDTHS))
    found.append(
        (
            f"default set: train_all, {count} runs",
            lambda: train_all(DEFAULT_SHAPES, DEFAULT_WIDTHS, steps),
        )
    )
    found.append((f"default set: {count} runs trained and drawn", lambda: trained_and_drawn(steps)))
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per row")
    parser.add_argument("--steps", type=int, default=200, help="training steps per run")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    load_before = os.getloadavg()[0]
    one_neuron("triangle", 0.5, args.steps)()  # warm-up, untimed
    results = [(name, timed(work, args.repeat)) for name, work in rows(args.steps)]
    load_after = os.getloadavg()[0]
    print(
        f"Lesson 3's trainings on one core (torch {torch.__version__}, "
        f"{torch.get_num_threads()} thread), {args.steps} steps per run, {args.repeat} timed "
        f"calls per row; default set: shapes {', '.join(DEFAULT_SHAPES)}, widths "
        f"{', '.join(f'{w:g}' for w in DEFAULT_WIDTHS)} and the true gradient; "
        f"1-minute load {load_before:.2f} before, {load_after:.2f} after"
    )
    print("ms of wall-clock time per call, in this process")
    print(f"{'training':44}{'median':>9}{'max':>9}")
    for name, times in results:
        print(f"{name:44}{statistics.median(times):6.0f} ms{max(times):6.0f} ms")
    singles, default_set = results[:-2], results[-2:]
    slowest = max(max(times) for _, times in singles)
    goals = [
        (f"one neuron's training, any shape and width, <= {GOAL_MS} ms on one core (max)", slowest),
        (
            f"the training explorer's default set, trained and drawn, <= {GOAL_MS} ms "
            "on one core (max)",
            max(default_set[-1][1]),
        ),
    ]
    for goal, worst in goals:
        print(f"goal: {goal}: {'met' if worst <= GOAL_MS else 'MISSED'} ({worst:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
