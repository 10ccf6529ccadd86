"""frozen_inputs: the swapped-index Linear fails exactly where an input is frozen."""

import torch

from lessons_lib import check_function
from lessons_lib.frozen_inputs import (
    LinearSwappedNeeds,
    gradcheck_each_pattern,
    requires_grad_patterns,
)
from lessons_lib.research import Linear

NAMES = ("x", "weight", "bias")


def linear_inputs() -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(0)
    shapes = ((3, 2), (2, 2), (2,))
    return tuple(torch.randn(s, dtype=torch.float64, generator=generator) for s in shapes)


def test_every_pattern_once_all_first():
    patterns = requires_grad_patterns(3)
    assert len(patterns) == len(set(patterns)) == 2**3 - 1
    assert patterns[0] == (True, True, True) and (False, False, False) not in patterns


def test_a_correct_linear_passes_gradcheck_under_every_pattern():
    outcomes = gradcheck_each_pattern(Linear, linear_inputs(), NAMES)
    assert [outcome for _, outcome in outcomes] == ["passes"] * 7


def test_the_swapped_indices_fail_exactly_where_x_or_weight_is_frozen_alone():
    outcomes = dict(gradcheck_each_pattern(LinearSwappedNeeds, linear_inputs(), NAMES))
    failing = {requiring for requiring, outcome in outcomes.items() if outcome != "passes"}
    assert failing == {"x, bias", "x", "weight, bias", "weight"}
    assert outcomes["weight"] == "fails: Jacobian mismatch for output 0 with respect to weight"


def test_the_doctor_names_the_swap_a_frozen_input():
    reference = lambda x, weight, bias: x @ weight.T + bias  # noqa: E731
    assert check_function(LinearSwappedNeeds, reference, inputs=linear_inputs()).codes == [
        "frozen-input"
    ]
