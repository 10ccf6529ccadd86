"""threshold_training: the true gradient leaves the neuron where it started; surrogates train it."""

import pytest

from lessons_lib.surrogate_gradients import TrueStep, make_spike
from lessons_lib.threshold_training import Training, labelled_points, train_neuron


def test_the_points_are_seeded_and_both_labels_occur():
    points, labels = labelled_points()
    again, _ = labelled_points()
    assert points.equal(again) and 0.2 < labels.mean().item() < 0.8


def test_with_the_true_gradient_nothing_moves():
    run = train_neuron(TrueStep.apply, steps=20)
    assert not run.learned and len(set(run.losses)) == 1
    assert run.weight == (1.0, -1.0) and run.bias == -1.0


@pytest.mark.parametrize("shape", ["straight-through", "sigmoid", "fast-sigmoid", "triangle"])
def test_a_surrogate_of_moderate_width_classifies_every_point(shape):
    assert train_neuron(make_spike(shape, width=0.5).apply).accuracy == 1.0


def test_too_narrow_a_bump_reaches_no_point_and_too_wide_a_one_learns_slowly():
    narrow = train_neuron(make_spike("triangle", width=0.01).apply)
    assert not narrow.learned  # no point lies within 0.01 of the starting boundary
    steps_to_fit = {
        width: next(i for i, loss in enumerate(run.losses) if loss <= 0.05)
        for width in (0.5, 10.0)
        for run in [train_neuron(make_spike("sigmoid", width=width).apply)]
    }
    assert steps_to_fit[10.0] > 3 * steps_to_fit[0.5]


def test_on_step_is_called_once_per_step():
    calls = []
    train_neuron(make_spike().apply, steps=7, on_step=calls.append)
    assert calls == list(range(7))


def test_first_step_at_most_finds_the_first_step_or_none():
    run = Training(losses=[0.5, 0.2, 0.05, 0.1, 0.0], accuracy=1.0, weight=(0.0, 0.0), bias=0.0)
    assert run.first_step_at_most(0.05) == 2
    assert run.first_step_at_most(0.5) == 0
    assert run.first_step_at_most(-1.0) is None
