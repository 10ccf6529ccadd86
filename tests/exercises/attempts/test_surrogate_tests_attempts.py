"""check_my_surrogate_tests on generated suites: every mark and named sentence of its verdict
checked against what the suite does when run by itself on each spike, and on the doctor."""

import contextlib

import pytest
from torch.autograd.gradcheck import GradcheckError

from lessons_lib.doctor.examination import Examination
from lessons_lib.exercises import surrogate_tests_words as words
from lessons_lib.exercises.clamp.observe import run
from lessons_lib.exercises.spike_answers import SpikeAnswer
from lessons_lib.exercises.surrogate_mistakes import MISTAKES, WrongWhileDrawing
from lessons_lib.exercises.surrogate_tests import check_my_surrogate_tests
from lessons_lib.watch import patched
from tests.exercises.attempts.surrogate_tests_attempts import suite_attempts

ATTEMPTS = suite_attempts()


@contextlib.contextmanager
def doctor_calls(seen: list[bool]):
    """Record, for every doctor examination of SpikeAnswer, whether it had a grad_reference."""
    start = Examination.__init__

    def init(self, fn, reference, grad_reference, inputs):
        if fn is SpikeAnswer:
            seen.append(grad_reference is not None)
        start(self, fn, reference, grad_reference, inputs)

    with patched(Examination, __init__=init):
        yield


def raises(tests, fn) -> bool:
    return run(tests, fn).found


def why_right_fails(attempt, error: BaseException) -> str:
    """The fix the first case must give, from the error and the slips the suite was made with."""
    if isinstance(error, GradcheckError):
        return words.GRADCHECK
    if "doctor without grad_reference" in attempt.label:
        return words.NO_RULE_FAILED_RIGHT
    assert "rule" in attempt.label, attempt.label  # the only other slips that fail SpikeAnswer
    return words.DOCTOR_FAILED_RIGHT


def test_the_attempts_are_many_and_start_with_the_answer():
    assert len(ATTEMPTS) > 30
    assert ATTEMPTS[0].label == "answer"


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=lambda a: a.label)
def test_every_mark_and_sentence_is_true(attempt):
    tests = attempt.function()
    verdict = check_my_surrogate_tests(tests)
    right, doctor, *caught, prop = verdict.cases
    seen: list[bool] = []
    with doctor_calls(seen):
        fails_right = raises(tests, SpikeAnswer)
    assert right.passed is not fails_right, right.got
    later = [doctor, *caught, prop]
    if fails_right:
        assert right.fix == why_right_fails(attempt, run(tests, SpikeAnswer).error)
        assert all(c.mark == "○" for c in later)
        return
    assert all(c.checked for c in later)
    assert doctor.passed is any(seen)
    if not doctor.passed:
        want = words.DOCTOR_NO_RULE if seen else words.DOCTOR_NEVER
        assert doctor.got == want
    for case, mistake in zip(caught, MISTAKES, strict=True):
        assert case.passed is raises(tests, mistake.fn), case.name
    assert prop.passed is raises(tests, WrongWhileDrawing)
    if not attempt.property_called:
        assert not prop.passed
        assert prop.got == words.UNCALLED_GOT.format(test="linear_and_peaks_at_threshold")
    if verdict.ok:
        assert attempt.property_called and any(seen)
