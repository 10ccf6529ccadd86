"""check_straight_through on hundreds of generated attempts: every mark and sentence of its verdict true."""

from tests.exercises.attempts import specs
from tests.exercises.attempts.straight_through_attempts import straight_through_attempts
from tests.exercises.attempts.verdict_tests import VerdictTests


class TestCheckStraightThrough(VerdictTests):
    """VerdictTests on the MyRound classes a learner might write."""

    spec = staticmethod(specs.straight_through)
    attempts = staticmethod(straight_through_attempts)

    def test_the_oracle_tells_the_starter_from_the_answer(self):
        """The oracle of "right" passes the hint's answer and fails the notebook's starter."""
        from tests.exercises.attempts.distinct import Attempt
        from tests.exercises.attempts.loading import load_source
        from tests.exercises.attempts.straight_through_attempts import bases
        from tests.exercises.attempts.straight_through_facts import round_facts

        right = self.spec().right
        for name, want in (("answer", True), ("starter", False)):
            cls = load_source(bases()[name], "myround").MyRound
            assert (
                right(Attempt("check_straight_through", name, cls, facts=round_facts(cls))) is want
            )
