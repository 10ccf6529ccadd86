"""check_my_surrogate_tests on hand-written test suites, each wrong in one way a learner's is:
every line's mark, and that each sentence says what that suite really did."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_lib import check_function
from lessons_lib.exercises import surrogate_tests_words as words
from lessons_lib.exercises.spike_answers import SpikeAnswer
from lessons_lib.exercises.surrogate_mistakes import MISTAKES, WrongWhileDrawing, declared_rule
from lessons_lib.exercises.surrogate_tests import check_my_surrogate_tests
from lessons_lib.exercises.surrogate_tests_answers import reference_surrogate_tests
from lessons_lib.surrogate_gradients import surrogate_slope

X = torch.tensor([-1.0, 0.5, 1.0, 1.2, 3.0], dtype=torch.float64)


def fires(x, threshold, width):
    return (x >= threshold).to(x.dtype)


def forward_only(spike):
    assert spike.apply(X, 1.0, 0.5).tolist() == [0.0, 0.0, 1.0, 1.0, 0.0 + 1.0]


def gradcheck_only(spike):
    x = X.clone().requires_grad_()
    torch.autograd.gradcheck(lambda x: spike.apply(x, 1.0, 0.5), (x,))


def doctor_without_rule(spike):
    report = check_function(spike, fires, inputs=(X, 1.0, 0.5))
    assert report.ok, str(report)


def property_never_called(spike):
    report = check_function(spike, fires, grad_reference=declared_rule, inputs=(X, 1.0, 0.5))
    assert report.ok, str(report)

    @settings(max_examples=20, deadline=None)
    @given(st.floats(-10, 10))
    def peaks_at_threshold(point):
        x = torch.tensor([point, 1.0], dtype=torch.float64, requires_grad=True)
        (bump,) = torch.autograd.grad(spike.apply(x, 1.0, 0.5), x, torch.ones(2).double())
        assert bump[1] >= bump[0]


def property_of_forward_only(spike):
    report = check_function(spike, fires, grad_reference=declared_rule, inputs=(X, 1.0, 0.5))
    assert report.ok, str(report)

    @settings(max_examples=20, deadline=None)
    @given(st.floats(-10, 10))
    def steps_at_threshold(point):
        x = torch.tensor([point], dtype=torch.float64)
        assert spike.apply(x, 1.0, 0.5).item() == float(point >= 1.0)

    steps_at_threshold()


def said(text, name):
    """A sentence as the verdict on the suite `name` says it: named as the function it ran."""
    return text.replace("my_surrogate_tests", name)


def marks(verdict):
    return [case.mark for case in verdict.cases]


def test_the_answer_passes_every_check():
    assert check_my_surrogate_tests(reference_surrogate_tests).ok


def test_the_answer_catches_every_wrong_spike_the_check_runs():
    for wrong in (*(m.fn for m in MISTAKES), WrongWhileDrawing):
        try:
            reference_surrogate_tests(wrong)
        except (AssertionError, RuntimeError, ExceptionGroup):  # hypothesis may find two at once
            continue
        raise AssertionError(f"the answer passed {wrong.__name__}")


def test_a_forward_only_suite_is_told_it_never_ran_the_doctor_and_caught_little():
    verdict = check_my_surrogate_tests(forward_only)
    assert marks(verdict) == ["✓", "✗", "✗", "✗", "✗", "✗", "✗"]
    doctor, *caught, prop = verdict.cases[1:]
    assert doctor.got == said(words.DOCTOR_NEVER, "forward_only")  # it never calls check_function
    assert all(
        c.got == said(words.MISSED, "forward_only") for c in caught
    )  # it ran apply, and raised nothing
    assert prop.got == said(words.NOTHING_DRAWN, "forward_only")  # it has no @given at all


def test_a_gradcheck_suite_fails_the_right_spike_and_is_told_why():
    verdict = check_my_surrogate_tests(gradcheck_only)
    assert marks(verdict) == ["✗"] + ["○"] * 6
    first = verdict.cases[0]
    assert first.got.startswith("gradcheck_only raised GradcheckError")
    assert first.fix == words.GRADCHECK
    assert all(c.got == words.FAILS_RIGHT for c in verdict.cases[1:])
    assert "check_my_surrogate_tests(gradcheck_only, hint=1)" in str(verdict)


def test_the_doctor_without_a_rule_fails_the_right_spike_and_is_told_so():
    verdict = check_my_surrogate_tests(doctor_without_rule)
    assert marks(verdict) == ["✗"] + ["○"] * 6
    assert verdict.cases[0].fix == words.NO_RULE_FAILED_RIGHT


def test_an_uncalled_property_test_is_named():
    verdict = check_my_surrogate_tests(property_never_called)
    assert marks(verdict) == ["✓"] * 6 + ["✗"]
    assert verdict.cases[-1].got == words.UNCALLED_GOT.format(test="peaks_at_threshold")


def test_a_property_test_of_forward_alone_is_told_backward_never_ran_in_it():
    verdict = check_my_surrogate_tests(property_of_forward_only)
    assert marks(verdict) == ["✓"] * 6 + ["✗"]
    assert verdict.cases[-1].got == words.NO_GRADIENT_DRAWN.format(inputs="20 drawn inputs")


def test_the_probe_is_right_outside_hypothesis():
    report = check_function(
        WrongWhileDrawing, fires, grad_reference=declared_rule, inputs=(X, 1.0, 0.5)
    )
    assert report.ok


def test_the_third_hint_is_the_tested_answer():
    text = str(check_my_surrogate_tests(forward_only, hint=3))
    assert "def reference_surrogate_tests(spike" in text
    assert SpikeAnswer.__name__ not in words.ANSWER


def strict_reference(spike):
    def fires_above(x, threshold, width):  # wrong: > misses x exactly at the threshold
        return (x > threshold).to(x.dtype)

    report = check_function(spike, fires_above, grad_reference=declared_rule, inputs=(X, 1.0, 0.5))
    assert report.ok, str(report)


def off_threshold_rule(spike):
    def rule(x, threshold, width, grad_out):  # wrong: a bump centred at 0
        return grad_out * surrogate_slope(x, "fast-sigmoid", 0.0, width), None, None

    report = check_function(spike, fires, grad_reference=rule, inputs=(X, 1.0, 0.5))
    assert report.ok, str(report)


def test_a_wrong_reference_is_not_blamed_on_the_rule():
    verdict = check_my_surrogate_tests(strict_reference)
    assert marks(verdict) == ["✗"] + ["○"] * 6
    assert verdict.cases[0].fix == words.DOCTOR_OTHER_ON_RIGHT.format(codes="forward")


def test_a_rule_off_the_threshold_is_blamed_on_the_rule():
    verdict = check_my_surrogate_tests(off_threshold_rule)
    assert marks(verdict) == ["✗"] + ["○"] * 6
    assert verdict.cases[0].fix == words.DOCTOR_FAILED_RIGHT


def doctor_swallowed(spike):
    report = check_function(spike, fires, grad_reference=declared_rule, inputs=(X, 1.0, 0.5))
    try:
        assert report.ok, str(report)
    except AssertionError:
        print("the doctor found something")


def test_a_doctor_report_read_then_swallowed_is_told_to_let_the_failure_out():
    verdict = check_my_surrogate_tests(doctor_swallowed)
    off_centre = verdict.cases[2]
    assert not off_centre.passed
    assert off_centre.got == said(words.REPORT_SWALLOWED, "doctor_swallowed").format(
        codes="gradient"
    )
    assert off_centre.fix == words.LET_IT_FAIL


def doctor_in_float32(spike):
    x = X.to(torch.float32)
    report = check_function(spike, fires, grad_reference=declared_rule, inputs=(x, 1.0, 0.5))
    assert report.ok, str(report)


def test_a_doctor_given_float32_is_told_to_give_it_float64():
    float_output = check_my_surrogate_tests(doctor_in_float32).cases[3]
    assert float_output.name.startswith("catches float-output") and not float_output.passed
    assert float_output.fix == words.DOCTOR_BELOW_FLOAT64.format(dtype="float32")


def few_draws(spike):
    @settings(max_examples=3, database=None)
    @given(st.floats(-3, 3), st.floats(-100, 100))
    def linear(point, c):
        x = torch.tensor([point], dtype=torch.float64, requires_grad=True)
        (grad,) = torch.autograd.grad(spike.apply(x, 1.0, 0.5), x, torch.full_like(x, c))
        want = c * surrogate_slope(x.detach(), "fast-sigmoid", 1.0, 0.5)
        assert torch.allclose(grad, want)

    property_never_called(spike)  # the doctor with the rule, asserted
    linear()


def test_a_property_test_of_three_draws_is_told_to_draw_more():
    prop = check_my_surrogate_tests(few_draws).cases[-1]
    assert not prop.passed and prop.fix == words.DRAW_MORE


def doctor_without_fires(spike):
    report = check_function(spike, steps, grad_reference=declared_rule, inputs=(X, 1.0, 0.5))  # noqa: F821
    assert report.ok, str(report)


def test_an_undefined_name_is_named():
    first = check_my_surrogate_tests(doctor_without_fires).cases[0]
    assert first.fix == words.UNDEFINED.format(name="steps")
    assert "name 'steps' is not defined" in first.got
