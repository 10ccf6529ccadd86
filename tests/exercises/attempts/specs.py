"""The checks this package tests, each with its attempts, oracles and claim-checkers."""

import functools
from collections.abc import Callable

from tests.exercises.attempts.judging import CheckSpec


def _spec(name: str, check: Callable, is_right, case_oracles, claims, wants_class: bool):
    """A check's spec, its oracles judging the facts recorded by running each attempt."""
    return CheckSpec(
        name,
        check,
        wants_class=wants_class,
        right=lambda a: is_right(a.facts),
        case_oracles=lambda a: case_oracles(a.facts),
        claims=claims,
    )


@functools.cache
def cube() -> CheckSpec:
    from lessons_lib import check_cube
    from tests.exercises.attempts.cube_claims import CUBE_CLAIMS
    from tests.exercises.attempts.cube_facts import cube_case_oracles, is_right

    return _spec(
        "check_cube", check_cube, is_right, cube_case_oracles, CUBE_CLAIMS, wants_class=True
    )


@functools.cache
def straight_through() -> CheckSpec:
    from lessons_lib import check_straight_through
    from tests.exercises.attempts.straight_through_claims import ROUND_CLAIMS
    from tests.exercises.attempts.straight_through_facts import is_right, round_case_oracles

    return _spec(
        "check_straight_through",
        check_straight_through,
        is_right,
        round_case_oracles,
        ROUND_CLAIMS,
        wants_class=True,
    )


@functools.cache
def nudge() -> CheckSpec:
    from lessons_lib import check_nudge
    from tests.exercises.attempts.nudge_claims import NUDGE_CLAIMS
    from tests.exercises.attempts.nudge_facts import is_right, nudge_case_oracles

    return _spec(
        "check_nudge", check_nudge, is_right, nudge_case_oracles, NUDGE_CLAIMS, wants_class=False
    )


@functools.cache
def cube_grad() -> CheckSpec:
    from lessons_lib import check_cube_grad
    from tests.exercises.attempts.cube_grad_claims import CUBE_GRAD_CLAIMS
    from tests.exercises.attempts.cube_grad_facts import cube_grad_case_oracles, is_right

    return _spec(
        "check_cube_grad",
        check_cube_grad,
        is_right,
        cube_grad_case_oracles,
        CUBE_GRAD_CLAIMS,
        wants_class=False,
    )


@functools.cache
def spike() -> CheckSpec:
    from lessons_lib import check_spike
    from tests.exercises.attempts.spike_claims import SPIKE_CLAIMS
    from tests.exercises.attempts.spike_facts import is_right, spike_case_oracles

    return _spec(
        "check_spike", check_spike, is_right, spike_case_oracles, SPIKE_CLAIMS, wants_class=True
    )
