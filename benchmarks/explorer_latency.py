"""Slider to picture inside a real Chromium page: straight to JupyterLab, and over a 100 ms link.

    .venv/bin/python -m benchmarks.explorer_latency [--moves N] [--quiet-load 1.0]
        [--projector] [--scale 2]

JupyterLab (the real `make lab`: loopback only, with its token) serves a scratch notebook
with two explorers of RoundSTE, the beginner track's: the explorer as it is, whose point
moves are drawn in the browser, and the kernel-drawn way it worked before issue 14 (every
event goes to the kernel, which probes the point and sends back a new 960x600 PNG); and
lesson 2's step-size explorer of Cube, on the same front end. Debian's
Chromium opens the notebook twice: straight, and through a local TCP proxy delaying every
chunk by 50 ms each way (a 100 ms round trip, ordinary for Binder). For each explorer it
dispatches key events on a slider handle and times, in the page, from the event to the
animation frame that shows the picture's change (tools/page_timing.py): a point move
(the x slider; the step-size explorer's h) and a range change (the upper end of the x
range; the step-size explorer's point x, which needs new errors from the kernel).
The page is 1400x1000 CSS px; --projector makes it a projector's 1280x720 in
JupyterLab's Presentation Mode, where the explorers draw narrower than 960 px, and
--scale 2 a high-density screen's (devicePixelRatio 2: four times the pixels to draw).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import ipywidgets as widgets

from lessons_lib.explorers.drawing import HEIGHT, WIDTH
from lessons_lib.explorers.gradient.curves import grid
from lessons_lib.explorers.gradient.drawing import Plot
from lessons_lib.explorers.gradient.explore import explore
from lessons_lib.explorers.throttle import Throttle

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DRAWN_PNG_LEVEL = 1  # what the kernel-drawn explorer used while dragging
LOADS: list[float] = []  # the 1-minute load average as each series starts (ours included)


class KernelDrawn(widgets.VBox):
    """The explorer as it was: each slider event redrawn by the kernel and sent as a PNG."""

    def __init__(self, fn: type) -> None:
        explorer = explore(fn)  # for its checked setup; this one is never shown
        self.setup, (lo, hi) = explorer.setup, explorer.range_slider.value
        self.plot = Plot(self.setup)
        self.curves = None
        self._range = None
        self.point_slider = widgets.FloatSlider(
            value=explorer.point_slider.value, min=lo, max=hi, step=(hi - lo) / 400
        )
        self.range_slider = widgets.FloatRangeSlider(
            value=(lo, hi), min=lo - 2 * (hi - lo), max=hi + 2 * (hi - lo), step=(hi - lo) / 100
        )
        self.image = widgets.Image(
            format="png", layout=widgets.Layout(width=f"{WIDTH}px", height=f"{HEIGHT}px")
        )
        self.image.add_class("explorer-picture")
        self.point_slider.add_class("explorer-point")
        self.range_slider.add_class("explorer-range")
        self._throttle = Throttle(self.draw)
        for slider in (self.point_slider, self.range_slider):
            slider.observe(lambda change: self._throttle.request(), "value")
        super().__init__([self.image, self.point_slider, self.range_slider])
        self.add_class("kernel-drawn")
        self.draw()

    def draw(self) -> None:
        """New curves if the range changed; the point probed at exactly x; a new PNG."""
        lo, hi = self.range_slider.value
        if (lo, hi) != self._range:
            self._range = (lo, hi)
            with self.point_slider.hold_trait_notifications():
                self.point_slider.min, self.point_slider.max = lo, hi
                self.point_slider.step = (hi - lo) / 400
            self.curves = self.setup.measure(grid(lo, hi, self.setup.samples), [], 1.0)
            self.plot.draw_curves(self.curves)
        x = self.point_slider.value
        self.plot.draw_point(self.setup.measure_point(x, [], 1.0, self.curves))
        self.image.value = self.plot.png(KERNEL_DRAWN_PNG_LEVEL)


NOTEBOOK_CELLS = [
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    "from benchmarks.explorer_latency import KernelDrawn\n"
    "from lessons_lib import Cube, RoundSTE, explore, explore_steps",
    "explore(RoundSTE)",
    "KernelDrawn(RoundSTE)",
    "explore_steps(Cube, 2.0)",
]
# (explorer, its root's CSS selector, the attribute a point move and a range change change,
# the slider row whose handle makes a range change)
EXPLORERS = [
    ("browser-drawn", ".lessons-explorer", "data-x", "data-revision", ".explorer-range"),
    ("kernel-drawn", ".kernel-drawn", "src", "src", ".explorer-range"),
    ("step-size", ".step-explorer", "data-x", "data-revision", ".explorer-x"),
]


def series(page: object, root: str, handle: str, attribute: str, moves: int) -> list[float]:
    """Milliseconds per move, over `moves` key events alternating right and left."""
    from tools.page_timing import key_to_picture

    LOADS.append(os.getloadavg()[0])
    explorer = page.locator(root).first
    explorer.scroll_into_view_if_needed()
    picture = explorer.locator(".explorer-picture")
    times = []
    for i in range(moves + 1):
        key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
        elapsed = key_to_picture(explorer.locator(handle).last, picture, key, attribute)
        if elapsed is None:
            raise RuntimeError(f"{root}: the picture did not change within 10 s")
        if i:  # the first move warms up the page and the kernel
            times.append(elapsed)
        page.wait_for_timeout(300)  # let the kernel's answers settle before the next move
    return times


DESK, PROJECTOR = {"width": 1400, "height": 1000}, {"width": 1280, "height": 720}
DRAWN_AT_ITS_WIDTH = """() => [...document.querySelectorAll('.explorer-picture[data-revision]')]
  .every((p) => Number(p.dataset.drawnWidth) === p.getBoundingClientRect().width)"""
PRESENTATION_MODE = (
    "() => window.jupyterapp.commands.execute('application:toggle-presentation-mode')"
)


def measure(browser: object, base: str, token: str, moves: int, args: argparse.Namespace) -> dict:
    """Point move and range change times for every explorer, through one base URL."""
    from tests.ui.course_walk import run_all
    from tests.ui.scratch_lab import NOTEBOOK, SHUT_DOWN

    viewport = PROJECTOR if args.projector else DESK
    page = browser.new_page(viewport=viewport, device_scale_factor=args.scale)
    try:
        page.goto(f"{base}/lab/tree/{NOTEBOOK}?reset&token={token}")
        page.wait_for_function(
            "window.jupyterapp?.shell.currentWidget?.sessionContext !== undefined",
            timeout=60_000,
        )
        if args.projector:
            page.evaluate(PRESENTATION_MODE)
        run_all(page)
        page.locator(".lessons-explorer .explorer-picture[data-revision]").first.wait_for()
        page.locator(".kernel-drawn img.explorer-picture[src]").wait_for()
        page.locator(".step-explorer .explorer-picture[data-revision]").wait_for()
        page.wait_for_function(DRAWN_AT_ITS_WIDTH)  # not still drawing anew for the page's room
        found = {}
        for name, root, point, curves, ranging in EXPLORERS:
            found[name, "point move"] = series(
                page, root, ".explorer-point .noUi-handle", point, moves
            )
            found[name, "range change"] = series(
                page, root, f"{ranging} .noUi-handle", curves, moves
            )
        page.evaluate(SHUT_DOWN)
        return found
    finally:
        page.close()


def p95(values: list[float]) -> float:
    """The 95th percentile (inclusive method: within the measured values)."""
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def wait_for_quiet(threshold: float, patience: float) -> float:
    """Sleep until the 1-minute load average falls below threshold (or patience runs out)."""
    deadline = time.monotonic() + patience
    while (load := os.getloadavg()[0]) >= threshold and time.monotonic() < deadline:
        time.sleep(15)
    return load


def main(argv: list[str]) -> int:
    """Measure both explorers over both links; print the table and whether each goal is met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20, help="timed key events per case")
    parser.add_argument("--quiet-load", type=float, help="first wait for a 1-minute load below")
    parser.add_argument("--patience", type=float, default=1800, help="longest wait, seconds")
    parser.add_argument(
        "--projector", action="store_true", help="a 1280x720 page in Presentation Mode"
    )
    parser.add_argument("--scale", type=float, default=1, help="the page's devicePixelRatio")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from tests.ui.course_walk import CHROMIUM, CHROMIUM_ARGS
    from tests.ui.scratch_lab import scratch_lab

    if args.quiet_load is not None:
        wait_for_quiet(args.quiet_load, args.patience)
    load_before = os.getloadavg()[0]
    with (
        tempfile.TemporaryDirectory(prefix="explorer-latency-") as scratch,
        scratch_lab(Path(scratch), NOTEBOOK_CELLS, "latency") as (lab, link),
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        links = {
            "straight": measure(browser, lab.base, lab.token, args.moves, args),
            "100 ms round trip": measure(
                browser, f"http://127.0.0.1:{link.port}", lab.token, args.moves, args
            ),
        }
        version = browser.version
        browser.close()
    load_after = os.getloadavg()[0]

    print(
        f"Slider to picture in Chromium {version}, RoundSTE explorers and Cube's step-size "
        f"explorer, {args.moves} key events "
        f"per case, {'1280x720 in Presentation Mode' if args.projector else '1400x1000'} "
        f"at devicePixelRatio {args.scale:g}; "
        f"1-minute load {load_before:.2f} before, {min(LOADS):.2f} to "
        f"{max(LOADS):.2f} during (this benchmark's own processes included), "
        f"{load_after:.2f} after"
    )
    print(f"{'link':19}{'explorer':15}{'':14}{'median':>9}{'p95':>9}")
    for link_name, found in links.items():
        for (name, case), times in found.items():
            print(
                f"{link_name:19}{name:15}{case:14}"
                f"{statistics.median(times):6.0f} ms{p95(times):6.0f} ms"
            )
    slow, straight = links["100 ms round trip"], links["straight"]
    verdicts = [
        (
            "point move at 100 ms round trip <= 30 ms (median)",
            statistics.median(slow["browser-drawn", "point move"]) <= 30,
        ),
        (
            "point move straight no slower than kernel-drawn straight (median)",
            statistics.median(straight["browser-drawn", "point move"])
            <= statistics.median(straight["kernel-drawn", "point move"]),
        ),
        (
            "range change at 100 ms round trip <= 100 + 150 ms (median)",
            statistics.median(slow["browser-drawn", "range change"]) <= 250,
        ),
        (
            "step-size explorer's h move at 100 ms round trip <= 30 ms (median)",
            statistics.median(slow["step-size", "point move"]) <= 30,
        ),
        (
            "step-size explorer's x move at 100 ms round trip <= 100 + 150 ms (median)",
            statistics.median(slow["step-size", "range change"]) <= 250,
        ),
    ]
    for goal, met in verdicts:
        print(f"goal: {goal}: {'met' if met else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
