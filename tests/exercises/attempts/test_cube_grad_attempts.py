"""check_cube_grad on hundreds of generated attempts: every mark and sentence of its verdict true."""

import inspect

from lessons_lib.exercises.backward_pass import answers
from tests.exercises.attempts import specs
from tests.exercises.attempts.cube_grad_attempts import cube_grad_attempts
from tests.exercises.attempts.verdict_tests import VerdictTests


class TestCheckCubeGrad(VerdictTests):
    """VerdictTests on the cube_grad functions a learner might write."""

    spec = staticmethod(specs.cube_grad)
    attempts = staticmethod(cube_grad_attempts)

    def test_the_oracle_tells_the_draft_from_the_answer(self):
        """The oracle of "right" passes the course's answer and fails the notebook's draft."""
        from tests.exercises.attempts.cube_grad_attempts import cubes
        from tests.exercises.attempts.cube_grad_facts import cube_grad_facts
        from tests.exercises.attempts.distinct import Attempt
        from tests.exercises.attempts.loading import load_source
        from tests.exercises.attempts.sources import starter

        answer = inspect.getsource(answers.cube_grad)
        draft = starter("exercises/your-own-backward-pass.ipynb", "def cube_grad(")
        right = self.spec().right
        for source, want in ((answer, True), (draft, False)):
            fn = load_source(cubes()["fixed Cube"] + "\n\n" + source, "cube_grad").cube_grad
            assert right(Attempt("check_cube_grad", "", fn, facts=cube_grad_facts(fn))) is want
