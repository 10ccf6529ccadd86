"""compare: how the gradient doctor compares numbers, accepts a kink, and probes the chain rule."""

import pytest
import torch

from lessons_lib import Cube
from lessons_lib.doctor.compare import (
    accepted_at_kinks,
    chain_rule_kind,
    close,
    elementwise_finite,
    one_number,
    one_sided_slopes,
    output_mask,
)
from lessons_lib.doctor.samples import upstream_gradient
from lessons_lib.running import engine_run
from tests.learner_functions import cube, function, save_and, saved

F64 = torch.float64

KINK = torch.tensor([-1.0, 0.0, 2.0], dtype=F64)  # ReLU's kink at index 1

G = upstream_gradient(KINK, 0)  # the grad_out the slopes are weighted by

EVERYWHERE = torch.ones(3, dtype=torch.bool)

AT_ZERO = torch.tensor([False, True, False])


def test_one_sided_slopes_of_relu_at_zero_are_zero_and_grad_out():
    left, right = one_sided_slopes(torch.relu, (KINK,), 0, (1,))
    assert left == 0.0
    assert right == pytest.approx(G[1].item())


def test_one_sided_slopes_of_a_smooth_function_agree_with_its_derivative():
    left, right = one_sided_slopes(cube, (KINK,), 0, (2,))
    expected = 3 * 2.0**2 * G[2].item()
    assert left == pytest.approx(expected, rel=1e-5)
    assert right == pytest.approx(expected, rel=1e-5)
    assert left != right  # finite differences on either side, not the same number twice


def test_one_sided_slopes_of_a_broken_reference_are_none():
    assert one_sided_slopes(lambda x: x / "not a number", (KINK,), 0, (1,)) is None


@pytest.mark.parametrize("subgradient", [1.0, 0.5, 0.0])
def test_a_relu_gradient_between_its_one_sided_slopes_is_accepted_at_zero(subgradient):
    accepted = accepted_at_kinks(torch.relu, AT_ZERO, (KINK,), 0, G * subgradient)
    assert accepted.tolist() == [False, True, False]


@pytest.mark.parametrize("subgradient", [2.0, -0.1])
def test_a_relu_gradient_outside_its_one_sided_slopes_is_not_accepted(subgradient):
    accepted = accepted_at_kinks(torch.relu, AT_ZERO, (KINK,), 0, G * subgradient)
    assert not accepted.any()


def test_only_the_kink_is_accepted_even_where_every_element_is_wrong():
    half = accepted_at_kinks(torch.relu, EVERYWHERE, (KINK,), 0, G * 0.5)
    assert half.tolist() == [False, True, False]


def test_nothing_is_accepted_for_a_smooth_reference():
    right_answer = 3 * KINK**2 * G
    assert not accepted_at_kinks(cube, EVERYWHERE, (KINK,), 0, right_answer).any()


def test_elements_not_marked_wrong_are_not_probed_for_kinks():
    nowhere = torch.zeros(3, dtype=torch.bool)
    assert not accepted_at_kinks(torch.relu, nowhere, (KINK,), 0, G * 0.5).any()


def backward_without_grad_out(ctx, grad_out):
    return 3 * saved(ctx) ** 2


def backward_adding_grad_out(ctx, grad_out):
    return grad_out + 3 * saved(ctx) ** 2


def backward_by_grad_out_sign(ctx, grad_out):
    return grad_out.sign() * 3 * saved(ctx) ** 2


@pytest.mark.parametrize(
    ("fn", "kind"),
    [
        (Cube, None),
        (function("Ignores", save_and(cube), backward_without_grad_out), "ignores"),
        (function("Adds", save_and(cube), backward_adding_grad_out), "adds"),
        (function("BySign", save_and(cube), backward_by_grad_out_sign), "other"),
    ],
    ids=["chain-rule", "ignores", "adds", "other"],
)
def test_chain_rule_kind_names_how_backward_fails_to_scale_with_grad_out(fn, kind):
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=F64)
    run = engine_run(fn, (x,), upstream_gradient)
    assert run.failure is None
    assert chain_rule_kind(run, 0) == kind


def test_chain_rule_kind_is_none_for_an_input_backward_did_not_return():
    ignores = function("Ignores", save_and(cube), backward_without_grad_out)
    run = engine_run(ignores, (KINK,), upstream_gradient)
    assert chain_rule_kind(run, 0) == "ignores"
    assert chain_rule_kind(run, 1) is None


def test_close_is_looser_for_float32_than_for_float64():
    one, near = torch.tensor([1.0]), torch.tensor([1.0001])
    assert close(near, one).item()
    assert not close(near.to(F64), one.to(F64)).item()
    assert close(torch.tensor([1.000001], dtype=F64), one.to(F64)).item()


def test_close_takes_its_tolerance_from_the_expected_dtype():
    got = torch.tensor([1.0001], dtype=F64)
    assert close(got, torch.tensor([1.0])).item()
    assert not close(got, torch.tensor([1.0], dtype=F64)).item()


def test_elementwise_finite_is_false_where_the_reference_is_not_finite():
    assert elementwise_finite(torch.log(KINK), KINK).tolist() == [False, False, True]


def test_elementwise_finite_looks_only_at_float_outputs_shaped_like_the_comparison():
    with_nan_sum = (torch.log(KINK), torch.log(KINK).sum(), torch.tensor([1, 2, 3]))
    assert elementwise_finite(with_nan_sum, KINK).tolist() == [False, False, True]
    assert elementwise_finite(torch.log(KINK).sum(), KINK).tolist() == [True, True, True]


def test_output_mask_drops_non_finite_values_and_accepted_kinks():
    values = torch.tensor([1.0, float("nan"), 3.0, 4.0], dtype=F64)
    kinks = {0: torch.tensor([False, False, True, False])}
    assert output_mask(values, kinks).tolist() == [True, False, False, True]
    assert output_mask(values, {}).tolist() == [True, False, True, True]


def test_output_mask_is_none_when_an_accepted_kink_cannot_be_placed_on_the_outputs():
    values = torch.tensor([1.0, 2.0, 3.0], dtype=F64)
    assert output_mask(values, {0: torch.tensor([True, False])}) is None
    assert output_mask(values, {0: torch.tensor([False, False])}).tolist() == [True, True, True]


def test_one_number_finds_the_factor_of_a_gradient_proportional_to_the_all_ones_one():
    uniform = torch.tensor([3.0, -1.0, 0.0, 2.0], dtype=F64)
    mask = torch.ones(4, dtype=torch.bool)
    assert one_number(12.5 * uniform, uniform, mask) == pytest.approx(12.5)
    assert (
        one_number(uniform * torch.tensor([1.0, 2.0, 1.0, 1.0], dtype=F64), uniform, mask) is None
    )
    assert one_number(torch.zeros(4, dtype=F64), uniform, mask) is None  # zeros: [gradient]
    one = torch.tensor([True, False, False, False])
    assert one_number(12.5 * uniform, uniform, one) is None  # any two numbers are proportional
