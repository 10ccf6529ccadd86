"""The doctor's catalogue: learner-style Functions, each wrong in a known way or correct.

WRONG holds (name, Function, reference, grad_reference, expected codes[, inputs]), one module
per family of codes as lessons_lib/doctor/words/ groups them; CORRECT (correct.py) holds
(name, Function, reference, grad_reference, inputs). tests/doctor/test_examination.py checks
each entry and benchmarks/doctor.py times the doctor over all of them.
"""

from tests.doctor_catalogue import (
    grad_out,
    higher_order,
    nan_and_inf,
    results,
    state,
    wrong_gradient,
)
from tests.doctor_catalogue.correct import CORRECT

WRONG = [
    *wrong_gradient.WRONG,  # first: the exercise's starter
    *results.WRONG,
    *state.WRONG,
    *nan_and_inf.WRONG,
    *grad_out.WRONG,
    *higher_order.WRONG,
]

__all__ = ["CORRECT", "WRONG"]
