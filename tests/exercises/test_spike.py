"""check_spike: the course's answer passes; each wrong spike a learner writes fails the case
it breaks, with the fix that names what its code did."""

import inspect

import pytest
import torch

from lessons_lib import SpikeAnswer, check_spike
from lessons_lib.exercises import spike_words as words
from lessons_lib.surrogate_gradients import surrogate_slope

FORWARD = "return (x >= threshold).to(x.dtype)"
SLOPE = 'slope = surrogate_slope(x, "fast-sigmoid", ctx.threshold, ctx.width)'
RETURN = "return grad_out * slope, None, None"


def spike(forward: str = FORWARD, slope: str = SLOPE, back: str = RETURN) -> type:
    """A MySpike with the given forward line, slope line and backward return."""
    source = words.ANSWER
    for old, new in ((FORWARD, forward), (SLOPE, slope), (RETURN, back)):
        assert old in source
        source = source.replace(old, new)
    space = {"torch": torch, "surrogate_slope": surrogate_slope}
    exec(compile(source, "<learner>", "exec"), space)
    return space["MySpike"]


def marks(verdict) -> str:
    return "".join(c.mark for c in verdict.cases)


def test_the_hints_answer_is_the_tested_answer():
    source = inspect.getsource(SpikeAnswer).replace("SpikeAnswer", "MySpike")
    lines = [line for line in source.splitlines() if '"""' not in line]
    lines.remove("")  # the blank line after the docstring
    assert "\n".join(lines) + "\n" == words.ANSWER


def test_the_answer_passes_in_both_forms():
    assert check_spike(SpikeAnswer).ok and check_spike(spike()).ok
    assert str(check_spike(SpikeAnswer.apply)) == str(check_spike(SpikeAnswer))
    assert "Well done" in str(check_spike(SpikeAnswer))


def test_a_strict_step_is_caught_at_the_threshold():
    verdict = check_spike(spike(forward="return (x > threshold).to(x.dtype)"))
    assert marks(verdict) == "✗✓✓✓✓"
    assert "forward gave 0 at x = 1, exactly at the threshold" in verdict.first_failure.fix


def test_a_step_at_zero_is_caught():
    verdict = check_spike(spike(forward="return (x >= 0).to(x.dtype)"))
    assert marks(verdict) == "✗✓✓✓✓"
    assert "forward's step is at 0, not at the threshold 1" in verdict.first_failure.fix


def test_float_is_caught_on_float64_input():
    verdict = check_spike(spike(forward="return (x >= threshold).float()"))
    assert marks(verdict) == "✓✗✓✓✓"
    assert verdict.first_failure.got == (
        "forward gave back torch.float32 numbers for torch.float64 x"
    )


def test_a_bump_centred_at_zero_is_caught():
    verdict = check_spike(spike(slope='slope = surrogate_slope(x, "fast-sigmoid", 0.0, ctx.width)'))
    assert marks(verdict) == "✓✓✓✗✓"
    assert "centred at 0, not at the threshold 1" in verdict.first_failure.fix
    assert verdict.first_failure.read == "Lesson 3 beginner track, “The white lie, generalised”"


def test_a_bump_one_wide_is_caught():
    verdict = check_spike(spike(slope='slope = surrogate_slope(x, "fast-sigmoid", ctx.threshold)'))
    assert marks(verdict) == "✓✓✓✗✓"
    assert "1 wide, not 0.5 wide" in verdict.first_failure.fix


@pytest.mark.parametrize(
    ("back", "said"),
    [
        ("return slope, None, None", "it ignores grad_out"),
        ("return grad_out.clamp(-1, 1) * slope, None, None", "clipped to [-1, 1]"),
        ("return grad_out.abs() * slope, None, None", "lost grad_out's sign"),
    ],
)
def test_a_backward_that_does_not_scale_with_grad_out_is_caught(back, said):
    verdict = check_spike(spike(back=back))
    assert marks(verdict) == "✓✓✓✓✗"
    assert said in verdict.first_failure.fix


@pytest.mark.parametrize(
    ("back", "said"),
    [
        ("return grad_out * slope", "1 thing: "),
        ("return grad_out * slope, -grad_out * slope, None", "for the threshold, a plain number"),
        ("return grad_out * slope, None, 0.0", "for the width, a plain number"),
    ],
)
def test_a_gradient_for_a_number_or_a_missing_none_is_caught(back, said):
    verdict = check_spike(spike(back=back))
    assert not verdict.ok and verdict.cases[2].mark == "✗"
    failure = verdict.first_failure
    assert said in failure.got + failure.fix


def test_the_true_gradient_is_named():
    verdict = check_spike(spike(back="return torch.zeros_like(grad_out), None, None"))
    assert marks(verdict) == "✓✓✓✗✓"
    assert "all zeros: the step's true gradient" in verdict.first_failure.fix
    assert verdict.first_failure.read == (
        "Lesson 3 beginner track, “Training with the true gradient”"
    )


def test_the_starter_fails_with_every_later_case_not_checked_yet():
    verdict = check_spike(spike(forward="return ...", slope="slope = ...", back="return ..."))
    assert marks(verdict) == "✗○○○○"
    assert verdict.first_failure.got == "... (the placeholder)"


def test_a_wrong_argument_gets_one_line():
    verdict = check_spike(3)
    assert not verdict.ok and not verdict.cases
    assert str(verdict) == (
        "check_spike: you passed the number 3; check_spike wants your MySpike class, "
        "as in check_spike(MySpike)."
    )


def test_the_hint_ladder_ends_with_the_answer():
    shown = str(check_spike(spike(back="return slope, None, None"), hint=3))
    assert "Hint 3 of 3 (the answer)" in shown and RETURN in shown


def test_a_threshold_written_into_forward_is_caught_at_the_second_threshold():
    verdict = check_spike(spike(forward="return (x >= 1.0).to(x.dtype)"))
    assert marks(verdict) == "✗✓✓✓✓"
    failure = verdict.first_failure
    assert "with threshold -0.5, forward still jumped at x = 1," in failure.fix
    assert "threshold -0.5" in failure.expected


def test_a_threshold_and_width_written_into_backward_are_caught():
    slope = 'slope = surrogate_slope(x, "fast-sigmoid", 1.0, 0.5)'
    verdict = check_spike(spike(slope=slope))
    assert marks(verdict) == "✓✓✓✗✓"
    failure = verdict.first_failure
    assert "With threshold -0.5, width 2, backward gave back the bump for threshold 1" in (
        failure.fix
    )
