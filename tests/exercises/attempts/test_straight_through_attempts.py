"""check_straight_through on hundreds of generated attempts: every mark and sentence of its verdict true."""

import pytest

from tests.exercises.attempts import specs
from tests.exercises.attempts.judging import failures, hint_problems, judge_all
from tests.exercises.attempts.straight_through_attempts import straight_through_attempts

MINIMUM = 300


@pytest.fixture(scope="module")
def judged():
    attempts, _ = straight_through_attempts()
    return judge_all(specs.straight_through(), attempts)


def test_enough_distinct_attempts():
    """At least 300 attempts that behave differently, some right and most wrong."""
    attempts, generated = straight_through_attempts()
    right = [a for a in attempts if not a.argument and specs.straight_through().right(a)]
    assert len(attempts) >= MINIMUM, f"{len(attempts)} distinct of {generated}"
    assert right and len(right) < len(attempts) / 10


def test_the_oracle_tells_the_starter_from_the_answer():
    """The oracle of "right" passes the hint's answer and fails the notebook's starter."""
    from tests.exercises.attempts.distinct import Attempt
    from tests.exercises.attempts.loading import load_source
    from tests.exercises.attempts.straight_through_attempts import bases
    from tests.exercises.attempts.straight_through_facts import round_facts

    right = specs.straight_through().right
    for name, want in (("answer", True), ("starter", False)):
        cls = load_source(bases()[name], "myround").MyRound
        assert right(Attempt("check_straight_through", name, cls, facts=round_facts(cls))) is want


def test_no_exception_or_traceback(judged):
    """a: check_straight_through never raises, and no traceback reaches the learner."""
    assert not (message := failures(judged, "a:")), message


def test_no_well_done_for_a_wrong_attempt(judged):
    """b: a wrong MyRound never hears Well done."""
    assert not (message := failures(judged, "b:")), message


def test_a_right_attempt_is_never_failed(judged):
    """c: a MyRound equivalent to the answer passes."""
    assert not (message := failures(judged, "c:")), message


def test_every_mark_is_true(judged):
    """d: ✓ only where the case's property holds, ✗ only where it fails."""
    assert not (message := failures(judged, "d:")), message


def test_every_claim_about_the_code_is_true(judged):
    """e: every sentence saying what the learner's MyRound did is true of it."""
    assert not (message := failures(judged, "e:")), message


def test_wrong_arguments_get_one_line(judged):
    """f: a wrong argument gets one line naming what was passed and what is wanted."""
    assert not (message := failures(judged, "f:")), message


def test_a_bad_hint_level_is_named():
    """A hint level that is not 0 to 3 gets one line saying so and naming what was passed."""
    spec = specs.straight_through()
    answer = next(
        a.learner for a in straight_through_attempts()[0] if a.facts is not None and spec.right(a)
    )
    assert not (problems := hint_problems(spec, answer)), "\n\n".join(problems)
