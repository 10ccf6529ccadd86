"""The exercises' self-checks, and the course's reference answers they are tested against."""

from lessons_lib.exercises.check_your_clamp01 import (
    check_edge_test,
    check_my_checks,
    edge_test,
    grad_outs_gradcheck_sends,
    reference_checks,
    run_my_checks,
)
from lessons_lib.exercises.nudge import check_nudge
from lessons_lib.exercises.straight_through import check_straight_through
from lessons_lib.exercises.your_own_backward_pass import check_cube, check_cube_grad, cube_grad

__all__ = [
    "check_cube",
    "check_cube_grad",
    "check_edge_test",
    "check_my_checks",
    "check_nudge",
    "check_straight_through",
    "cube_grad",
    "edge_test",
    "grad_outs_gradcheck_sends",
    "reference_checks",
    "run_my_checks",
]
