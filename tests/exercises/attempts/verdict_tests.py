"""The tests every Function self-check's verdicts must pass on its generated attempts: enough
distinct attempts, assertions a to f of judging.py, and a bad hint level named. Each
test_<check>_attempts.py subclasses VerdictTests, naming its spec and attempts, and adds its
own oracle test (the course's answer passes it, the notebook's starter fails it)."""

from collections.abc import Callable

import pytest

from tests.exercises.attempts.distinct import Attempt
from tests.exercises.attempts.judging import CheckSpec, failures, hint_problems, judge_all

MINIMUM = 300


class VerdictTests:
    """The shared tests; a subclass sets `spec` and `attempts` (both staticmethods)."""

    spec: Callable[[], CheckSpec]  # specs.cube, ...
    attempts: Callable[[], tuple[list[Attempt], int]]  # the distinct attempts, and how many made

    @pytest.fixture(scope="class")
    @classmethod
    def judged(cls):
        attempts, _ = cls.attempts()
        return judge_all(cls.spec(), attempts)

    def right_attempts(self) -> list[Attempt]:
        """The attempts that were run (their facts recorded) and that the oracle calls right."""
        spec = self.spec()
        return [a for a in self.attempts()[0] if a.facts is not None and spec.right(a)]

    def test_enough_distinct_attempts(self):
        """At least 300 attempts that behave differently, some right and most wrong."""
        attempts, generated = self.attempts()
        right = self.right_attempts()
        assert len(attempts) >= MINIMUM, f"{len(attempts)} distinct of {generated}"
        assert right and len(right) < len(attempts) / 10

    def test_no_exception_or_traceback(self, judged):
        """a: the check never raises, and no traceback reaches the learner."""
        assert not (message := failures(judged, "a:")), message

    def test_no_well_done_for_a_wrong_attempt(self, judged):
        """b: a wrong attempt never hears Well done."""
        assert not (message := failures(judged, "b:")), message

    def test_a_right_attempt_is_never_failed(self, judged):
        """c: an attempt equivalent to the answer passes."""
        assert not (message := failures(judged, "c:")), message

    def test_every_mark_is_true(self, judged):
        """d: ✓ only where the case's property holds, ✗ only where it fails."""
        assert not (message := failures(judged, "d:")), message

    def test_every_claim_about_the_code_is_true(self, judged):
        """e: every sentence saying what the learner's code did is true of it."""
        assert not (message := failures(judged, "e:")), message

    def test_wrong_arguments_get_one_line(self, judged):
        """f: a wrong argument gets one line naming what was passed and what is wanted."""
        assert not (message := failures(judged, "f:")), message

    def test_a_bad_hint_level_is_named(self):
        """A hint level that is not 0 to 3 gets one line saying so and naming what was passed."""
        answer = self.right_attempts()[0].learner
        assert not (problems := hint_problems(self.spec(), answer)), "\n\n".join(problems)
