"""check_spike on hundreds of generated attempts: every mark and sentence of its verdict true."""

from tests.exercises.attempts import specs
from tests.exercises.attempts.spike_attempts import spike_attempts
from tests.exercises.attempts.verdict_tests import VerdictTests


class TestCheckSpike(VerdictTests):
    """VerdictTests on the MySpike classes a learner might write."""

    spec = staticmethod(specs.spike)
    attempts = staticmethod(spike_attempts)

    def test_the_oracle_tells_the_starter_from_the_answer(self):
        """The oracle of "right" passes the course's answer and fails the notebook's starter."""
        from tests.exercises.attempts.distinct import Attempt
        from tests.exercises.attempts.loading import load_source
        from tests.exercises.attempts.spike_attempts import bases
        from tests.exercises.attempts.spike_facts import spike_facts

        right = self.spec().right
        for name, want in (("answer", True), ("starter", False)):
            cls = load_source(bases()[name], "myspike").MySpike
            assert right(Attempt("check_spike", name, cls, facts=spike_facts(cls))) is want
