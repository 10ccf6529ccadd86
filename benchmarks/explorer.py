"""How fast the explorer's kernel answers a slider, against a new figure per event (interact + plt).

    .venv/bin/python -m benchmarks.explorer [--repeat N]

Both sides run in this one process on the same Function and grid, so the printed
ratios compare like with like. The naive side is what most notebooks do under
`interact`: every event reruns the callback, which probes the Function, builds a
new pyplot figure with the same two panels, and renders it to PNG for the page
(plain savefig; the inline backend's bbox_inches="tight" would make it slower still).
The explorer's kernel does nothing for a point move on a sample (the browser draws it:
see benchmarks/explorer_latency.py for the time a learner sees) and, for a curve change,
measures, redraws and sends the front end its data, whose size is printed last.
"""

import argparse
import io
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")  # a script: no window, and the same renderer the explorer uses
import matplotlib.pyplot as plt
import torch

from lessons_lib.explorers.drawing import DPI, HEIGHT, WIDTH
from lessons_lib.explorers.gradient.curves import disagreement
from lessons_lib.explorers.gradient.explore import explore
from lessons_lib.functions import Cube


def naive_frame(lo: float, hi: float, point: float, samples: int) -> bytes:
    """One interact callback: probe the grid and the point, draw a fresh figure, PNG it."""
    ex_setup = SETUP
    x = torch.linspace(lo, hi, samples, dtype=torch.float64)
    curves = ex_setup.measure(x, [], 1.0)
    at = ex_setup.measure(torch.tensor([point], dtype=torch.float64), [], 1.0)
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(WIDTH / DPI, HEIGHT / DPI))
    fig.subplots_adjust(left=0.08, right=0.64, top=0.93, bottom=0.1, hspace=0.4)
    top.plot(curves.x, curves.forward, lw=3, label="Cube forward")
    top.plot(curves.x, curves.reference, "k--", lw=2, label="reference: x**3")
    top.plot([point], [at.forward[0]], "o", ms=11)
    bottom.plot(curves.x, curves.custom, lw=3, label="Cube's backward")
    bottom.plot(curves.x, curves.true, "k--", lw=2, label="true gradient")
    bottom.fill_between(
        curves.x,
        0,
        1,
        where=disagreement(curves.custom, curves.true),
        transform=bottom.get_xaxis_transform(),
        alpha=0.3,
        hatch="//",
        label="backward ≠ true gradient",
    )
    bottom.plot([point], [at.custom[0]], "o", ms=11)
    bottom.plot([point], [at.true[0]], "D", ms=7)
    for ax in (top, bottom):
        ax.axvline(point, lw=1.5)
        ax.grid(True)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    top.set_title("forward: what the Function computes", loc="left")
    bottom.set_title("gradient: backward with grad_out = 1", loc="left")
    bottom.set_xlabel("x")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


SETUP = explore(Cube).setup  # the same probe setup the explorer uses


def median_ms(step: Callable[[int], object], repeat: int) -> float:
    """Median wall time of step(i) over `repeat` calls, after one warm-up call."""
    step(-1)
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        step(i)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def peak_kib(step: Callable[[int], object]) -> float:
    """Peak Python-side allocation (numpy included, Agg's C++ buffers not) of one update."""
    tracemalloc.start()
    step(0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1024


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="updates timed per case")
    args = parser.parse_args(argv)
    repeat = max(1, args.repeat)

    ex = explore(Cube, x_range=(-2.0, 2.0), point=0.5)
    samples = ex.setup.samples
    # Slider steps, as a drag sends them: each on a sample, never the same twice in a row.
    points = [float(ex.curves.x[50 + 19 * (i % 17)]) for i in range(repeat + 1)]
    ranges = [(-2.0 - 0.05 * (i % 9), 2.0 + 0.05 * (i % 7)) for i in range(repeat + 1)]

    def explorer_point(i: int) -> None:
        ex.point_slider.value = points[i]

    def explorer_range(i: int) -> None:
        ex.range_slider.value = ranges[i]

    def naive_point(i: int) -> bytes:
        return naive_frame(-2.0, 2.0, points[i], samples)

    def naive_range(i: int) -> bytes:
        return naive_frame(*ranges[i], 0.5, samples)

    cases = [
        ("point move", explorer_point, naive_point, 5.0),
        ("range change", explorer_range, naive_range, 1.5),
    ]
    print(
        f"Explorer benchmark: Cube, {samples} samples, {WIDTH}x{HEIGHT} px PNG, "
        f"median of {repeat} update(s) each, torch threads {torch.get_num_threads()}"
    )
    print(f"{'':14}{'explorer':>12}{'naive':>12}{'speed-up':>11}   target")
    for name, fast, slow, target in cases:
        fast_ms, slow_ms = median_ms(fast, repeat), median_ms(slow, repeat)
        ratio = slow_ms / fast_ms
        verdict = "met" if ratio >= target else "MISSED"
        print(
            f"{name:14}{fast_ms:9.2f} ms{slow_ms:9.1f} ms{ratio:10.0f}x   >= {target:g}x {verdict}"
        )
    print("Peak Python-side memory per update (tracemalloc):")
    for name, fast, slow, _ in cases:
        print(f"  {name:12}  explorer {peak_kib(fast):7.0f} KiB   naive {peak_kib(slow):7.0f} KiB")
    picture = ex.picture
    sizes = {
        "background PNG": len(picture.background),
        "samples": len(picture.samples),
        "meta (JSON)": len(json.dumps(picture.meta)),
    }
    parts = " + ".join(f"{name} {size}" for name, size in sizes.items())
    print(f"Sent to the front end per curve change: {sum(sizes.values())} bytes ({parts})")
    print("Sent per point move on a sample: 0 bytes (the browser draws it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
