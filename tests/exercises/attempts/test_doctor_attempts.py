"""The gradient doctor, check_function(Cube, lambda x: x**3), on the generated Cube attempts:
its headline and every finding, evidence number and claim true of the attempt."""

import pytest

from tests.exercises.attempts.cube_attempts import cube_attempts
from tests.exercises.attempts.doctor_judging import judge_doctor
from tests.exercises.attempts.judging import failures


@pytest.fixture(scope="module")
def judged():
    return judge_doctor(cube_attempts()[0])


def test_enough_attempts(judged):
    """At least 300 distinct Cubes reach the doctor."""
    assert len(judged) >= 300


def test_no_exception_or_traceback(judged):
    """a: the doctor never raises on a broken Cube, and shows no traceback."""
    assert not (message := failures(judged, "a:")), message


def test_no_clean_bill_for_a_wrong_cube(judged):
    """b: "no problems found" only for a right Cube."""
    assert not (message := failures(judged, "b:")), message


def test_a_right_cube_has_no_problems(judged):
    """c: a Cube equivalent to the answer gets a clean bill."""
    assert not (message := failures(judged, "c:")), message


def test_headline_counts_the_findings(judged):
    """d: the headline's count is the number of findings, and the HTML names the same ones."""
    assert not (message := failures(judged, "d:")), message


def test_every_claim_is_true(judged):
    """e: every finding's words, evidence number and fix that states a fact are true."""
    assert not (message := failures(judged, "e:")), message
