"""step_curves: the errors the step-size explorer plots are the lesson's own measurement."""

import math

import numpy as np
import pytest
import torch

from lessons_lib import Cube, Square
from lessons_lib.explorers.steps.curves import (
    DTYPES,
    KEYS,
    STEPS,
    StepCurves,
    StepSetup,
    autograd_slope,
    backward_slope,
    given_slope,
    measure,
    measure_step,
)
from lessons_lib.finite_differences import best_step, model_best_step, step_errors
from tests.learner_functions import cube, function, save_and, saved

TypoCube = function("TypoCube", save_and(cube), lambda ctx, g: g * 3 * saved(ctx) * 2)


def raise_value_error(ctx, x):
    raise ValueError("forgot to return")


Broken = function("Broken", raise_value_error, lambda ctx, g: g)
Summing = function("Summing", save_and(lambda x: x.sum()), lambda ctx, g: g * torch.ones(1))
NaNBackward = function("NaNBackward", save_and(cube), lambda ctx, g: g * float("nan"))


def setup_for(fn):
    return StepSetup(fn.apply, backward_slope(fn), fn.__name__, f"{fn.__name__}'s backward")


def test_the_grid_is_the_log_sliders_stops_from_1_to_1e_15():
    assert STEPS.size == 61 and STEPS[0] == 1.0 and STEPS[-1] == pytest.approx(1e-15)
    np.testing.assert_allclose(np.diff(np.log10(STEPS)), -0.25)


def test_every_error_is_step_errors_own_number_in_each_dtype():
    curves = measure(setup_for(Cube), 2.0)
    for key, dtype in DTYPES.items():
        expected = step_errors(lambda t: t**3, lambda t: 3 * t**2, 2.0, list(STEPS), dtype)
        np.testing.assert_array_equal(curves.errors[key], expected)
    assert (curves.value, curves.slope) == (8.0, 12.0)


def test_the_v_truncation_at_large_h_rounding_at_small_h_and_float32_giving_up_below_its_spacing():
    errors = measure(setup_for(Cube), 2.0).errors
    assert errors["float64"][0] == errors["float32"][0] == 1.0  # h = 1: h² |f'''| / 6 = 1
    assert errors["float32"][-1] == 12.0  # 2 ± 1e-15 is 2 in float32: the difference is 0
    low = int(np.argmin(errors["float64"]))
    assert 0 < low < STEPS.size - 1  # a V: the smallest error lies inside, not at an end
    assert errors["float64"][low] < 1e-9 < errors["float64"][-1]
    assert errors["float64"].min() < 1e-4 * errors["float32"].min()


def test_the_best_step_marked_is_the_models_with_its_scales_measured_at_x():
    curves = measure(setup_for(Cube), 2.0)
    assert curves.third == pytest.approx(6.0)
    scale = 8.0 + 2.0 * 12.0  # |f| + |x f'|: rounding of f's values and of x ± h
    for key, dtype in DTYPES.items():
        assert curves.from_model[key]
        assert curves.best[key] == pytest.approx(model_best_step(dtype, scale, 6.0), rel=1e-9)
        assert curves.model[key][0] == pytest.approx(1.0 + torch.finfo(dtype).eps * scale)
        measured_best = STEPS[np.argmin(curves.errors[key])]
        assert 0.1 < measured_best / curves.best[key] < 10


@pytest.mark.parametrize(
    ("f", "x"),
    [(torch.sin, math.pi), (torch.exp, -20.0), (lambda t: t**3 + 1e8, 1.0)],
    ids=["zero of f", "tiny f", "huge f"],
)
def test_the_model_still_finds_the_v_near_a_zero_of_f_and_for_a_huge_f(f, x):
    curves = measure(StepSetup(f, autograd_slope(f, "f"), "f", "autograd of f"), x)
    assert curves.problems == []
    for key in KEYS:
        assert curves.from_model[key]
        assert np.nanmax(curves.errors[key] / curves.model[key]) <= 1.1  # the model covers it
        measured_best = STEPS[np.argmin(curves.errors[key])]
        assert 0.05 < measured_best / curves.best[key] < 20


@pytest.mark.parametrize(
    ("fn", "x", "why"),
    [(Square, 2.0, "f''' = 0: nothing to balance"), (Cube, 0.0, "f = x f' = 0: no round-off")],
)
def test_without_an_optimum_in_the_model_the_rule_of_thumb_is_marked(fn, x, why):
    curves = measure(setup_for(fn), x)
    assert not any(curves.from_model.values()), why
    assert curves.best == {key: best_step(dtype) for key, dtype in DTYPES.items()}


def test_at_a_kink_the_model_is_left_out_and_the_message_says_a_floor_is_not_a_wrong_backward():
    relu = StepSetup(torch.relu, autograd_slope(torch.relu, "relu"), "relu", "autograd")
    curves = measure(relu, 0.0)
    assert "f is not smooth at x = 0" in curves.problems[0]
    assert "a floor there is not a wrong backward" in curves.problems[0]
    assert all(np.isnan(model).all() for model in curves.model.values())
    assert curves.no_optimum == dict.fromkeys(KEYS, "no model at a kink")


def test_steps_where_the_error_is_far_above_the_model_are_named():
    relu = StepSetup(torch.relu, autograd_slope(torch.relu, "relu"), "relu", "autograd")
    near_a_kink = measure(relu, 1e-3)  # smooth within 1e-3; larger steps straddle the kink
    assert "h from 2e-03 to 1e+00" in near_a_kink.problems[-1]
    wrong = measure(setup_for(TypoCube), 3.0)
    assert any("such as a wrong backward" in p for p in wrong.problems)
    assert measure(setup_for(Cube), 3.0).problems == []


def test_errors_that_are_all_zero_are_named_as_such():
    curves = measure(StepSetup(torch.abs, given_slope(torch.zeros_like), "abs", "0"), 0.0)
    assert "every error is exactly 0 at x = 0" in curves.problems[0]


def test_a_wrong_backward_is_a_floor_where_the_difference_is_accurate():
    curves = measure(setup_for(TypoCube), 3.0)  # backward says 18 where the slope is 27
    assert curves.slope == 18.0
    accurate = (STEPS >= 1e-8) & (STEPS <= 1e-2)  # around float64's best step
    np.testing.assert_allclose(curves.errors["float64"][accurate], 9.0, atol=1e-4)
    # Far below the best step, round-off (about eps |f| / h = 6 at h = 1e-15) swamps it.
    assert curves.errors["float64"].min() < 9.0


def test_a_given_derivative_or_autograd_of_a_plain_function_is_the_slope():
    given = StepSetup(torch.sin, given_slope(torch.cos), "sin", "the derivative given")
    plain = StepSetup(torch.sin, autograd_slope(torch.sin, "sin"), "sin", "autograd of sin")
    a, b = measure(given, 1.0), measure(plain, 1.0)
    assert a.slope == b.slope == math.cos(1.0)
    np.testing.assert_array_equal(a.errors["float64"], b.errors["float64"])


@pytest.mark.parametrize(
    ("fn", "words"),
    [
        (Broken, "Broken's forward raised ValueError: forgot to return"),
        (Summing, "elementwise"),
    ],
)
def test_broken_code_is_a_failure_in_words_not_an_exception(fn, words):
    curves = measure(setup_for(fn), 1.0)
    assert words in curves.failure
    assert curves.errors == {} and curves.best == {}
    assert all(math.isnan(v) for k, v in curves.at(0).items() if k != "x")


def test_a_nan_backward_is_noted_and_left_out_of_the_plot():
    curves = measure(setup_for(NaNBackward), 1.0)
    assert curves.failure is None
    assert "NaN or inf at 61 of 61 steps" in curves.problems[0]
    assert np.isnan(curves.errors["float64"]).all()


def test_a_derivative_that_raises_is_named():
    curves = measure(StepSetup(torch.sin, given_slope(lambda t: t.foo), "sin", "given"), 1.0)
    assert "the derivative you gave raised AttributeError" in curves.failure


def test_steps_are_found_in_log_space_and_between_them_none():
    curves = StepCurves(x=1.0)
    assert [curves.index_of(h * (1 + 1e-13)) for h in STEPS] == list(range(61))
    assert curves.index_of(3e-3) is None and curves.index_of(0.0) is None
    assert curves.index_of(-0.1) is None and curves.index_of(2.0) is None


def test_an_exact_step_between_samples_and_on_one_agrees_with_the_curves():
    setup = setup_for(Cube)
    curves = measure(setup, 2.0)
    assert measure_step(setup, 2.0, STEPS[12]) == curves.at(12)
    between = measure_step(setup, 2.0, 3e-3)
    for key, dtype in DTYPES.items():
        (expected,) = step_errors(lambda t: t**3, lambda t: 3 * t**2, 2.0, [3e-3], dtype)
        assert between[key] == expected
    assert set(between) == {"x", *KEYS}


def test_learner_code_cannot_change_torchs_global_state():
    def forward(ctx, x):
        torch.set_default_dtype(torch.float64)
        return x * 2

    Sneaky = function("Sneaky", forward, lambda ctx, g: g * 2)
    measure(setup_for(Sneaky), 1.0)
    assert torch.get_default_dtype() == torch.float32
