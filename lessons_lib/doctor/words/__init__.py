"""The words a learner reads for each finding: one constructor per code, one module per family."""

from lessons_lib.doctor.words.grad_out import non_contiguous_grad_out, undefined_grad_out
from lessons_lib.doctor.words.higher_order import double_backward, jvp
from lessons_lib.doctor.words.nan_and_inf import non_finite
from lessons_lib.doctor.words.results import (
    error,
    forward,
    grad_count,
    grad_dtype,
    grad_shape,
    no_gradient,
    non_tensor_grad,
    not_a_function,
    output_dtype,
)
from lessons_lib.doctor.words.state import (
    ctx_tensor,
    frozen_input,
    mutates_grad_out,
    mutates_input,
    mutates_saved,
)
from lessons_lib.doctor.words.wrong_gradient import (
    after_wrong_forward,
    chain_rule,
    declared_rule_differs,
    gradient,
    inexact,
)

__all__ = [
    "after_wrong_forward",
    "chain_rule",
    "ctx_tensor",
    "declared_rule_differs",
    "double_backward",
    "error",
    "forward",
    "frozen_input",
    "grad_count",
    "grad_dtype",
    "grad_shape",
    "gradient",
    "inexact",
    "jvp",
    "mutates_grad_out",
    "mutates_input",
    "mutates_saved",
    "no_gradient",
    "non_contiguous_grad_out",
    "non_finite",
    "non_tensor_grad",
    "not_a_function",
    "output_dtype",
    "undefined_grad_out",
]
