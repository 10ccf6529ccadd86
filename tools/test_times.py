"""Where a test run's time went, from the JUnit XML files pytest wrote for it.

    python -m tools.test_times build/test-times     (every *.xml there, in name order)

`make test` runs pytest once and prints this table from its file; given several runs' files
(say, a run of the notebooks alone beside it), it prints one table for all: seconds by folder (tests/<folder>, notebooks) or top-level test
file, then the ten slowest tests. A test's seconds are its setup, call and teardown, so a
module's shared fixture (a lab started, Binder's environment built) counts in the test
that first asked for it. Under pytest-xdist the seconds add up over the workers, so their
sum exceeds the wall time; the first line gives both.

Reading the XML rather than hooking into pytest keeps one table across several runs, even
of a run that never loads tests/conftest.py (`pytest notebooks`). The files must be in
the xunit1 family (pyproject.toml), whose test cases name their file.
"""

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUP_LINES = 7  # the largest groups; the rest share one line
SLOWEST = 10


@dataclass(frozen=True)
class Timed:
    """One test of one run: where it lives, what it is called, its seconds."""

    run: str  # the XML file's stem; runs after the first are named in the table
    file: str
    name: str
    seconds: float


def read_run(path: Path) -> tuple[float, list[Timed]]:
    """The run's wall seconds and its tests, from one JUnit XML file."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    wall = sum(float(suite.get("time", 0)) for suite in suites)
    tests = [
        Timed(
            path.stem,
            case.get("file", case.get("classname", "?")),
            case.get("name", "?"),
            float(case.get("time", 0)),
        )
        for suite in suites
        for case in suite.iter("testcase")
    ]
    return wall, tests


def group_of(file: str) -> str:
    """tests/<folder> or notebooks for what lives in a folder; the file itself at tests/."""
    parts = Path(file).parts
    if parts[0] == "tests" and len(parts) > 2:
        return f"tests/{parts[1]}"
    return file if parts[0] == "tests" else parts[0]


def table(runs: list[tuple[str, float, list[Timed]]]) -> list[str]:
    """At most 20 lines: the totals, the groups by seconds, the ten slowest tests."""
    first = runs[0][0] if runs else ""
    tests = [test for _, _, run_tests in runs for test in run_tests]

    def label(test: Timed, text: str) -> str:
        return text if test.run == first else f"{text} ({test.run} run)"

    seconds: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for test in tests:
        group = label(test, group_of(test.file))
        seconds[group] += test.seconds
        counts[group] += 1
    total = sum(seconds.values())
    wall = sum(run_wall for _, run_wall, _ in runs)
    lines = [
        f"Where the time went: {len(runs)} pytest run(s), {wall:.0f} s wall, "
        f"{total:.0f} s in {len(tests)} tests (summed over xdist workers)"
    ]
    ranked = sorted(seconds, key=seconds.get, reverse=True)
    shown, rest = ranked[:GROUP_LINES], ranked[GROUP_LINES:]
    rows = [(seconds[g], counts[g], g) for g in shown]
    if rest:
        rows.append(
            (
                sum(seconds[g] for g in rest),
                sum(counts[g] for g in rest),
                f"{len(rest)} more groups",
            )
        )
    share = total or 1.0
    lines += [f"{s:8.1f} s {100 * s / share:4.0f}% {n:5d} tests  {g}" for s, n, g in rows]
    lines.append(f"The {SLOWEST} slowest tests (setup + call + teardown):")
    slowest = sorted(tests, key=lambda test: test.seconds, reverse=True)[:SLOWEST]
    lines += [f"{t.seconds:8.1f} s  {label(t, f'{t.file}::{t.name}')}" for t in slowest]
    return lines


def main(argv: list[str]) -> int:
    """Print the table for the XML files in the folders or files given."""
    paths = []
    for arg in map(Path, argv):
        paths += sorted(arg.glob("*.xml")) if arg.is_dir() else [arg]
    runs = [(path.stem, *read_run(path)) for path in paths if path.exists()]
    if not runs:
        print(f"no test times found in {' '.join(argv)}")
        return 0
    print("\n".join(table(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
