"""Memory of JupyterLab's server and kernels while a learner walks the course: two servers.

    .venv/bin/python -m benchmarks.lab_memory [--quick]

Side by side: JupyterLab's stock kernel manager, and the course's settings
(binder/jupyter_server_config.py: at most two kernels run at once). For each walk (each
of lesson 1's tracks, and lesson 3's beginner track), a fresh `make lab` on a scratch
copy of the course; Chromium opens the course map, runs it, follows its link to the
track, runs that, follows the track's link to its exercise and runs that, every kernel
left running (tests/ui/course_walk.py). After the researcher walk, measured last, every
other notebook is opened and run as well. Figures in MiB, each the peak so far of the
tree below `make lab` (tools/lab_memory.py): held (each page once, what a container such
as Binder's counts; root only), PSS and RSS summed, and the kernels left; each row's goal
beside it, judged on the course's settings (stock JupyterLab is for comparison): a walk
within 1 GiB (a lesson-3 notebook and its exercise open included), every
notebook open within 2 GiB. --quick measures the course map alone (as
the test that this script runs does).
"""

import sys
from dataclasses import dataclass

from playwright.sync_api import Browser, sync_playwright

from tests.ui.course_walk import (
    CHROMIUM,
    CHROMIUM_ARGS,
    COURSE_MAP,
    STOCK,
    TRACKS,
    WALKS,
    course_lab,
    every_notebook,
    follow_link,
    open_notebook,
    run_all,
    running_kernels,
    start,
    walk,
)
from tools.lab_memory import Usage, watching

SERVERS = {"stock JupyterLab": (STOCK,), "course settings": ()}
EVERY_AFTER = "researcher"  # the walk after which every other notebook is run: the heaviest
WALK_GOAL_MIB, EVERY_GOAL_MIB = 1024, 2048


@dataclass(frozen=True)
class Row:
    step: str
    peak: Usage
    kernels: int
    goal_mib: int | None = None


def walk_label(name: str) -> str:
    """A walk's row, e.g. "map, beginner track, exercise"."""
    track = f"{name} track" if name in TRACKS else f"{name} beginner"
    return f"map, {track}, exercise"


def session(
    browser: Browser, lab_args: tuple[str, ...], name: str | None, every: bool
) -> list[Row]:
    """One JupyterLab: the course map, then (given a walk's name) the walk, then (every) the
    rest."""
    rows = []
    with course_lab(*lab_args) as lab, watching(lab.pid) as memory:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})

        def row(step: str, goal_mib: int | None = None) -> None:
            memory.sample()
            rows.append(Row(step, memory.peak, running_kernels(page), goal_mib))

        route = walk(name) if name else [COURSE_MAP]
        start(page, lab)
        run_all(page)
        row("course map")
        if name:
            for path in route[1:]:
                follow_link(page, path)
                run_all(page)
            row(walk_label(name), WALK_GOAL_MIB)
        if every:
            for path in every_notebook():
                if path not in route:
                    open_notebook(page, path)
                    run_all(page)
            row("+ every other notebook", EVERY_GOAL_MIB)
        page.close()
    return rows


def measure(browser: Browser, lab_args: tuple[str, ...], quick: bool) -> list[Row]:
    """Every row of the table for one server."""
    if quick:
        return session(browser, lab_args, None, every=False)
    rows = []
    for name in sorted(WALKS, key=lambda name: name == EVERY_AFTER):  # EVERY_AFTER last
        found = session(browser, lab_args, name, every=name == EVERY_AFTER)
        rows += found[1:] if rows else found  # the course map's row once
    return rows


def figures(row: Row) -> str:
    held = "n/a" if row.peak.held is None else str(row.peak.held >> 20)
    return f"{held:>6} {row.peak.pss >> 20:>6} {row.peak.rss >> 20:>6} {row.kernels:>7}"


def verdict(rows: tuple[Row, ...]) -> str:
    """The row's goal, and whether the course's settings (the last server) met it (held where
    known, else PSS): stock JupyterLab is there to compare with."""
    goal = rows[-1].goal_mib
    if goal is None:
        return ""
    return f" | {goal:>5} {'met' if rows[-1].peak.total >> 20 <= goal else 'MISSED':>6}"


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        results = {name: measure(browser, args, quick) for name, args in SERVERS.items()}
        browser.close()
    names = list(results)
    print(f"{'peak MiB so far':34}" + "".join(f" | {name:^28}" for name in names) + " | goal MiB")
    print(
        f"{'step':34}"
        + f" | {'held':>6} {'PSS':>6} {'RSS':>6} {'kernels':>7}" * len(names)
        + f" | {'<=':>5} {'course':>6}"
    )
    for rows in zip(*results.values(), strict=True):
        print(f"{rows[0].step:34}" + "".join(f" | {figures(row)}" for row in rows) + verdict(rows))
    print(
        f"goals: a walk (map, track, its exercise) within {WALK_GOAL_MIB} MiB; every notebook "
        f"open within {EVERY_GOAL_MIB} MiB, judged on the course settings (held where known, else PSS)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
