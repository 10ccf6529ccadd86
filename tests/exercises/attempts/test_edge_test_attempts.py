"""check_edge_test (Part 1) on generated attempts: the tests of clamp_verdict_tests.ClampVerdictTests."""

from tests.exercises.attempts.clamp_verdict_tests import ClampVerdictTests


class TestCheckEdgeTest(ClampVerdictTests):
    """ClampVerdictTests on the edge tests a learner might write for Clamp01."""

    part = 1
