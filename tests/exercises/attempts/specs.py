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
