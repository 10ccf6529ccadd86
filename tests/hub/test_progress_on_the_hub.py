"""The teacher sees progress on the real hub: benchmarks/class_progress.py, three learners.

One learner passes check_cube, one fails it, one never runs a check: the teacher's page
(/services/progress/, an admin-only JupyterHub service) and `make class-progress` show
exactly that; a learner is refused the page; the failing learner's own words appear in no
file, page or table. It shares the class test's prerequisites and class folder, and runs
on the same worker (tests/conftest.py), so the two never build one environment at once.
CLASS_TEST_PREFIX=DIR runs it on another class folder.
"""

import os
from pathlib import Path

import pytest

from tests.hub.test_class import NEEDS
from tools.class_progress import COURSE_CHECKS

MISSING = [why for ok, why in NEEDS if not ok and "chromium" not in why]  # no browser here


@pytest.fixture(scope="module")
def outcome():
    if MISSING:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the progress test: {MISSING[0]}")
        pytest.skip(f"progress test skipped: {MISSING[0]}")
    from benchmarks.class_progress import class_progress_run
    from benchmarks.classroom.hub import PREFIX

    return class_progress_run(Path(os.environ.get("CLASS_TEST_PREFIX", PREFIX)))


def test_each_learner_ran_what_they_meant_to(outcome):
    assert outcome.error is None, outcome.error
    assert outcome.printed == {"passes": "4", "fails": "2"}


def test_the_page_and_the_command_show_exactly_the_three_learners(outcome):
    names = outcome.learners
    expected = {names["passes"]: "4/4", names["fails"]: "2/4", names["never"]: "-"}
    assert outcome.cube(outcome.page) == expected
    assert outcome.cube(outcome.command_rows) == expected
    for rows in (outcome.page, outcome.command_rows):  # a header, the three, the summary
        assert [row[0] for row in rows[1:-1]] == sorted(names.values())
        assert rows[-1][1 + COURSE_CHECKS.index("check_cube")] == "1 of 3 passed"


def test_only_the_teacher_sees_the_page(outcome):
    assert outcome.learner_page == (403, False)


def test_no_learners_code_is_recorded_or_shown(outcome):
    from benchmarks.class_progress import SECRET

    assert outcome.files["never"] is None
    assert outcome.files["fails"].count('"check": "check_cube"') == 1
    seen = [outcome.command, str(outcome.page), *map(str, outcome.files.values())]
    assert not [text for text in seen if SECRET in text]


def test_the_report_has_a_line_per_learner(outcome):
    from benchmarks.class_progress import report

    lines = report(outcome).splitlines()
    assert [
        line.split()[:3] for line in lines if line.startswith(("passes", "fails", "never"))
    ] == [
        ["passes", "4", "4/4"],
        ["fails", "2", "2/4"],
        ["never", "-", "-"],
    ]
