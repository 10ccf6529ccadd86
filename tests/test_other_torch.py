"""benchmarks/other_torch.py's cheap parts: the pinned list it installs, how it counts results.

The benchmark itself (a multi-GB venv, minutes) is run by hand, not by `make test`.
"""

import pytest

from benchmarks.other_torch import (
    notebooks_passed,
    pinned_list,
    quick_skip,
    read_junit,
    what_differs,
)
from tests.lab_server import ROOT
from tests.requirements_files import requirements

LEARNER = ROOT / "requirements.txt"
TESTS = ROOT / "requirements-test.txt"


def pins(path) -> dict[str, str]:
    return {pin.name: pin.spec for pin in requirements(path)}


def test_the_other_list_is_the_test_list_with_only_torchs_pin_changed(tmp_path):
    other = tmp_path / "other.txt"
    other.write_text(pinned_list(LEARNER.read_text(), TESTS.read_text(), "9.8.7"))
    expected = pins(TESTS) | {"torch": "==9.8.7"}
    assert pins(other) == expected
    assert "-r requirements.txt" not in other.read_text(), "the include brings the old pin back"


def test_a_pin_with_a_comment_keeps_its_comment():
    learners = "numpy==2.0\ntorch==2.13.0  # the course's\n"
    assert pinned_list(learners, "", "2.14.1").splitlines()[:2] == [
        "numpy==2.0",
        "torch==2.14.1  # the course's",
    ]


@pytest.mark.parametrize(
    "learners, tests",
    [("numpy==2.0\n", ""), ("torch==2.13.0\ntorch==2.12.0\n", ""), ("torch==2.13.0\n", "torch==1")],
    ids=["no torch pin", "two torch pins", "the test list pins torch"],
)
def test_a_list_whose_torch_pin_is_not_where_expected_is_refused(learners, tests):
    with pytest.raises(ValueError):
        pinned_list(learners, tests, "2.14.1")


def test_junit_counts_and_notebooks_passed(tmp_path):
    junit = tmp_path / "run.xml"
    junit.write_text(
        """<testsuites><testsuite>
        <testcase file="notebooks/a.ipynb" name="Cell 0"/>
        <testcase file="notebooks/a.ipynb" name="Cell 1"><failure message="x"/></testcase>
        <testcase file="notebooks/b.ipynb" name="Cell 0"/>
        <testcase file="notebooks/b.ipynb" name="Cell 1"><skipped/></testcase>
        <testcase file="notebooks/c.ipynb" name="Cell 0"><error message="y"/></testcase>
        </testsuite></testsuites>"""
    )
    outcome = read_junit(junit)
    assert dict(outcome.counts) == {"passed": 2, "failed": 2, "skipped": 1}
    assert outcome.failed == ["notebooks/a.ipynb::Cell 1", "notebooks/c.ipynb::Cell 0"]
    assert notebooks_passed(outcome) == (1, 3)


def test_nbvals_reason_is_shortened_to_what_was_got_and_what_is_stored():
    # As pytest writes it into junit XML: colours escaped, the new run's lines marked '-'.
    message = (
        "#x1B[94mCell 1: Cell outputs differ\n\nInput:\n#x1B[0mprint(torch.__version__)\n"
        "- not a diff line: this is the cell's source\n"
        "#x1B[94mTraceback:#x1B[0m\n#x1B[94m mismatch 'stdout'#x1B[91m\n\n"
        "  'torch 2.13.0\\n' == 'torch 2.14.1\\n'\n  \n"
        "  - torch 2.14.1\n  ?          ^ ^\n  + torch 2.13.0\n  ?          ^ ^\n#x1B[0m\n"
    )
    assert what_differs(message) == ["got:    torch 2.14.1", "stored: torch 2.13.0"]
    stderr = "Traceback:\x1b[91mUnexpected output fields from running code: {'stderr'}\x1b[0m"
    assert what_differs(stderr) == ["Unexpected output fields from running code: {'stderr'}"]


def test_the_quick_loops_exclusions_come_from_the_makefile():
    skip = quick_skip()
    assert "--ignore=tests/ui" in skip and skip[skip.index("-m") + 1].startswith("not binder")
