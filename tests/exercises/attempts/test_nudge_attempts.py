"""check_nudge on hundreds of generated attempts: every mark and sentence of its verdict true."""

from tests.exercises.attempts import specs
from tests.exercises.attempts.nudge_attempts import nudge_attempts
from tests.exercises.attempts.verdict_tests import VerdictTests


class TestCheckNudge(VerdictTests):
    """VerdictTests on the my_nudge functions a learner might write."""

    spec = staticmethod(specs.nudge)
    attempts = staticmethod(nudge_attempts)

    def test_the_oracle_tells_the_starter_from_the_answer(self):
        """The oracle of "right" passes the hint's answer and fails the notebook's starter."""
        from tests.exercises.attempts.distinct import Attempt
        from tests.exercises.attempts.loading import load_source
        from tests.exercises.attempts.nudge_attempts import bases
        from tests.exercises.attempts.nudge_facts import nudge_facts

        right = self.spec().right
        for name, want in (("answer", True), ("starter", False)):
            fn = load_source(bases()[name], "nudge").my_nudge
            assert right(Attempt("check_nudge", name, fn, facts=nudge_facts(fn))) is want
