"""check_my_checks (Part 2) on generated attempts: the tests of clamp_verdict_tests.ClampVerdictTests."""

from tests.exercises.attempts.clamp_verdict_tests import ClampVerdictTests


class TestCheckMyChecks(ClampVerdictTests):
    """ClampVerdictTests on the suites of checks a learner might write for Clamp01."""

    part = 2
