"""The checks this package tests, each with its attempts, oracles and claim-checkers."""

import functools

from tests.exercises.attempts.judging import CheckSpec


@functools.cache
def cube() -> CheckSpec:
    from lessons_lib import check_cube
    from tests.exercises.attempts.cube_claims import CUBE_CLAIMS
    from tests.exercises.attempts.cube_facts import cube_case_oracles, is_right

    return CheckSpec(
        "check_cube",
        check_cube,
        wants_class=True,
        right=lambda a: is_right(a.facts),
        case_oracles=lambda a: cube_case_oracles(a.facts),
        claims=CUBE_CLAIMS,
    )


@functools.cache
def straight_through() -> CheckSpec:
    from lessons_lib import check_straight_through
    from tests.exercises.attempts.straight_through_claims import ROUND_CLAIMS
    from tests.exercises.attempts.straight_through_facts import is_right, round_case_oracles

    return CheckSpec(
        "check_straight_through",
        check_straight_through,
        wants_class=True,
        right=lambda a: is_right(a.facts),
        case_oracles=lambda a: round_case_oracles(a.facts),
        claims=ROUND_CLAIMS,
    )


@functools.cache
def nudge() -> CheckSpec:
    from lessons_lib import check_nudge
    from tests.exercises.attempts.nudge_claims import NUDGE_CLAIMS
    from tests.exercises.attempts.nudge_facts import is_right, nudge_case_oracles

    return CheckSpec(
        "check_nudge",
        check_nudge,
        wants_class=False,
        right=lambda a: is_right(a.facts),
        case_oracles=lambda a: nudge_case_oracles(a.facts),
        claims=NUDGE_CLAIMS,
    )


@functools.cache
def cube_grad() -> CheckSpec:
    from lessons_lib import check_cube_grad
    from tests.exercises.attempts.cube_grad_claims import CUBE_GRAD_CLAIMS
    from tests.exercises.attempts.cube_grad_facts import cube_grad_case_oracles, is_right

    return CheckSpec(
        "check_cube_grad",
        check_cube_grad,
        wants_class=False,
        right=lambda a: is_right(a.facts),
        case_oracles=lambda a: cube_grad_case_oracles(a.facts),
        claims=CUBE_GRAD_CLAIMS,
    )
