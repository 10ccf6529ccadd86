"""tools/test_times.py: where `make test`'s time went, by folder and the slowest tests."""

import subprocess
import sys
import tomllib
from xml.sax.saxutils import quoteattr

import pytest

from tests.lab_server import ROOT
from tools.test_times import GROUP_LINES, SLOWEST, group_of, main, read_run, table


def junit(path, cases: dict[str, float], wall: float) -> None:
    """A JUnit XML file in pytest's xunit1 shape: file, name and seconds of each case."""
    rows = "".join(
        f"<testcase file={quoteattr(nodeid.split('::')[0])} "
        f"name={quoteattr(nodeid.split('::')[-1])} time='{seconds}'/>"
        for nodeid, seconds in cases.items()
    )
    path.write_text(
        f"<testsuites><testsuite name='pytest' time='{wall}'>{rows}</testsuite></testsuites>"
    )


@pytest.mark.parametrize(
    ("file", "group"),
    [
        ("tests/doctor/test_compare.py", "tests/doctor"),
        ("tests/explorers/gradient/test_curves.py", "tests/explorers"),
        ("tests/test_binder_env.py", "tests/test_binder_env.py"),
        ("notebooks/01-custom-function/1-beginner.ipynb", "notebooks"),
    ],
)
def test_a_test_counts_in_its_top_folder_or_as_its_own_top_level_file(file, group):
    assert group_of(file) == group


def test_groups_add_up_each_runs_seconds_and_name_the_later_runs(tmp_path):
    junit(
        tmp_path / "1-all.xml",
        {
            "tests/doctor/test_a.py::x": 2.0,
            "tests/doctor/test_b.py::y": 3.0,
            "nb/a.ipynb::Cell 0": 1,
        },
        wall=9.0,
    )
    junit(tmp_path / "2-any-cpu.xml", {"nb/a.ipynb::Cell 0": 4.0}, wall=5.0)
    runs = [(p.stem, *read_run(p)) for p in sorted(tmp_path.glob("*.xml"))]
    lines = table(runs)
    assert "2 pytest run(s), 14 s wall, 10 s in 4 tests" in lines[0]
    groups = lines[1 : lines.index(f"The {SLOWEST} slowest tests (setup + call + teardown):")]
    assert [line.split(" tests  ")[1] for line in groups] == [
        "tests/doctor",
        "nb (2-any-cpu run)",
        "nb",
    ]
    assert groups[0].split()[:3] == ["5.0", "s", "50%"]
    assert lines[-4].endswith("nb/a.ipynb::Cell 0 (2-any-cpu run)")  # the slowest, 4 s


def test_the_table_stays_within_twenty_lines_however_many_groups(tmp_path):
    cases = {f"tests/test_{i}.py::t{j}": i + j / 10 for i in range(30) for j in range(3)}
    junit(tmp_path / "all.xml", cases, wall=100.0)
    lines = table([("all", *read_run(tmp_path / "all.xml"))])
    assert len(lines) <= 20
    assert lines[GROUP_LINES + 1].endswith(f"{30 - GROUP_LINES} more groups")
    seconds = [float(line.split()[0]) for line in lines[1 : GROUP_LINES + 2]]
    assert sum(seconds) == pytest.approx(sum(cases.values()), abs=0.5)
    slowest = [float(line.split()[0]) for line in lines[-SLOWEST:]]
    assert slowest == sorted(slowest, reverse=True)
    assert slowest[0] == max(cases.values())


def test_pytests_own_junit_file_names_each_tests_file(tmp_path):
    """The table reads pytest's real output, in the family pyproject.toml sets."""
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert ini["junit_family"] == "xunit1"
    (tmp_path / "test_sample.py").write_text("def test_one():\n    pass\n")
    xml = tmp_path / "out.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={xml}",
            "-o",
            "junit_family=xunit1",
            "--rootdir",
            tmp_path,
            "test_sample.py",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    wall, tests = read_run(xml)
    assert [(t.file, t.name) for t in tests] == [("test_sample.py", "test_one")]
    assert wall >= tests[0].seconds >= 0


def test_no_times_found_says_so(tmp_path, capsys):
    assert main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("no test times found")
