"""The exercise "Check your Clamp01": the course's answer catches every catalogued bug and
passes correct code; the self-check judges learners' suites fairly, names each missed bug
with its hint, never raises, and leaves torch's state as it was."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_lib import Clamp01
from lessons_lib.broken_clamps import CATALOGUE, CORRECT
from lessons_lib.clamp_exercise import (
    READ,
    READ_FOR_BUG,
    SuiteCheck,
    check_my_checks,
    reference_checks,
    run_my_checks,
)

KEYS = [bug.key for bug in CATALOGUE]
CORRECT_NAMES = [f"passes {label}" for label, _ in CORRECT]


def caught(check: SuiteCheck) -> list[str]:
    """The catalogue keys a verdict says were caught."""
    return [c.name.split(":")[0].removeprefix("catches ") for c in check.cases[2:] if c.passed]


# --- learners' suites, as they really write them ---------------------------------------


def forward_only(Clamp01Candidate):
    """The exercise's starter: forward values on three points, nothing else."""
    clamp = Clamp01Candidate.apply
    x = torch.tensor([-0.5, 0.3, 1.7], dtype=torch.float64)
    assert torch.equal(clamp(x), torch.tensor([0.0, 0.3, 1.0], dtype=torch.float64))


def gradcheck_only(Clamp01Candidate):
    x = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(Clamp01Candidate.apply, (x,))


def gradcheck_at_the_kinks(Clamp01Candidate):
    x = torch.tensor([-0.5, 0.0, 0.5, 1.0, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(Clamp01Candidate.apply, (x,))


def gradcheck_in_float32(Clamp01Candidate):
    x = torch.tensor([-1.5, 0.25, 0.75, 1.5], requires_grad=True)
    torch.autograd.gradcheck(Clamp01Candidate.apply, (x,))


def random_points_through_gradcheck(Clamp01Candidate):
    @given(st.lists(st.floats(-2, 2), min_size=2, max_size=5))
    def passes_gradcheck(values):
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        torch.autograd.gradcheck(Clamp01Candidate.apply, (x,))

    passes_gradcheck()


def sum_backward_only(Clamp01Candidate):
    x = torch.tensor([-0.5, 0.3, 1.7], requires_grad=True)
    Clamp01Candidate.apply(x).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


def test_the_answer_passes_every_correct_clamp01():
    reference_checks(Clamp01)
    for _, make in CORRECT:
        reference_checks(make())


@pytest.mark.parametrize("bug", CATALOGUE, ids=KEYS)
def test_the_answer_catches_every_bug_in_the_catalogue(bug):
    with pytest.raises((AssertionError, RuntimeError)):
        reference_checks(bug.make())


def test_the_self_check_passes_the_answer_with_one_case_per_clamp01():
    check = check_my_checks(reference_checks)
    assert check.ok, str(check)
    names = [c.name for c in check.cases]
    assert names[:2] == CORRECT_NAMES
    assert names[2:] == [f"catches {b.key}: {b.wrong}" for b in CATALOGUE]
    assert str(check).splitlines()[0] == "reference_checks: all 10 checks passed. Well done!"


def test_a_forward_only_suite_is_told_which_six_bugs_it_missed_and_how_to_catch_each():
    check = check_my_checks(forward_only)
    assert caught(check) == ["no-lower-bound", "python-and"]
    first = check.first_failure
    bug = CATALOGUE[0]
    assert first.name == f"catches {bug.key}: {bug.wrong}"
    assert (first.fix, first.read) == (bug.catch, READ_FOR_BUG[bug.key])
    text = str(check)
    assert "Also missed, and what catches each:" in text
    for other in CATALOGUE[1:]:
        line = f"  - {other.key}: {other.wrong}. {other.catch}"
        assert (line in text) == (other.key not in {"no-lower-bound", "python-and"})
    assert text.index("Also missed") < text.index("Fix this one first")
    assert text.endswith("(hint=2 the PyTorch calls, then hint=3 the answer).")


def test_the_html_view_lists_every_missed_bug_too():
    page = check_my_checks(forward_only)._repr_html_()
    assert page.count("<li>") == 10 + 5  # the ten checks, then the five missed after the first
    assert page.index("Also missed") < page.index("Fix this one first")


def test_gradcheck_alone_misses_the_three_bugs_the_lesson_says_it_misses():
    missed = {c for c in KEYS if c not in caught(check_my_checks(gradcheck_only))}
    assert missed == {"no-lower-bound", "zero-at-one", "writes-grad-out"}


def test_a_sum_backward_suite_misses_the_dropped_grad_out_and_catches_the_in_place_write():
    found = caught(check_my_checks(sum_backward_only))
    assert "drops-grad-out" not in found and "writes-grad-out" in found


def test_a_suite_that_fails_correct_code_counts_nothing_and_names_the_kink():
    check = check_my_checks(gradcheck_at_the_kinks)
    assert not check.ok and check.first_failure.name == CORRECT_NAMES[0]
    assert "gradcheck met a kink" in check.first_failure.fix
    assert check.first_failure.read == READ["kinks"]
    assert "with respect to input 0, at the line `torch.autograd.gradcheck(" in str(check)
    assert all(c.got.startswith("not counted") for c in check.cases[2:])
    assert "Also missed" not in str(check)


def test_float32_in_gradcheck_is_named_as_the_reason_a_correct_clamp01_failed():
    first = check_my_checks(gradcheck_in_float32).first_failure
    assert first.name == CORRECT_NAMES[0]
    assert "float32" in first.fix and first.read == READ["float64"]


def test_a_property_that_draws_points_on_the_kinks_shows_hypothesis_s_example():
    first = check_my_checks(random_points_through_gradcheck).first_failure
    assert "gradcheck met a kink" in first.fix
    assert "values=[" in first.got and "at the line `torch.autograd.gradcheck(" in first.got


def test_a_suite_that_checks_the_learners_own_clamp_instead_of_the_candidate_is_told_so():
    def own_clamp(Clamp01Candidate):
        x = torch.tensor([-1.5, 0.25, 1.5], dtype=torch.float64, requires_grad=True)
        torch.autograd.gradcheck(Clamp01.apply, (x,))

    first = check_my_checks(own_clamp).first_failure
    assert "never called Clamp01Candidate.apply" in first.got
    assert "clamp = Clamp01Candidate.apply" in first.fix


def test_a_suite_that_calls_forward_by_hand_is_told_to_use_apply():
    def by_hand(Clamp01Candidate):
        x = torch.tensor([-0.5, 0.5])
        Clamp01Candidate.forward(None, x)

    first = check_my_checks(by_hand).first_failure
    assert "forward by hand" in first.got and "Clamp01Candidate.apply(x)" in first.fix


def test_returning_false_counts_as_finding_a_bug():
    def says_false(Clamp01Candidate):
        x = torch.tensor([-0.5, 0.5], dtype=torch.float64)
        return torch.equal(Clamp01Candidate.apply(x), x.clamp(0, 1)) and False

    check = check_my_checks(says_false)
    assert check.first_failure.got == "my_checks returned False"


def test_backward_on_a_vector_without_a_sum_is_explained():
    def no_sum(Clamp01Candidate):
        x = torch.tensor([0.25, 0.5], requires_grad=True)
        Clamp01Candidate.apply(x).backward()

    assert "y.sum().backward()" in check_my_checks(no_sum).first_failure.fix


def test_an_assert_on_a_whole_tensor_is_explained():
    def ambiguous(Clamp01Candidate):
        x = torch.tensor([0.25, 0.5])
        assert Clamp01Candidate.apply(x) == x

    assert "torch.equal(a, b)" in check_my_checks(ambiguous).first_failure.fix


def test_a_name_error_and_a_wrong_signature_are_explained():
    def misspelt(Clamp01Candidate):
        Clamp01Candidate.apply(torch.tensor([0.5]))
        return undefined_helper()  # noqa: F821

    def no_argument():
        pass

    assert "undefined_helper does not exist" in check_my_checks(misspelt).first_failure.fix
    assert "exactly one argument" in check_my_checks(no_argument).first_failure.fix


@pytest.mark.parametrize("given_instead", [Clamp01, Clamp01.apply, 3, None])
def test_something_other_than_a_checks_function_gets_one_plain_case(given_instead):
    check = check_my_checks(given_instead)
    assert [c.name for c in check.cases] == ["my_checks is a function"]
    assert "check_my_checks(my_checks)" in check.first_failure.fix


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


def test_hints_come_in_three_steps_ending_with_the_answers_source():
    check = check_my_checks(forward_only)
    assert [h.label for h in check.hints] == ["the idea", "the PyTorch calls", "the answer"]
    assert "def reference_checks(Clamp01Candidate" not in str(check.hint(2))
    third = str(check.hint(3))
    assert "Hint 3 of 3 (the answer)" in third and "def reference_checks(Clamp01Candidate" in third
    assert isinstance(check.hint(1), SuiteCheck) and "Also missed" in str(check.hint(1))


def test_run_my_checks_says_what_one_run_found():
    assert run_my_checks(forward_only, Clamp01) == "my_checks found nothing wrong with Clamp01"
    found = run_my_checks(reference_checks, CATALOGUE[1].make())
    assert found.startswith("my_checks raised GradcheckError: ")
    assert found.endswith("(run on DropsGradOut)")
    assert "Function second" in run_my_checks(Clamp01, forward_only)
    assert "not YourClamp01.apply" in run_my_checks(forward_only, Clamp01.apply)


# --- two slips that run without error, named from the learner's own source -------------


def dropped_gradcheck_result(Clamp01Candidate):
    x = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(Clamp01Candidate.apply, (x,), raise_exception=False)


def property_never_called(Clamp01Candidate):
    clamp = Clamp01Candidate.apply

    @given(st.lists(st.floats(-3, 3), min_size=2))
    def prop(values):
        x = torch.tensor(values, dtype=torch.float64)
        assert torch.equal(clamp(x), x.clamp(0, 1))


def test_a_dropped_gradcheck_result_is_named():
    fix = check_my_checks(dropped_gradcheck_result).first_failure.fix
    assert "returns False instead of raising" in fix and "assert gradcheck(...)" in fix


def test_a_property_test_that_is_never_called_is_named():
    fix = check_my_checks(property_never_called).first_failure.fix
    assert "Your property test prop is defined but never called" in fix
