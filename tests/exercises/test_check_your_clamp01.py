"""The exercise "Check your Clamp01": the course's answers catch every bug and pass correct
code (either gradient at exactly 0 and 1); both self-checks judge learners' tests fairly,
name each missed bug or missing kind of check with its fix, never raise, and leave torch's
state as it was."""

import re
from pathlib import Path

import nbformat
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_lib import Clamp01
from lessons_lib.broken_clamps import ABS_GRAD_OUT, CATALOGUE, CORRECT, EXERCISE_BUGS
from lessons_lib.exercises.base import ExerciseCheck
from lessons_lib.exercises.clamp.answers import edge_test, reference_checks
from lessons_lib.exercises.clamp.edges import check_edge_test
from lessons_lib.exercises.clamp.observe import grad_outs_gradcheck_sends
from lessons_lib.exercises.clamp.suite import check_my_checks, run_my_checks
from lessons_lib.exercises.clamp.words import (
    EDGE_BUGS,
    EDGE_READ,
    EDGE_READ_FOR_BUG,
    PROPERTY,
    READ,
    READ_FOR_BUG,
    UNEVEN,
)
from tests.learner_functions import masked_clamp01

KEYS = [bug.key for bug in EXERCISE_BUGS]
CORRECT_NAMES = [f"passes {c.label}" for c in CORRECT]


def caught(check: ExerciseCheck) -> list[str]:
    """The bug keys a verdict says were caught."""
    return [
        c.name.split(":")[0].removeprefix("catches ")
        for c in check.cases
        if c.passed and c.name.startswith("catches ")
    ]


def case(check: ExerciseCheck, name: str):
    """The verdict's case of that name."""
    return next(c for c in check.cases if c.name == name)


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
    for correct in CORRECT:
        reference_checks(correct.make())


@pytest.mark.parametrize("bug", EXERCISE_BUGS, ids=KEYS)
def test_the_answer_catches_every_bug_in_the_catalogue(bug):
    with pytest.raises((AssertionError, RuntimeError)):
        reference_checks(bug.make())


def test_the_self_check_passes_the_answer_with_one_case_per_clamp01_and_kind_of_check():
    check = check_my_checks(reference_checks)
    assert check.ok, str(check)
    names = [c.name for c in check.cases]
    assert names[:3] == CORRECT_NAMES
    assert names[3:13] == [f"catches {b.key}: {b.wrong}" for b in EXERCISE_BUGS]
    assert names[13:] == [UNEVEN, PROPERTY]
    assert str(check).splitlines()[0] == "reference_checks: all 15 checks passed. Well done!"


def test_a_forward_only_suite_is_told_which_bugs_and_checks_it_missed_and_how_to_add_each():
    check = check_my_checks(forward_only)
    assert caught(check) == ["no-lower-bound", "python-and"]
    first = check.first_failure
    bug = CATALOGUE[0]
    assert first.name == f"catches {bug.key}: {bug.wrong}"
    assert (first.fix, first.read) == (bug.catch, READ_FOR_BUG[bug.key])
    text = str(check)
    assert "Also missed, and what catches each:" in text
    for other in EXERCISE_BUGS[1:]:
        line = f"  - {other.key}: {other.wrong}. {other.catch}"
        assert (line in text) == (other.key not in {"no-lower-bound", "python-and"})
    assert f"  - {UNEVEN}. " in text and f"  - {PROPERTY}. " in text
    assert text.index("Also missed") < text.index("Fix this one first")
    assert text.endswith("(hint=2 the PyTorch calls, then hint=3 the answer).")


def test_the_html_view_lists_every_missed_bug_too():
    page = check_my_checks(forward_only)._repr_html_()
    # the fifteen checks, then the seven bugs and two kinds of check missed after the first
    assert page.count("<li>") == 15 + 9
    assert page.index("Also missed") < page.index("Fix this one first")


def test_gradcheck_alone_misses_the_three_bugs_the_lesson_says_it_misses():
    missed = {c for c in KEYS if c not in caught(check_my_checks(gradcheck_only))}
    assert missed == {"no-lower-bound", "zero-at-one", "writes-grad-out", "abs-grad-out"}


def test_a_sum_backward_suite_misses_the_dropped_grad_out_and_catches_the_in_place_write():
    found = caught(check_my_checks(sum_backward_only))
    assert "drops-grad-out" not in found and "writes-grad-out" in found


def test_a_suite_that_fails_correct_code_counts_nothing_and_names_the_kink():
    check = check_my_checks(gradcheck_at_the_kinks)
    assert not check.ok and check.first_failure.name == CORRECT_NAMES[0]
    assert "gradcheck met a kink" in check.first_failure.fix
    assert check.first_failure.read == READ["kinks"]
    assert "with respect to input 0, at the line `torch.autograd.gradcheck(" in str(check)
    assert all(c.got.startswith("not counted") for c in check.cases[3:])
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
    assert isinstance(check.hint(1), ExerciseCheck) and "Also missed" in str(check.hint(1))


def test_run_my_checks_says_what_one_run_found():
    assert run_my_checks(forward_only, Clamp01) == "my_checks found nothing wrong with Clamp01"
    found = run_my_checks(reference_checks, CATALOGUE[1].make())
    assert found.startswith("my_checks raised GradcheckError: ")
    assert found.endswith("(run on DropsGradOut)")
    assert "Function second" in run_my_checks(Clamp01, forward_only)
    # One policy across the course: Clamp01.apply means Clamp01.
    assert run_my_checks(forward_only, Clamp01.apply) == run_my_checks(forward_only, Clamp01)
    assert "must be a Function class" in run_my_checks(forward_only, "Clamp01")


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


# --- suites that used to get "all checks passed", and must not -----------------------------


def gradcheck_inside_and_sum_at_the_edges(Clamp01Candidate):
    """Three kinds of check asked, one given honestly: gradcheck only inside (0, 1), the
    edges through .sum().backward() (a grad_out of ones), and no property test."""
    clamp = Clamp01Candidate.apply
    x = torch.tensor([-1.5, -0.5, 0.0, 0.25, 0.75, 1.0, 1.5], dtype=torch.float64)
    assert torch.equal(clamp(x), x.clamp(0, 1))
    inside = torch.tensor([0.25, 0.75], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(clamp, (inside,))
    edges = torch.tensor([-1.5, -0.5, -0.001, 0.001, 0.999, 1.001, 1.5], requires_grad=True)
    clamp(edges).sum().backward()
    assert edges.grad.tolist() == [0, 0, 0, 1, 1, 0, 0]


def property_defined_but_never_called(Clamp01Candidate):
    """Everything else right, and a property test whose body would fail, never run."""
    clamp = Clamp01Candidate.apply
    x = torch.tensor([-1.5, -0.5, 0.0, 0.25, 0.75, 1.0, 1.5], dtype=torch.float64)
    assert torch.equal(clamp(x), x.clamp(0, 1))
    away = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(clamp, (away,))
    edges = torch.tensor([-0.001, 0.001, 0.999, 1.001], dtype=torch.float64, requires_grad=True)
    grad_out = torch.tensor([0.5, 2.0, -1.0, 3.0], dtype=torch.float64)
    sent = grad_out.clone()
    (grad,) = torch.autograd.grad(clamp(edges), edges, grad_out)
    assert torch.equal(grad_out, sent)
    assert grad.tolist() == [0.0, 2.0, -1.0, 0.0]

    @given(st.lists(st.floats(-3, 3), min_size=2))
    def random_inputs(values):
        assert False  # noqa: B011 (the learner's own words)

    # (random_inputs() is never called)


def unbounded_floats(Clamp01Candidate):
    """A property test over every float: NaN and infinities included."""
    clamp = Clamp01Candidate.apply

    @given(st.lists(st.floats(), min_size=2))
    def random_inputs(values):
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        y = clamp(x)
        assert torch.equal(y, x.detach().clamp(0, 1))

    random_inputs()


def test_gradcheck_inside_and_a_sum_at_the_edges_is_not_a_full_suite():
    check = check_my_checks(gradcheck_inside_and_sum_at_the_edges)
    assert not check.ok
    # every bug but the one only a negative grad_out shows, and two kinds of check missing
    assert caught(check) == [key for key in KEYS if key != "abs-grad-out"]
    uneven, prop = case(check, UNEVEN), case(check, PROPERTY)
    assert not uneven.passed and "one value repeated (1)" in uneven.got
    assert "torch.autograd.grad(clamp(x), x, grad_out)" in uneven.fix
    assert "y.sum().backward() sends ones" in uneven.fix
    assert not prop.passed and prop.got.startswith("my_checks has no property test")
    assert "@given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-2, 2)), min_size=2))" in (
        prop.fix
    )
    assert f"  - {UNEVEN}. " in str(check) and f"  - {PROPERTY}. " in str(check)


def test_a_property_test_defined_but_never_called_is_not_counted_as_run():
    check = check_my_checks(property_defined_but_never_called)
    assert not check.ok
    assert [c.name for c in check.cases if not c.passed] == [PROPERTY]
    prop = check.first_failure
    assert prop.got == "random_inputs is defined but never called, so hypothesis drew nothing"
    assert "call random_inputs() at the end of my_checks" in prop.fix


def test_unbounded_floats_are_named_with_what_to_bound_and_why():
    first = check_my_checks(unbounded_floats).first_failure
    assert first.name == CORRECT_NAMES[0]
    assert "nan" in first.got  # hypothesis's failing example, as drawn
    assert first.fix.startswith("Your property test drew nan")
    for words in (
        "torch.clamp keeps NaN as NaN",
        "NaN == NaN is False",
        "st.floats(-3, 3)",
        "st.floats(allow_nan=False, allow_infinity=False)",
    ):
        assert words in first.fix
    assert first.read == READ["every float"]


def test_an_infinite_grad_out_is_named_too():
    def infinite_upstream(Clamp01Candidate):
        # inf every time: with st.floats(allow_nan=False) whether inf is drawn, and so which
        # check fails first, depends on the run.
        @given(st.lists(st.floats(1.5, 3), min_size=2, max_size=2), st.just(float("inf")))
        def random_inputs(values, scale):  # above 1, where the gradient is scale * 0
            x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
            g = torch.tensor([scale, 1.0], dtype=torch.float64)
            (grad,) = torch.autograd.grad(Clamp01Candidate.apply(x), x, g)
            assert torch.equal(grad, g * ((x > 0) & (x < 1)))

        random_inputs()

    fix = check_my_checks(infinite_upstream).first_failure.fix
    assert fix.startswith("Your property test drew inf:")
    assert "an infinite grad_out times a mask's 0 gives NaN too" in fix


# --- the edges: either gradient at exactly 0 and 1 is correct ------------------------------


def demands_grad_out_on_the_edges(Clamp01Candidate):
    """The old answer's edge check: exactly 0 and 1 must let grad_out through."""
    edges = torch.tensor([-0.001, 0.0, 0.001, 0.999, 1.0, 1.001], dtype=torch.float64)
    edges.requires_grad_()
    grad_out = torch.tensor([0.5, 2.0, -1.0, 3.0, 0.25, 4.0], dtype=torch.float64)
    (grad,) = torch.autograd.grad(Clamp01Candidate.apply(edges), edges, grad_out)
    assert grad.tolist() == [0.0, 2.0, -1.0, 3.0, 0.25, 0.0]


def demands_zero_on_the_edges(Clamp01Candidate):
    edges = torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64, requires_grad=True)
    grad_out = torch.tensor([2.0, 3.0, 4.0], dtype=torch.float64)
    (grad,) = torch.autograd.grad(Clamp01Candidate.apply(edges), edges, grad_out)
    assert grad.tolist() == [0.0, 3.0, 0.0]


def test_a_suite_that_rejects_the_strict_mask_is_told_it_fails_correct_code_at_a_kink():
    check = check_my_checks(demands_grad_out_on_the_edges)
    strict = CORRECT[2]
    assert strict.at_edges == "0"
    first = check.first_failure
    assert first.name == f"passes {strict.label}"
    assert [c.passed for c in check.cases[:3]] == [True, True, False]
    assert "the derivative does not exist there" in first.fix
    assert "between 0 and grad_out" in first.fix
    assert "(grad_out.clamp(max=0) <= grad) & (grad <= grad_out.clamp(min=0))" in first.fix
    assert first.read == READ["kinks"]


def test_a_suite_that_demands_zero_on_the_edges_is_told_the_same():
    check = check_my_checks(demands_zero_on_the_edges)
    first = check.first_failure
    assert first.name == CORRECT_NAMES[0]
    assert first.fix.startswith("This Clamp01 is correct: at exactly 0 and 1 it gives grad_out")
    assert "another correct one that gives 0 there" in first.fix


@pytest.mark.parametrize(
    "mask",
    [lambda x: (x >= 0) & (x <= 1), lambda x: (x > 0) & (x < 1)],
    ids=["edges-included", "strict"],
)
def test_lesson_ones_solutions_in_both_conventions_pass_the_answer(mask):
    fn = masked_clamp01(mask)
    reference_checks(fn)
    assert run_my_checks(reference_checks, fn) == "my_checks found nothing wrong with YourClamp01"


def one_off_clamp(grad_rule):
    """A Clamp01 with a right forward and the backward grad_rule(x, grad_out)."""

    class OneOff(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(0, 1)

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_rule(x, grad_out)

    return OneOff


@pytest.mark.parametrize(
    "grad_rule",
    [
        lambda x, g: g * ((x >= 0) & (x <= 1)) + g * (x == 0),  # 2 * grad_out at exactly 0
        lambda x, g: -g * (x == 1) + g * ((x > 0) & (x < 1)),  # -grad_out at exactly 1
        lambda x, g: g * ((x > 0.01) & (x < 1)),  # blocks grad_out just inside 0
        lambda x, g: g * ((x >= 0) & (x <= 1.01)),  # lets it through just outside 1
    ],
    ids=["twice-at-0", "negated-at-1", "blocks-just-inside", "leaks-just-outside"],
)
def test_the_answer_still_demands_grad_out_inside_zero_outside_and_a_between_value_on_edges(
    grad_rule,
):
    with pytest.raises(AssertionError):
        reference_checks(one_off_clamp(grad_rule))


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


# --- Part 1: the edge test and its self-check ------------------------------------------------

EDGE_NAMES = [
    "my_edge_test gives back True or False",
    "passes the course's Clamp01 (correct)",
    "passes a Clamp01 that gives back 0 at exactly 0 and 1 (also correct)",
    *[f"catches {wrong}" for _, wrong, _ in EDGE_BUGS],
    "sends each point its own upstream gradient",
]


def edge_starter(Clamp01Candidate):
    """Part 1's starter, as the notebook gives it."""
    x = torch.tensor([0.5], requires_grad=True)
    grad_out = torch.tensor([1.0])
    Clamp01Candidate.apply(x).backward(grad_out)
    expected = torch.tensor([1.0])
    return torch.equal(x.grad, expected)


def edge_test_with(points, grad_out, expected, compare=torch.equal):
    """A learner's edge test with these numbers."""

    def my_edge_test(Clamp01Candidate):
        x = torch.tensor(points, requires_grad=True)
        Clamp01Candidate.apply(x).backward(torch.tensor(grad_out))
        return compare(x.grad, torch.tensor(expected))

    return my_edge_test


def edge_caught(check: ExerciseCheck) -> list[str]:
    return [c.name.removeprefix("catches ") for c in check.cases[3:8] if c.passed]


def test_the_part_1_answer_passes_every_case():
    check = check_edge_test(edge_test)
    assert check.ok, str(check)
    assert [c.name for c in check.cases] == EDGE_NAMES
    assert edge_test(Clamp01) is True


def test_the_part_1_starter_catches_only_the_inverted_mask_and_says_what_to_add():
    check = check_edge_test(edge_starter)
    assert [c.passed for c in check.cases[:3]] == [True, True, True]
    assert edge_caught(check) == [EDGE_BUGS[2][1]]
    first = check.first_failure
    assert first.name == f"catches {EDGE_BUGS[0][1]}" and "below 0 or above 1" in first.fix
    assert "my_edge_test gave back True" in first.got
    uneven = check.cases[-1]
    assert uneven.got == "backward got grad_out = [1], a single number"
    text = str(check)
    assert "Add a point above 1, such as 1.5" in text and "Add a point just below 0" in text


def test_a_grad_out_of_ones_misses_the_forgotten_grad_out_and_is_told_to_vary_it():
    ones = edge_test_with([-0.5, 0.25, 0.75, 1.5], [1.0] * 4, [0.0, 1.0, 1.0, 0.0])
    check = check_edge_test(ones)
    assert "a backward that forgets grad_out" not in edge_caught(check)
    assert len(edge_caught(check)) == 4
    uneven = check.cases[-1]
    assert (
        not uneven.passed
        and uneven.got == "backward got grad_out = [1, 1, 1, 1], one number repeated"
    )
    assert "torch.tensor([10.0, 20.0, 30.0, 40.0])" in uneven.fix


def test_an_even_grad_out_other_than_one_catches_every_bug_and_still_fails_the_uneven_case():
    twos = edge_test_with([-0.5, 0.25, 0.75, 1.5], [2.0] * 4, [0.0, 2.0, 2.0, 0.0])
    check = check_edge_test(twos)
    assert len(edge_caught(check)) == 5 and not check.ok
    assert check.first_failure.name == "sends each point its own upstream gradient"


def test_points_only_around_zero_miss_the_forgotten_edge_at_one():
    low = edge_test_with([-0.5, 0.5], [10.0, 20.0], [0.0, 20.0])
    check = check_edge_test(low)
    assert [c.name for c in check.cases if not c.passed] == [
        "catches a backward that forgets the edge at 1"
    ]


def test_demanding_grad_out_at_exactly_0_and_1_fails_a_correct_clamp_and_names_the_corner():
    on_edges = edge_test_with(
        [-0.5, 0.0, 0.5, 1.0, 1.5], [10.0, 20.0, 30.0, 40.0, 50.0], [0.0, 20.0, 30.0, 40.0, 0.0]
    )
    check = check_edge_test(on_edges)
    first = check.first_failure
    assert first.name == EDGE_NAMES[2]
    assert first.fix.startswith("This Clamp01 is correct too. At exactly 0 and 1 it gives back 0")
    assert "no single slope" in first.fix and "-0.001 and 0.001" in first.fix
    assert first.read == "This notebook, Part 1, “The corners at 0 and 1”"
    assert all(c.got.startswith("not counted") for c in check.cases[3:])


def test_a_wrong_expected_is_shown_what_a_correct_clamp_gave_back():
    wrong = edge_test_with(
        [-0.5, 0.25, 0.75, 1.5], [10.0, 20.0, 30.0, 40.0], [0.0, 10.0, 20.0, 0.0]
    )
    first = check_edge_test(wrong).first_failure
    assert first.name == EDGE_NAMES[1] and first.got == "my_edge_test returned False"
    assert "x = [-0.5, 0.25, 0.75, 1.5] and grad_out = [10, 20, 30, 40]" in first.fix
    assert "it gave back x.grad = [0, 20, 30, 0]" in first.fix


@pytest.mark.parametrize(
    ("compare", "words"),
    [
        (lambda a, b: a == b, "torch.equal(x.grad, expected), which gives back one True or False"),
        (lambda a, b: None, "End my_edge_test with a return line"),
    ],
    ids=["elementwise", "no-return"],
)
def test_a_test_that_does_not_give_back_true_or_false_is_told_how_and_nothing_else_counts(
    compare, words
):
    test = edge_test_with(
        [-0.5, 0.25, 0.75, 1.5], [10.0, 20.0, 30.0, 40.0], [0, 20, 30, 0], compare
    )
    check = check_edge_test(test)
    assert check.first_failure.name == EDGE_NAMES[0] and words in check.first_failure.fix
    assert all(c.got.startswith("not counted") for c in check.cases[1:])


def test_slips_that_stop_an_edge_test_are_explained():
    def no_requires_grad(Clamp01Candidate):
        x = torch.tensor([-0.5, 0.5])
        Clamp01Candidate.apply(x).backward(torch.tensor([1.0, 2.0]))
        return torch.equal(x.grad, torch.tensor([0.0, 2.0]))

    def always_true(Clamp01Candidate):
        return True

    def always_false(Clamp01Candidate):
        return False

    assert "requires_grad=True" in check_edge_test(no_requires_grad).first_failure.fix
    short_grad_out = edge_test_with([-0.5, 0.5, 1.5], [1.0, 2.0], [0.0, 2.0, 0.0])
    assert "one number for each number of x" in check_edge_test(short_grad_out).first_failure.fix
    assert "never called Clamp01Candidate.apply" in check_edge_test(always_true).first_failure.got
    assert not check_edge_test(always_false).ok


@pytest.mark.parametrize("given_instead", [Clamp01, Clamp01.apply, edge_test(Clamp01), None])
def test_something_other_than_an_edge_test_gets_one_plain_case(given_instead):
    check = check_edge_test(given_instead)
    assert [c.name for c in check.cases] == ["my_edge_test is a function"]
    assert "check_edge_test(my_edge_test)" in check.first_failure.fix


def test_the_edge_check_never_raises_and_its_hints_end_with_the_answer():
    def exits(Clamp01Candidate):
        raise SystemExit(1)

    assert not check_edge_test(exits).ok
    check = check_edge_test(edge_starter)
    assert [h.label for h in check.hints] == ["the idea", "the PyTorch calls", "the answer"]
    assert "def edge_test(Clamp01Candidate" not in str(check.hint(2))
    assert "def edge_test(Clamp01Candidate" in str(check.hint(3))
    assert str(check).endswith(
        "check_edge_test(my_edge_test, hint=1) shows the idea "
        "(hint=2 the PyTorch calls, then hint=3 the answer)."
    )


# --- ticks earned by what a check catches, not by what it runs ------------------------------


def uneven_but_asserted_at_the_outer_points(Clamp01Candidate):
    """A developer's suite that got full marks: gradcheck at four points, an uneven grad_out
    asserted only at the two outer (blocked) points, and a property test of forward only."""
    clamp = Clamp01Candidate.apply
    x = torch.tensor([-0.5, 0.3, 0.7, 1.5], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(clamp, (x,))
    e = torch.tensor(
        [-0.001, 0.0, 0.001, 0.999, 1.0, 1.001], dtype=torch.float64, requires_grad=True
    )
    assert torch.equal(clamp(e).detach(), e.detach().clamp(0, 1))
    grad_out = torch.tensor([0.5, 2.0, -1.0, 3.0, 1.5, 4.0], dtype=torch.float64)
    kept = grad_out.clone()
    (g,) = torch.autograd.grad(clamp(e), e, grad_out)
    assert torch.equal(grad_out, kept)
    assert g[0] == 0 and g[5] == 0  # only the blocked side

    @given(st.lists(st.floats(-3, 3), min_size=2))
    def prop(values):
        t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        assert torch.equal(clamp(t).detach(), t.detach().clamp(0, 1))  # forward only

    prop()


def full_suite_with(grad_out_values, prop="gradient"):
    """reference_checks' shape, with this edge grad_out, and a property test that checks the
    gradient for a drawn grad_out ("gradient"; "positive": the grad_out drawn is never
    negative), forward only ("forward"), or forward and a backward whose result it never
    looks at ("unasserted")."""

    def my_checks(Clamp01Candidate):
        clamp = Clamp01Candidate.apply
        x = torch.tensor([-1.5, -0.5, 0.0, 0.25, 0.75, 1.0, 1.5], dtype=torch.float64)
        assert torch.equal(clamp(x), x.clamp(0, 1))
        away = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64)
        torch.autograd.gradcheck(clamp, (away.requires_grad_(),))
        edges = torch.tensor([-0.5, -0.001, 0.001, 0.999, 1.001, 1.5], dtype=torch.float64)
        edges.requires_grad_()
        grad_out = torch.tensor(grad_out_values, dtype=torch.float64)
        sent = grad_out.clone()
        (grad,) = torch.autograd.grad(clamp(edges), edges, grad_out)
        assert torch.equal(grad_out, sent)
        assert torch.equal(grad, grad_out * ((edges > 0) & (edges < 1)))

        @given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-2, 2)), min_size=2))
        def random_inputs(pairs):
            values, upstream = zip(*pairs, strict=True)
            t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
            y = clamp(t)
            assert torch.equal(y, t.detach().clamp(0, 1))
            g = torch.tensor(upstream, dtype=torch.float64)
            g = g.abs() if prop == "positive" else g
            if prop == "unasserted":
                torch.autograd.grad(y, t, g)  # runs backward, and looks at nothing
            if prop in ("gradient", "positive"):
                (got,) = torch.autograd.grad(y, t, g)
                inside, edge = (t > 0) & (t < 1), (t == 0) | (t == 1)
                between = (g.clamp(max=0) <= got) & (got <= g.clamp(min=0))
                assert torch.where(edge, between, got == g * inside).all()

        random_inputs()

    return my_checks


def test_the_developers_suite_that_got_full_marks_now_misses_abs_grad_out_and_both_ticks():
    check = check_my_checks(uneven_but_asserted_at_the_outer_points)
    assert not check.ok
    failed = [c.name for c in check.cases if not c.passed]
    assert failed == [f"catches {ABS_GRAD_OUT.key}: {ABS_GRAD_OUT.wrong}", UNEVEN, PROPERTY]
    assert check.first_failure.fix == ABS_GRAD_OUT.catch
    uneven, prop = case(check, UNEVEN), case(check, PROPERTY)
    assert uneven.got == (
        "for grad_out = [0.5, 2, -1, 3, 1.5, 4], abs-grad-out gave back [0, 2, 1, 3, 1.5, 0], "
        "a negative grad_out turned positive, and my_checks found nothing wrong: it does not "
        "assert every number of that gradient"
    )
    assert "assert every number of the gradient against the rule" in uneven.fix
    assert (
        "found nothing wrong with a Clamp01 whose backward is wrong only while hypothesis "
        "draws" in prop.got
    )
    assert "(backward never ran in it)" in prop.got
    assert "draw a grad_out as well" in prop.fix and prop.read == READ["pytest"]


def test_an_uneven_grad_out_of_positive_values_only_does_not_earn_the_uneven_tick():
    check = check_my_checks(full_suite_with([0.5, 2.0, 1.0, 3.0, 4.0, 5.0], "positive"))
    assert [c.name for c in check.cases if not c.passed] == [
        f"catches {ABS_GRAD_OUT.key}: {ABS_GRAD_OUT.wrong}",
        UNEVEN,
    ]
    assert case(check, UNEVEN).got.startswith("every grad_out my_checks sent was 0 or more")


def test_negative_values_only_where_the_gradient_is_zero_do_not_earn_it_either():
    check = check_my_checks(full_suite_with([-0.5, -2.0, 1.0, 3.0, -4.0, -5.0], "positive"))
    assert case(check, UNEVEN).got.startswith(
        "the negative values of my_checks's grad_outs all reached points where the gradient "
        "is 0 anyway"
    )


def test_a_full_suite_with_a_signed_grad_out_earns_both_ticks():
    assert check_my_checks(full_suite_with([0.5, -2.0, 1.0, -3.0, 4.0, 5.0])).ok


SIGNED = [0.5, -2.0, 1.0, -3.0, 4.0, 5.0]  # negative at 0.001 and 0.999, inside (0, 1)


def test_a_property_test_of_forward_only_does_not_earn_the_property_tick():
    check = check_my_checks(full_suite_with(SIGNED, "forward"))
    assert [c.name for c in check.cases if not c.passed] == [PROPERTY]
    assert case(check, PROPERTY).got.startswith("your property test ran on ")
    assert "(backward never ran in it)" in case(check, PROPERTY).got


def test_a_property_test_that_runs_backward_but_asserts_nothing_is_told_backward_ran():
    prop = case(check_my_checks(full_suite_with(SIGNED, "unasserted")), PROPERTY)
    assert not prop.passed and "(backward ran in it)" in prop.got


# --- every "read more" names a section that exists and covers the idea ------------------------

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
POINTED_AT = {
    "This notebook, Part 1": ("exercises/check-your-clamp01.ipynb", "## Part 1", "## Part 2"),
    "This notebook, Part 2": ("exercises/check-your-clamp01.ipynb", "## Part 2", "## Remember"),
    "Lesson 1 beginner track": ("01-custom-function/1-beginner.ipynb", "", ""),
    "Lesson 1 developer track": ("01-custom-function/2-developer.ipynb", "", ""),
    "Lesson 2 developer track": ("02-checking-gradients/2-developer.ipynb", "", ""),
}


def headings(notebook: str, start: str, stop: str) -> list[str]:
    """The markdown headings of a notebook, between the headings starting start and stop."""
    cells = nbformat.read(NOTEBOOKS / notebook, as_version=4).cells
    lines = [
        line
        for cell in cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("#")
    ]
    if start:
        lines = lines[next(i for i, h in enumerate(lines) if h.startswith(start)) :]
    if stop:
        lines = lines[: next(i for i, h in enumerate(lines) if h.startswith(stop))]
    return [line.lstrip("#").strip() for line in lines]


POINTERS = sorted({*READ.values(), *EDGE_READ.values()})


@pytest.mark.parametrize("pointer", POINTERS)
def test_every_pointer_names_a_heading_of_the_notebook_and_part_it_names(pointer):
    where, heading = re.fullmatch(r"(.+), “(.+)”", pointer).groups()
    assert heading in headings(*POINTED_AT[where])


def test_each_bug_and_case_points_where_its_idea_is_taught():
    assert set(READ_FOR_BUG) == set(KEYS) and set(READ_FOR_BUG.values()) <= set(READ.values())
    assert [EDGE_READ_FOR_BUG[make] for make, _, _ in EDGE_BUGS] == [
        EDGE_READ["clamp"],  # points outside 0 to 1: shown in the section on Clamp01
        EDGE_READ["choose"],  # an upstream gradient other than 1
        EDGE_READ["clamp"],
        EDGE_READ["clamp"],
        EDGE_READ["clamp"],
    ]
    assert not any("beginner" in pointer for pointer in READ.values())  # Part 2: developers
    uneven = case(check_my_checks(gradcheck_inside_and_sum_at_the_edges), UNEVEN)
    assert uneven.read == "This notebook, Part 1, “Choosing the upstream gradient yourself”"
    first = check_edge_test(edge_starter).first_failure
    assert first.read == "This notebook, Part 1, “Clamp01: keep numbers between 0 and 1”"


def test_integer_points_in_part_1_are_told_to_write_a_decimal_point():
    whole = edge_test_with([-1, 0, 1, 2], [10.0, 20.0, 30.0, 40.0], [0.0, 20.0, 30.0, 0.0])
    first = check_edge_test(whole).first_failure
    assert first.name == EDGE_NAMES[1]
    assert "Only Tensors of floating point" in first.got
    assert "write -1.0, not -1 (or torch.tensor([...], dtype=torch.float32))" in first.fix
