"""Slider or button to picture inside a real Chromium page: straight to JupyterLab, and over a
100 ms link.

    .venv/bin/python -m benchmarks.explorer_latency [--moves N] [--trainings N]
        [--link both|straight|slow] [--quiet-load 1.0] [--projector] [--scale 2]

`--moves 1 --trainings 1 --link slow` is the quickest run through every case (one timed
event each, after its untimed warm-up, on the slow link alone; about half a minute on two
idle cores): it shows that everything still runs, and tests/ui/test_latency_benchmark.py
runs it so; the goals that compare with the straight link then say they were not measured.
Its figures are single events: compare medians of the default 20 moves and 10 trainings
on both links.

JupyterLab (the real `make lab`: loopback only, with its token) serves a scratch notebook
with the explorers of lessons 1 to 3: two explorers of RoundSTE, the beginner track's: the
explorer as it is, whose point moves are drawn in the browser, and the kernel-drawn way it
worked before (benchmarks/kernel_drawn.py); lesson 2's step-size explorer of
Cube and lesson 3's surrogate explorer, on the same front end; and lesson 3's training
explorer as train_surrogates() shows it. Debian's Chromium opens the notebook twice:
straight, and through a local TCP proxy delaying every chunk by 50 ms each way (a 100 ms
round trip, ordinary for Binder). For each slider explorer it dispatches key events on a
slider handle and times, in the page, from the event to the animation frame that shows the
picture's change (tools/page_timing.py): a point move (the x slider; the step-size
explorer's h) and a curve change, which needs new curves from the kernel (the upper end of
the x range; the step-size explorer's point x; the surrogate explorer's width). For the
training explorer it toggles one more width button on, then times from the "Train again"
click, dispatched in the page, to the animation frame that shows the new picture (the
new <img> decoded); untimed, it toggles the width off and trains again.
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

ROOT = Path(__file__).resolve().parent.parent
LOADS: list[float] = []  # the 1-minute load average as each series starts (ours included)
NOTEBOOK_CELLS = [
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    "from benchmarks.kernel_drawn import KernelDrawn\n"
    "from lessons_lib import Cube, RoundSTE, explore, explore_steps, explore_surrogate, "
    "train_surrogates",
    "explore(RoundSTE)",
    "KernelDrawn(RoundSTE)",
    "explore_steps(Cube, 2.0)",
    "explore_surrogate()",
    "train_surrogates()",
]
# (explorer, its root's CSS selector, the attribute a point move and a curve change change,
# the slider row whose handle makes a curve change, that case's name)
EXPLORERS = [
    (
        "browser-drawn",
        ".lessons-explorer",
        "data-x",
        "data-revision",
        ".explorer-range",
        "range change",
    ),
    ("kernel-drawn", ".kernel-drawn", "src", "src", ".explorer-range", "range change"),
    ("step-size", ".step-explorer", "data-x", "data-revision", ".explorer-x", "x move"),
    (
        "surrogate",
        ".surrogate-explorer",
        "data-x",
        "data-revision",
        ".explorer-width",
        "width change",
    ),
]
TRAINING = ("training", "Train again")  # the training explorer's row: explorer, case
STRAIGHT, SLOW = "straight", "100 ms round trip"  # the links, by the names the table prints
LINKS = {"both": (STRAIGHT, SLOW), "straight": (STRAIGHT,), "slow": (SLOW,)}
ADDED_WIDTH = "2"  # a width button train_surrogates() leaves off, toggled on before each run
TRAINING_TIMEOUT_MS = 30_000


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
        if i < moves:  # the next series starts with its own untimed move
            page.wait_for_timeout(300)  # let the kernel's answers settle before the next move
    return times


def training_series(page: object, runs: int) -> list[float]:
    """Milliseconds from the Train again click to the frame showing the new picture, over
    `runs` trainings, each with one more width toggled on (and off again, untimed, before
    the next)."""
    from tools.page_timing import click_to_picture

    LOADS.append(os.getloadavg()[0])
    explorer = page.locator(".training-explorer").first
    explorer.scroll_into_view_if_needed()
    picture = explorer.locator("img.training-picture").locator("xpath=..")  # replaced in it
    width = explorer.get_by_role("button", name=ADDED_WIDTH, exact=True)
    train = explorer.get_by_role("button", name="Train again")
    times = []
    for i in range(runs + 1):
        # The width toggled on and timed; off again, untimed, if another run follows.
        for timed in (True, False) if i < runs else (True,):
            width.click()
            page.wait_for_timeout(300)  # the toggle reaches the kernel before the click
            elapsed = click_to_picture(train, picture, None, TRAINING_TIMEOUT_MS)
            if elapsed is None:
                raise RuntimeError(f"no new picture within {TRAINING_TIMEOUT_MS} ms of the click")
            if timed and i:  # the first training warms up the page and the kernel
                times.append(elapsed)
            # The facts, listed after the picture, show whether the added width was trained
            # (each new list replaces the last: looked up anew each time).
            page.wait_for_function(
                "([root, words, on]) => (root.querySelector('.training-facts')?.innerText ?? '')"
                ".includes(words) === on",
                arg=[explorer.element_handle(), f", width {ADDED_WIDTH}:", timed],
            )
            page.wait_for_function("(button) => !button.disabled", arg=train.element_handle())
            page.wait_for_timeout(300)  # the progress bar's last updates
    return times


DESK, PROJECTOR = {"width": 1400, "height": 1000}, {"width": 1280, "height": 720}
DRAWN_AT_ITS_WIDTH = """() => [...document.querySelectorAll('.explorer-picture[data-revision]')]
  .every((p) => Number(p.dataset.drawnWidth) === p.getBoundingClientRect().width)"""
PRESENTATION_MODE = (
    "() => window.jupyterapp.commands.execute('application:toggle-presentation-mode')"
)


def measure(browser: object, base: str, token: str, moves: int, args: argparse.Namespace) -> dict:
    """Point move and curve change times for every slider explorer, and the training
    explorer's Train again times, through one base URL."""
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
        page.locator(".surrogate-explorer .explorer-picture[data-revision]").wait_for()
        page.locator(".training-explorer img.training-picture").wait_for()
        page.wait_for_function(DRAWN_AT_ITS_WIDTH)  # not still drawing anew for the page's room
        found = {}
        for name, root, point, curves, changing, case in EXPLORERS:
            found[name, "point move"] = series(
                page, root, ".explorer-point .noUi-handle", point, moves
            )
            found[name, case] = series(page, root, f"{changing} .noUi-handle", curves, moves)
        found[TRAINING] = training_series(page, args.trainings)
        page.evaluate(SHUT_DOWN)
        return found
    finally:
        page.close()


def p95(values: list[float]) -> float:
    """The 95th percentile (inclusive method: within the measured values); of one value, it."""
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def wait_for_quiet(threshold: float, patience: float) -> float:
    """Sleep until the 1-minute load average falls below threshold (or patience runs out)."""
    deadline = time.monotonic() + patience
    while (load := os.getloadavg()[0]) >= threshold and time.monotonic() < deadline:
        time.sleep(15)
    return load


def verdicts(links: dict[str, dict]) -> list[tuple[str, bool | None]]:
    """Each goal, and whether the figures measured meet it (None: a link it needs was not
    measured)."""

    def median(link: str, name: str, case: str) -> float:
        return statistics.median(links[link][name, case])

    goals = [
        (
            "point move at 100 ms round trip <= 30 ms (median)",
            (SLOW,),
            lambda: median(SLOW, "browser-drawn", "point move") <= 30,
        ),
        (
            "point move straight no slower than kernel-drawn straight (median)",
            (STRAIGHT,),
            lambda: (
                median(STRAIGHT, "browser-drawn", "point move")
                <= median(STRAIGHT, "kernel-drawn", "point move")
            ),
        ),
        (
            "range change at 100 ms round trip <= 100 + 150 ms (median)",
            (SLOW,),
            lambda: median(SLOW, "browser-drawn", "range change") <= 250,
        ),
        (
            "step-size explorer's h move at 100 ms round trip <= 30 ms (median)",
            (SLOW,),
            lambda: median(SLOW, "step-size", "point move") <= 30,
        ),
        (
            "step-size explorer's x move at 100 ms round trip <= 100 + 150 ms (median)",
            (SLOW,),
            lambda: median(SLOW, "step-size", "x move") <= 250,
        ),
        (
            "surrogate explorer's point move at 100 ms round trip <= 30 ms (median)",
            (SLOW,),
            lambda: median(SLOW, "surrogate", "point move") <= 30,
        ),
        (
            "surrogate explorer's width change at 100 ms round trip <= 100 + 150 ms (median)",
            (SLOW,),
            lambda: median(SLOW, "surrogate", "width change") <= 250,
        ),
        (
            "training explorer's new picture within 3000 ms of Train again, "
            "a width added, on both links (max)",
            (STRAIGHT, SLOW),
            lambda: max(max(links[link][TRAINING]) for link in (STRAIGHT, SLOW)) <= 3000,
        ),
    ]
    return [(goal, judge() if set(needs) <= set(links) else None) for goal, needs, judge in goals]


def said(met: bool | None) -> str:
    """A goal's verdict as printed."""
    return {True: "met", False: "MISSED", None: "not measured (a link it needs was not run)"}[met]


def counted(count: int, what: str) -> str:
    """'1 key event', '20 key events'."""
    return f"{count} {what}{'' if count == 1 else 's'}"


def main(argv: list[str]) -> int:
    """Measure every explorer over both links; print the table and whether each goal is met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--moves", type=int, default=20, help="timed key events per case, after a warm-up"
    )
    parser.add_argument(
        "--trainings", type=int, default=10, help="timed Train again clicks per link, after one"
    )
    parser.add_argument(
        "--link", choices=list(LINKS), default="both", help="the links measured (default both)"
    )
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
        bases = {STRAIGHT: lab.base, SLOW: f"http://127.0.0.1:{link.port}"}
        links = {
            name: measure(browser, bases[name], lab.token, args.moves, args)
            for name in LINKS[args.link]
        }
        version = browser.version
        browser.close()
    load_after = os.getloadavg()[0]

    print(
        f"Slider or button to picture in Chromium {version}, RoundSTE explorers, Cube's "
        f"step-size explorer, the surrogate explorer ({counted(args.moves, 'key event')} per "
        f"case) and the training explorer ({counted(args.trainings, 'Train again click')}, a "
        "width added), "
        f"{'1280x720 in Presentation Mode' if args.projector else '1400x1000'} "
        f"at devicePixelRatio {args.scale:g}; "
        f"1-minute load {load_before:.2f} before, {min(LOADS):.2f} to "
        f"{max(LOADS):.2f} during (this benchmark's own processes included), "
        f"{load_after:.2f} after"
    )
    print("ms from the key event or click to the frame showing the picture's change, in the page")
    print(f"{'link':19}{'explorer':15}{'':14}{'median':>9}{'p95':>9}{'max':>9}")
    for link_name, found in links.items():
        for (name, case), times in found.items():
            print(
                f"{link_name:19}{name:15}{case:14}"
                f"{statistics.median(times):6.0f} ms{p95(times):6.0f} ms{max(times):6.0f} ms"
            )
    for goal, met in verdicts(links):
        print(f"goal: {goal}: {said(met)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
