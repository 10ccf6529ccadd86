"""Running a learner's test, contained and watched: it never raises, leaves torch's and
hypothesis's state as it was, patches nothing for good, and sees what gradcheck and hypothesis
send (on torch 2.13)."""

import pytest
import torch
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from lessons_lib import Clamp01
from lessons_lib.exercises.clamp.answers import reference_checks
from lessons_lib.exercises.clamp.observe import describe, grad_outs_gradcheck_sends, run
from lessons_lib.exercises.clamp.suite import check_my_checks, run_my_checks
from lessons_lib.exercises.clamp.words import (
    PROPERTY,
    UNEVEN,
)
from tests.exercises.clamp.learners import (
    case,
    random_points_through_gradcheck,
)


def test_the_self_check_never_raises_even_for_system_exit_or_pytest_fail():
    def exits(Clamp01Candidate):
        raise SystemExit(1)

    def fails(Clamp01Candidate):
        pytest.fail("nope")

    for suite in (exits, fails):
        assert not check_my_checks(suite).ok


def test_the_self_check_restores_torchs_state_hypothesis_settings_and_prints_nothing(capsys):
    def meddles(Clamp01Candidate):
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        torch.set_anomaly_enabled(True)
        torch.manual_seed(123)
        print("noise")
        settings.load_profile("default")
        raise AssertionError("found one")

    profile = settings.get_current_profile_name()
    rng = torch.get_rng_state()
    check_my_checks(meddles)
    assert torch.get_default_dtype() == torch.float32 and torch.is_grad_enabled()
    assert not torch.is_anomaly_enabled() and torch.equal(torch.get_rng_state(), rng)
    assert settings.get_current_profile_name() == profile
    assert capsys.readouterr().out == ""


def test_the_watched_classes_are_left_unpatched():
    class Mine(Clamp01):
        pass

    run_my_checks(reference_checks, Mine)
    check_my_checks(reference_checks)
    assert "apply" not in vars(Mine) and "apply" not in vars(Clamp01)
    assert "forward" not in vars(Mine)


def test_the_verdict_is_the_same_on_every_run():
    assert str(check_my_checks(random_points_through_gradcheck)) == str(
        check_my_checks(random_points_through_gradcheck)
    )


def test_the_learners_own_random_draws_are_the_same_every_run():
    drawn = []

    def draws(Clamp01Candidate):
        drawn.append(torch.rand(3))

    run(draws, Clamp01)
    torch.rand(5)  # the global generator moves on between the runs
    run(draws, Clamp01)
    assert torch.equal(drawn[0], drawn[1])


def test_a_failing_property_test_is_shrunk_but_not_explained():
    """The message names the smallest failing input; hypothesis's explain phase is skipped
    (its comments are stripped from the message, and it traces every shrinking step)."""
    phases = []

    def below_one(Clamp01Candidate):
        @given(st.floats(0, 10))
        def small(value):
            phases.append(settings.default.phases)
            assert value < 1

        small()

    said = describe(run(below_one, Clamp01), "below_one")
    assert said.endswith("(Failing test case: small(value=1.0))"), said
    assert Phase.shrink in phases[0] and Phase.explain not in phases[0]


# --- what gradcheck sends backward, on torch 2.13 -------------------------------------------


def test_gradcheck_sends_one_hot_rows_twice_then_two_grad_outs_of_zeros():
    x = torch.tensor([-1.5, 0.25, 1.5], dtype=torch.float64, requires_grad=True)
    rows = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    zeros = [0.0, 0.0, 0.0]
    assert grad_outs_gradcheck_sends(Clamp01, x) == rows + rows + [zeros, zeros]
    assert grad_outs_gradcheck_sends(Clamp01, x, check_undefined_grad=False) == [
        *rows,
        *rows,
        zeros,
    ]


def test_fast_mode_sends_one_random_uneven_grad_out_twice_then_zeros():
    x = torch.tensor([-1.5, 0.25, 1.5], dtype=torch.float64, requires_grad=True)
    first, again, *rest = grad_outs_gradcheck_sends(Clamp01, x, fast_mode=True)
    assert first == again and len(set(first)) == 3 and rest == [[0.0] * 3] * 2


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
def test_only_check_batched_grad_sends_negative_grad_outs_two_randn_draws(fast_mode):
    x = torch.tensor([-1.5, 0.25, 1.5], dtype=torch.float64, requires_grad=True)
    torch.manual_seed(0)
    default = grad_outs_gradcheck_sends(Clamp01, x, fast_mode=fast_mode)
    torch.manual_seed(0)
    batched = grad_outs_gradcheck_sends(Clamp01, x, fast_mode=fast_mode, check_batched_grad=True)
    assert not any(v < 0 for g in default for v in g)
    # The same grad_outs, and two more drawn with randn before the zeros: the batch gradcheck
    # then sends through vmap holds no values to read, and is left out.
    drawn = batched[len(default) - 2 : len(default)]
    assert batched[: len(default) - 2] == default[:-2] and batched[-2:] == default[-2:]
    assert len(batched) == len(default) + 2 and any(v < 0 for g in drawn for v in g)


def test_gradchecks_own_grad_outs_do_not_count_as_the_suites_uneven_grad_out():
    def gradcheck_fast(Clamp01Candidate):
        x = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
        torch.autograd.gradcheck(Clamp01Candidate.apply, (x,), fast_mode=True)

    uneven = case(check_my_checks(gradcheck_fast), UNEVEN)
    assert not uneven.passed
    assert uneven.got == "backward ran only inside gradcheck, with gradcheck's grad_outs"


def test_a_property_test_on_a_fixed_tensor_is_told_to_use_what_hypothesis_draws():
    def fixed(Clamp01Candidate):
        @given(st.floats(-3, 3))
        def random_inputs(value):
            x = torch.tensor([-0.5, 0.5, 1.5], dtype=torch.float64)
            assert torch.equal(Clamp01Candidate.apply(x), x.clamp(0, 1))

        random_inputs()

    prop = case(check_my_checks(fixed), PROPERTY)
    assert prop.got == "only 1 different input(s) reached Clamp01Candidate.apply from hypothesis"
