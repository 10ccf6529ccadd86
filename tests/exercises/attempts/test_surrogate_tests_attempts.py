"""check_my_surrogate_tests on generated suites: every mark and named sentence of its verdict
checked against what the suite does when run by itself on each spike, and on the doctor
(surrogate_tests_judging.py)."""

import dataclasses

import pytest

from tests.exercises.attempts.surrogate_tests_attempts import suite_attempts
from tests.exercises.attempts.surrogate_tests_judging import false_claims, right

ATTEMPTS = suite_attempts()


def test_the_attempts_are_many_and_start_with_the_answer():
    assert len(ATTEMPTS) > 30
    assert ATTEMPTS[0].label == "answer"
    assert right(ATTEMPTS[0])


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=lambda a: a.label)
def test_every_mark_and_sentence_is_true(attempt):
    assert false_claims(attempt) == []


def test_the_judge_finds_a_false_mark():
    """The judge itself can fail: a verdict whose right-spike line is flipped is caught."""
    from lessons_lib.exercises import surrogate_tests
    from lessons_lib.watch import patched

    real = surrogate_tests.check_my_surrogate_tests

    def flipped(tests):
        verdict = real(tests)
        verdict.cases[0] = dataclasses.replace(verdict.cases[0], passed=not verdict.cases[0].passed)
        return verdict

    from tests.exercises.attempts import surrogate_tests_judging

    with patched(surrogate_tests_judging, check_my_surrogate_tests=flipped):
        assert any("right spike" in c for c in false_claims(ATTEMPTS[0]))
