"""check_cube on hundreds of generated attempts: every mark and sentence of its verdict true."""

from tests.exercises.attempts import specs
from tests.exercises.attempts.cube_attempts import cube_attempts
from tests.exercises.attempts.verdict_tests import VerdictTests


class TestCheckCube(VerdictTests):
    """VerdictTests on the Cube classes a learner might write."""

    spec = staticmethod(specs.cube)
    attempts = staticmethod(cube_attempts)

    def test_the_oracle_tells_the_starter_from_the_answer(self):
        """The oracle of "right" passes the hint's answer and fails the notebook's starter."""
        from tests.exercises.attempts.cube_attempts import bases
        from tests.exercises.attempts.cube_facts import cube_facts
        from tests.exercises.attempts.distinct import Attempt
        from tests.exercises.attempts.loading import load_source

        right = self.spec().right
        for name, want in (("answer", True), ("starter", False), ("lessons_lib", True)):
            cls = load_source(bases()[name], "cube").Cube
            assert right(Attempt("check_cube", name, cls, facts=cube_facts(cls))) is want
