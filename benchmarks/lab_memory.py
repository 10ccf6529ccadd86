"""Memory of JupyterLab's server and kernels while a learner walks the course: two servers.

    .venv/bin/python -m benchmarks.lab_memory [--quick]

Side by side: JupyterLab's stock kernel manager, and the course's settings
(binder/jupyter_server_config.py: at most two kernels run at once). For each track, a
fresh `make lab` on a scratch copy of the course; Chromium opens the course map, runs it,
follows its link to the track, runs that, follows the track's link to the exercise and
runs that, every kernel left running (tests/ui/course_walk.py). After the researcher
walk, every other notebook is opened and run as well. Figures in MiB, each the peak so
far of the tree below `make lab` (tools/lab_memory.py): held (each page once, what a
container such as Binder's counts; root only), PSS and RSS summed, and the kernels left.
Goals (issue 13): a walk under 1 GiB, every notebook open under 2 GiB. --quick measures
the course map alone (as the test that this script runs does).
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


@dataclass(frozen=True)
class Row:
    step: str
    peak: Usage
    kernels: int


def session(
    browser: Browser, lab_args: tuple[str, ...], track: str | None, every: bool
) -> list[Row]:
    """One JupyterLab: the course map, then (given a track) the walk, then (every) the rest."""
    rows = []
    with course_lab(*lab_args) as lab, watching(lab.pid) as memory:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})

        def row(step: str) -> None:
            memory.sample()
            rows.append(Row(step, memory.peak, running_kernels(page)))

        route = walk(track) if track else [COURSE_MAP]
        start(page, lab)
        run_all(page)
        row("course map")
        if track:
            for path in route[1:]:
                follow_link(page, path)
                run_all(page)
            row(f"map, {track} track, exercise")
        if every:
            for path in every_notebook():
                if path not in route:
                    open_notebook(page, path)
                    run_all(page)
            row("+ every other notebook")
        page.close()
    return rows


def measure(browser: Browser, lab_args: tuple[str, ...], quick: bool) -> list[Row]:
    """Every row of the table for one server."""
    if quick:
        return session(browser, lab_args, None, every=False)
    rows = []
    for track in TRACKS:
        found = session(browser, lab_args, track, every=track == "researcher")
        rows += found[1:] if rows else found  # the course map's row once
    return rows


def figures(row: Row) -> str:
    held = "n/a" if row.peak.held is None else str(row.peak.held >> 20)
    return f"{held:>6} {row.peak.pss >> 20:>6} {row.peak.rss >> 20:>6} {row.kernels:>7}"


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        results = {name: measure(browser, args, quick) for name, args in SERVERS.items()}
        browser.close()
    names = list(results)
    print(f"{'peak MiB so far':34}" + "".join(f" | {name:^28}" for name in names))
    print(f"{'step':34}" + f" | {'held':>6} {'PSS':>6} {'RSS':>6} {'kernels':>7}" * len(names))
    for rows in zip(*results.values(), strict=True):
        print(f"{rows[0].step:34}" + "".join(f" | {figures(row)}" for row in rows))
    print("goals: a walk (map, track, exercise) under 1024 MiB; every notebook open under 2048 MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
