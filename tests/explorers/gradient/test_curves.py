"""gradient/curves: what the explorer measures along x, read straight from the curves."""

import math

import numpy as np
import pytest
import torch

from lessons_lib import Clamp, Clamp01, Cube, RoundSTE, explore
from lessons_lib.explorers.gradient.curves import ROWS, Curves, disagreement, grid, largest
from lessons_lib.explorers.picture import pack_rows
from lessons_lib.functions import ClippedSTE, SigmoidSpike
from tests.learner_functions import cube, function, save_and, saved
from tests.torch_conventions import torch_clamp_at_a_bound

# The exercise's starter mistake: the local derivative without the upstream gradient.
CubeForgetsGradOut = function(
    "CubeForgetsGradOut", save_and(cube), lambda ctx, g: 3 * saved(ctx) ** 2
)
CubeWrongPower = function("CubeWrongPower", save_and(cube), lambda ctx, g: g * 2 * saved(ctx) ** 2)


class OnlyPositive(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        if (x < 0).any():
            raise ValueError("negative input")
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out


def _raise_forgot(ctx, grad_out):
    raise RuntimeError("forgot to save x\nmore detail")


BackwardRaises = function("BackwardRaises", lambda ctx, x: x * 2, _raise_forgot)
Log = function("Log", save_and(torch.log), lambda ctx, g: g / saved(ctx))
TooFewGradients = function("TooFewGradients", lambda ctx, x, k: x * k, lambda ctx, g: g)
Sums = function("Sums", lambda ctx, x: x.sum(), lambda ctx, g: g)


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, grad_out):
        x, w = ctx.saved_tensors
        return grad_out * w, grad_out * x


def measured(fn, *args, scale=1.0, x_range=(-2.0, 2.0), held=None, **kwargs):
    """The curves explore() sets up for fn, measured on a grid of x_range at grad_out=scale."""
    setup = explore(fn, *args, x_range=x_range, **kwargs).setup
    x = grid(*x_range, setup.samples)
    return setup.measure(x, setup.hold if held is None else held, scale)


# --- forward, backward and the true gradient ------------------------------------------


def test_cube_gives_its_forward_reference_and_equal_gradients_that_never_differ():
    curves = measured(Cube)
    x = curves.x
    assert x[0] == -2 and x[-1] == 2 and len(x) == 401
    np.testing.assert_allclose(curves.forward, x**3)
    np.testing.assert_allclose(curves.reference, x**3)
    np.testing.assert_allclose(curves.custom, 3 * x**2)
    np.testing.assert_allclose(curves.true, 3 * x**2)
    assert not curves.differ().any() and curves.failure is None and curves.problems == []


def test_backward_that_forgets_grad_out_agrees_at_scale_one_and_fails_to_scale():
    assert not measured(CubeForgetsGradOut).differ().any()  # with grad_out = 1 it is invisible
    curves = measured(CubeForgetsGradOut, scale=2.0)
    x = curves.x
    np.testing.assert_allclose(curves.custom, 3 * x**2)  # did not scale
    np.testing.assert_allclose(curves.true, 2 * 3 * x**2, rtol=1e-6, atol=1e-6)
    assert curves.differ()[np.abs(x) > 0.2].all()
    assert not curves.differ()[np.abs(x) < 0.05].any()  # at x = 0 both are 0


def test_backward_with_the_wrong_power_differs_wherever_it_is_visibly_off():
    curves = measured(CubeWrongPower, lambda t: t**3)
    x = curves.x
    np.testing.assert_allclose(curves.custom, 2 * x**2)
    np.testing.assert_allclose(curves.true, 3 * x**2)
    assert curves.differ()[np.abs(x) > 0.2].all()
    assert not curves.differ()[np.abs(x) < 0.05].any()


def test_round_ste_preset_shows_the_white_lie_everywhere():
    curves = measured(RoundSTE, x_range=(-2.5, 2.5))
    x = curves.x
    np.testing.assert_array_equal(curves.forward, torch.round(torch.from_numpy(x)).numpy())
    np.testing.assert_array_equal(curves.custom, np.ones_like(x))
    np.testing.assert_array_equal(curves.true, np.zeros_like(x))
    assert curves.differ().all()


def torch_clamps_gradient(x, lo, hi):
    """1 inside [lo, hi], 0 outside; at exactly a bound, what this torch release passes."""
    at_a_bound = (x == lo) | (x == hi)
    inside = ((x >= lo) & (x <= hi)).astype(float)
    return np.where(at_a_bound, float(torch_clamp_at_a_bound() == "grad_out"), inside)


def test_clamp01_preset_mask_agrees_with_torch_clamp():
    curves = measured(Clamp01, x_range=(-0.5, 1.5))
    mask = ((curves.x >= 0) & (curves.x <= 1)).astype(float)
    np.testing.assert_array_equal(curves.custom, mask)
    torchs = torch_clamps_gradient(curves.x, 0, 1)
    np.testing.assert_array_equal(curves.true, torchs)
    # They differ only where torch.clamp(x, 0, 1) no longer passes grad_out (2.14.1), at a bound.
    np.testing.assert_array_equal(curves.differ(), curves.custom != torchs)


def test_clipped_ste_preset_passes_the_gradient_only_inside_one():
    curves = measured(ClippedSTE)
    x = curves.x
    np.testing.assert_array_equal(curves.custom, (np.abs(x) <= 1).astype(float))
    np.testing.assert_array_equal(curves.true, np.zeros_like(x))
    np.testing.assert_array_equal(curves.forward, np.where(x >= 0, 1.0, -1.0))


def test_spike_preset_slope_reshapes_the_surrogate():
    curves = measured(SigmoidSpike, held=[10.0])
    x = curves.x
    s = 1 / (1 + np.exp(-10.0 * x))
    np.testing.assert_allclose(curves.custom, 10.0 * s * (1 - s))
    np.testing.assert_array_equal(curves.true, np.zeros_like(x))
    np.testing.assert_array_equal(curves.forward, (x > 0).astype(float))


def test_clamp_preset_passes_held_numbers_through():
    curves = measured(Clamp, held=[-0.5, 1.0])
    x = curves.x
    mask = ((x >= -0.5) & (x <= 1.0)).astype(float)
    np.testing.assert_array_equal(curves.custom, mask)
    np.testing.assert_array_equal(curves.true, torch_clamps_gradient(x, -0.5, 1.0))
    np.testing.assert_allclose(curves.forward, np.clip(x, -0.5, 1.0))


def test_several_tensor_inputs_vary_the_chosen_one_and_hold_the_rest():
    curves = measured(Mul, lambda x, w: x * w, vary=1, hold=(torch.tensor(3.0),))
    x = curves.x
    np.testing.assert_allclose(curves.forward, 3.0 * x)  # Mul.apply(3.0, w) with w along x
    np.testing.assert_allclose(curves.custom, np.full_like(x, 3.0))
    np.testing.assert_allclose(curves.true, np.full_like(x, 3.0))


# --- where the true gradient comes from --------------------------------------------


def test_without_a_reference_the_truth_is_a_finite_difference_of_the_forward():
    curves = measured(CubeWrongPower)
    np.testing.assert_allclose(curves.true, 3 * curves.x**2, atol=1e-6)
    assert curves.reference is None


def test_grad_reference_gives_the_intended_backward_and_is_scaled():
    curves = measured(CubeForgetsGradOut, grad_reference=lambda t, g: g * 3 * t**2, scale=-1.5)
    np.testing.assert_allclose(curves.true, -1.5 * 3 * curves.x**2)
    np.testing.assert_allclose(curves.custom, 3 * curves.x**2)


def test_a_straight_through_grad_reference_means_the_same_as_in_check_function():
    """grad_reference(*inputs, grad_out) is the intended backward in both helpers."""
    curves = measured(RoundSTE, torch.round, grad_reference=lambda t, g: g, scale=2.0)
    np.testing.assert_allclose(curves.true, np.full_like(curves.x, 2.0))
    assert not curves.differ().any()


# --- bad learner code: problems noted, never raised ------------------------------------


def test_forward_that_raises_is_a_failure_with_nothing_to_plot():
    curves = measured(OnlyPositive, x_range=(-1, 1))
    assert "forward raised ValueError: negative input" in curves.failure
    assert curves.forward is None and curves.custom is None
    assert not curves.differ().any()


def test_backward_that_raises_keeps_the_forward_and_names_the_error_in_one_line():
    curves = measured(BackwardRaises)
    assert "backward raised RuntimeError: forgot to save x" in curves.failure
    assert "more detail" not in curves.failure
    np.testing.assert_allclose(curves.forward, 2 * curves.x)
    assert curves.custom is None


def test_nan_and_inf_are_reported_and_left_out():
    curves = measured(Log, torch.log, x_range=(-1, 1))
    x = curves.x
    assert any("NaN or inf" in p for p in curves.problems)
    assert np.isnan(curves.forward[x <= 0]).all()
    np.testing.assert_allclose(curves.forward[x > 0], np.log(x[x > 0]))


@pytest.mark.parametrize(
    ("fn", "hold", "says"),
    [
        (TooFewGradients, (2.0,), "returned 1 value(s) for 2 forward input(s)"),
        (Sums, (), "plots element-wise Functions"),
    ],
)
def test_backward_or_forward_of_the_wrong_shape_is_explained(fn, hold, says):
    assert any(says in p for p in measured(fn, hold=hold).problems)


def test_measuring_leaves_torch_global_state_alone():
    torch.manual_seed(0)
    expected = torch.rand(2)
    torch.manual_seed(0)
    measured(SigmoidSpike, held=[1.0])
    assert torch.equal(torch.rand(2), expected)
    assert torch.get_default_dtype() == torch.float32 and torch.is_grad_enabled()


# --- the grid and a single point ---------------------------------------------------------


def test_the_grid_holds_both_ends_and_evenly_spaced_samples():
    x = grid(-2.5, 2.5, 401).numpy()
    assert (x[0], x[-1], len(x)) == (-2.5, 2.5, 401)
    np.testing.assert_allclose(np.diff(x), 0.0125)


def test_index_of_finds_every_slider_step_and_nothing_between_samples():
    """A slider step computed as lo + k * step lands on sample k, float noise and all."""
    curves = Curves(x=grid(-2.5, 2.5, 401).numpy())
    step = 5.0 / 400
    for k in range(401):
        assert curves.index_of(-2.5 + k * step) == k
    assert curves.index_of(0.503) is None
    assert curves.index_of(-2.5 - step) is None and curves.index_of(2.5 + step) is None
    assert Curves(x=np.empty(0)).index_of(0.0) is None


def test_at_reads_one_sample_exactly():
    curves = measured(RoundSTE, x_range=(-2.5, 2.5))
    index = curves.index_of(0.4)
    assert curves.at(index) == {
        "x": curves.x[index],
        "forward": 0.0,
        "custom": 1.0,
        "true": 0.0,
        "differ": True,
    }


def test_measure_point_gives_the_exact_values_between_samples():
    setup = explore(Cube).setup
    curves = measured(Cube)
    point = setup.measure_point(0.503, [], 2.0, curves)
    assert point["x"] == 0.503 and point["forward"] == pytest.approx(0.503**3)
    assert point["custom"] == pytest.approx(2 * 3 * 0.503**2)
    assert point["true"] == pytest.approx(2 * 3 * 0.503**2) and point["differ"] is False


def test_measure_point_is_judged_against_the_whole_curves_and_unknown_after_a_failure():
    """A point's difference is as visible as the same difference on the plotted curves."""
    setup = explore(CubeWrongPower, lambda t: t**3).setup
    curves = measured(CubeWrongPower, lambda t: t**3)
    assert setup.measure_point(1.5, [], 1.0, curves)["differ"] is True
    assert setup.measure_point(1e-3, [], 1.0, curves)["differ"] is False  # both near 0
    failed = measured(OnlyPositive, x_range=(-1, 1))
    point = explore(OnlyPositive).setup.measure_point(0.5, [], 1.0, failed)
    assert all(math.isnan(point[k]) for k in ["forward", "custom", "true"])


def test_disagreement_counts_nan_against_a_number_and_not_nan_against_nan():
    custom = np.array([1.0, np.nan, np.nan, 2.0])
    true = np.array([1.0, 1.0, np.nan, 2.5])
    np.testing.assert_array_equal(disagreement(custom, true), [False, True, False, True])
    assert largest(custom, true, None) == 2.5


def rows(data):
    return np.frombuffer(data, "<f8").reshape(len(ROWS), -1)


def test_samples_are_five_little_endian_float64_rows_with_nan_where_unknown():
    curves = Curves(
        x=np.array([0.0, 1.0, 2.0]),
        forward=np.array([0.0, 1.0, 8.0]),
        custom=None,
        true=np.array([0.0, 3.0, np.nan]),
    )
    assert ROWS == ("x", "forward", "custom", "true", "differ")  # as the widget names them
    x, forward, custom, true, differ = rows(pack_rows(curves.rows()))
    np.testing.assert_array_equal(x, [0, 1, 2])
    np.testing.assert_array_equal(forward, [0, 1, 8])
    assert np.isnan(custom).all() and np.isnan(true[2])
    np.testing.assert_array_equal(differ, [0, 0, 0])  # nothing to compare without backward
