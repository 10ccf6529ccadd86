"""The exercises' self-checks, and the course's reference answers they are tested against.

Each name loads its own module on first use (PEP 562), so that only the checks that run the
learner's property tests (the Clamp01 exercise's, and Part 2 of "Choose your surrogate")
import hypothesis.

- base.py                   the one harness: contained state, the first case, the verdict
- backward_pass/            "Your own backward pass": its answer cube_grad, check_cube (Part 1)
                            and check_cube_grad (Part 2)
- clamp/                    "Check your Clamp01": its answers, check_edge_test, check_my_checks
- straight_through.py       lesson 1's beginner task, check_straight_through
- nudge.py                  lesson 2's beginner task, check_nudge
- spike.py                  "Choose your surrogate", Part 1 (lesson 3's beginner task), check_spike,
                            and its answer SpikeAnswer (spike_answers.py)
- surrogate_tests.py        "Choose your surrogate", Part 2, check_my_surrogate_tests, run on the
                            wrong spikes of surrogate_mistakes.py; its answer reference_surrogate_tests
Each exercise's words (case names, fixes, hints) live in a words module beside its logic.
Every check_* handed out from here records its verdict in the learner's home
(lessons_lib/progress.py): one place, so a new check records too.
"""

from lessons_lib.lazy import lazy_names
from lessons_lib.progress import recorded

_HOME = {
    "check_cube": "lessons_lib.exercises.backward_pass.cube",
    "check_cube_grad": "lessons_lib.exercises.backward_pass.cube_grad",
    "cube_grad": "lessons_lib.exercises.backward_pass.answers",
    "check_edge_test": "lessons_lib.exercises.clamp.edges",
    "check_my_checks": "lessons_lib.exercises.clamp.suite",
    "run_my_checks": "lessons_lib.exercises.clamp.suite",
    "edge_test": "lessons_lib.exercises.clamp.answers",
    "reference_checks": "lessons_lib.exercises.clamp.answers",
    "grad_outs_gradcheck_sends": "lessons_lib.exercises.clamp.observe",
    "check_nudge": "lessons_lib.exercises.nudge",
    "check_straight_through": "lessons_lib.exercises.straight_through",
    "check_spike": "lessons_lib.exercises.spike",
    "SpikeAnswer": "lessons_lib.exercises.spike_answers",
    "check_my_surrogate_tests": "lessons_lib.exercises.surrogate_tests",
    "reference_surrogate_tests": "lessons_lib.exercises.surrogate_tests_answers",
}


def _recorded_if_check(name: str, value: object) -> object:
    return recorded(value) if name.startswith("check_") and callable(value) else value


__getattr__, __dir__ = lazy_names(__name__, _HOME, wrap=_recorded_if_check)

__all__ = sorted(_HOME)
