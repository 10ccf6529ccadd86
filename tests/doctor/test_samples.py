"""samples: where the gradient doctor looks, and the upstream gradients it sends."""

import pytest
import torch

from lessons_lib.doctor.samples import (
    default_inputs,
    random_directions,
    sample_sets,
    tail_values,
    upstream_gradient,
    validated_inputs,
)
from lessons_lib.running import InputError

F64 = torch.float64


def learner_inputs():
    """An index tensor first, then x, a weight tensor and a plain number."""
    indices = torch.tensor([2, 0, 1])
    x = torch.tensor([0.5, -1.0, 2.0], dtype=F64)
    weight = torch.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=F64)
    return (indices, x, weight, 0.5)


def test_default_inputs_are_a_float64_grid_with_signs_zero_fractions_and_half_integers():
    (x,) = default_inputs()
    assert x.dtype == F64 and x.dim() == 2
    values = set(x.flatten().tolist())
    assert {-2.5, -0.5, 0.0, 0.25, 1.5, 2.5} <= values
    assert min(values) < 0 < max(values)


def test_sample_sets_are_deterministic():
    for given in (None, learner_inputs()):
        first, second = sample_sets(given), sample_sets(given)
        assert [s.label for s in first] == [s.label for s in second]
        for a, b in zip(first, second, strict=True):
            for u, v in zip(a.inputs, b.inputs, strict=True):
                assert torch.equal(u, v) if isinstance(u, torch.Tensor) else u == v


def test_without_inputs_the_doctor_checks_the_grid_then_a_flat_sweep_of_32_points():
    samples = sample_sets(None)
    assert [s.label for s in samples] == [
        "the sample",
        "random points in [-10, 10]",
        "points in the tails",
    ]
    assert [tuple(s.inputs[0].shape) for s in samples] == [(3, 4), (32,), (32,)]
    assert [(s.first, s.higher) for s in samples] == [(True, True), (False, True), (False, False)]


def test_the_learners_inputs_come_first_as_given():
    given = learner_inputs()
    first = sample_sets(given)[0]
    assert first.label == "your inputs" and first.first
    assert all(a is b for a, b in zip(first.inputs, given, strict=True))


def test_only_the_first_float_tensor_moves_every_other_input_is_the_learners_object():
    given = learner_inputs()
    indices, x, weight, number = given
    for sample in sample_sets(given)[1:]:
        moved = sample.inputs[1]
        assert moved.shape == x.shape and moved.dtype == x.dtype
        assert not torch.equal(moved, x)
        assert sample.inputs[0] is indices
        assert sample.inputs[2] is weight
        assert sample.inputs[3] is number


def test_random_points_lie_in_the_wide_range_and_take_both_signs():
    x = torch.zeros(1000, dtype=F64)
    random = sample_sets((x,))[1].inputs[0]
    assert random.min() >= -10.0 and random.max() <= 10.0
    assert random.min() < -9.0 and random.max() > 9.0  # the whole range, not a corner of it
    assert random.unique().numel() == 1000


def test_random_and_tail_points_keep_the_shape_and_dtype_of_x():
    x = torch.zeros(2, 3, dtype=torch.float32)
    for sample in sample_sets((x,))[1:]:
        assert sample.inputs[0].shape == (2, 3)
        assert sample.inputs[0].dtype == torch.float32


@pytest.mark.parametrize("size", [2, 3, 8, 12, 32, 500])
def test_tail_values_are_distinct_large_and_of_both_signs(size):
    tails = [s.inputs[0] for s in sample_sets((torch.zeros(size, dtype=F64),))[2:]]
    assert tails
    for values in tails:
        assert values.unique().numel() == size  # a sort meets no ties
        assert (values.abs() >= 30).all()
        assert (values < 0).any() and (values > 0).any()


def test_the_tails_of_a_one_element_input_are_spread_over_four_sets():
    samples = sample_sets((torch.tensor([0.5], dtype=F64),))
    tails = [s.inputs[0].tolist() for s in samples[2:]]
    assert tails == [[-1000.0], [1000.0], [-10000.0], [10000.0]]
    assert {s.label for s in samples[2:]} == {"points in the tails"}


def test_the_tails_of_a_two_element_input_cover_every_tail_value_once():
    tails = [s.inputs[0] for s in sample_sets((torch.zeros(2, dtype=F64),))[2:]]
    values = torch.cat(tails).tolist()
    assert sorted(values) == [-1e4, -1e3, -100.0, -30.0, 30.0, 100.0, 1e3, 1e4]


def test_tail_values_repeat_the_cycle_a_little_larger_so_values_stay_distinct():
    values = tail_values(torch.zeros(10, dtype=F64), 0).tolist()
    assert values[:2] == [-1000.0, 1000.0]
    assert values[8:] == [-1500.0, 1500.0]  # round 1 of 2 scales by 1.5


def test_tail_values_stay_distinct_however_large_the_input():
    values = tail_values(torch.zeros(100_000, dtype=F64), 0)
    assert values.unique().numel() == values.numel()
    assert values.abs().min() >= 30 and values.abs().max() < 2e4


def test_validated_inputs_wraps_a_bare_tensor_and_turns_a_list_into_a_tuple():
    x = torch.ones(2, dtype=F64)
    wrapped = validated_inputs(x)
    assert isinstance(wrapped, tuple) and len(wrapped) == 1 and wrapped[0] is x
    assert validated_inputs([x, 2.0]) == (x, 2.0)


def test_validated_inputs_refuses_what_is_not_a_tuple_of_arguments():
    with pytest.raises(InputError, match="must be a tuple of arguments for forward, got float"):
        validated_inputs(3.0)


def test_validated_inputs_refuses_inputs_without_a_float_tensor_and_names_the_dtypes():
    integers = (torch.tensor([1, 2]), torch.tensor([True]))
    with pytest.raises(InputError, match=r"dtypes given: torch\.int64, torch\.bool\)"):
        validated_inputs(integers)
    with pytest.raises(InputError, match=r"dtypes given: none\)"):
        validated_inputs((1.0, 2))


def test_upstream_gradient_is_uneven_lies_in_half_to_two_and_differs_per_output():
    output = torch.zeros(50, dtype=F64)
    first, second = upstream_gradient(output, 0), upstream_gradient(output, 1)
    for g in (first, second):
        assert g.shape == output.shape and g.dtype == F64
        assert g.min() >= 0.5 and g.max() <= 2.0
        assert g.unique().numel() > 1  # a backward ignoring grad_out cannot match by luck
    assert not torch.equal(first, second)
    assert torch.equal(first, upstream_gradient(output, 0))


def test_upstream_gradient_has_two_decimals_so_evidence_reads_cleanly():
    g = upstream_gradient(torch.zeros(20, dtype=F64), 0)
    hundredths = g * 100
    assert torch.allclose(hundredths, hundredths.round(), rtol=0, atol=1e-9)


def test_random_directions_one_per_float_input_in_minus_one_to_one_and_seeded():
    inputs = learner_inputs()
    directions = random_directions(inputs, seed=1)
    assert directions[0] is None and directions[3] is None
    for d, a in zip(directions[1:3], inputs[1:3], strict=True):
        assert d.shape == a.shape and d.dtype == a.dtype
        assert d.abs().max() <= 1.0
    again, other = random_directions(inputs, seed=1), random_directions(inputs, seed=2)
    assert torch.equal(again[1], directions[1])
    assert not torch.equal(other[1], directions[1])
