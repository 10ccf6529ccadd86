"""check_spike: the course's answer passes; each wrong spike a learner writes fails the case
it breaks, with the fix that names what its code did."""

import hashlib
import inspect
import linecache

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
    # Its source is known to linecache, as a notebook cell's is: tracebacks show its lines.
    name = f"<learner-{hashlib.sha1(source.encode()).hexdigest()[:12]}>"
    linecache.cache[name] = (len(source), None, source.splitlines(keepends=True), name)
    exec(compile(source, name, "exec"), space)
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


HEAVISIDE = "return torch.heaviside(x - threshold, torch.tensor(1.0))"


def test_a_forward_that_raises_on_float64_x_only_fails_the_kind_case_with_its_error():
    verdict = check_spike(spike(forward=HEAVISIDE))
    assert marks(verdict) == "✓✗✓✓✓"
    assert "not checked yet" not in str(verdict) and "First problem: forward keeps" in str(verdict)
    failure = verdict.first_failure
    assert failure.got == (
        "forward stopped with an error on float64 x: RuntimeError: heaviside is not yet "
        "implemented for tensors with different dtypes."
    )
    assert failure.fix.startswith(f"The error came through your line `{HEAVISIDE}")
    assert "forward ran on float32 x with the same numbers, threshold and width" in failure.fix
    assert "torch.heaviside(x - threshold, torch.ones_like(x))" in failure.fix
    assert "(x >= threshold).to(x.dtype)" in failure.fix


def test_a_forward_that_raises_on_float32_x_only_fails_the_step_saying_float64_ran():
    forward = "return torch.heaviside(x - threshold, torch.tensor(1.0, dtype=torch.float64))"
    verdict = check_spike(spike(forward=forward))
    assert marks(verdict) == "✗○○○○"
    failure = verdict.first_failure
    assert failure.got.startswith("forward stopped with an error on float32 x: RuntimeError: ")
    assert f"your line `{forward}" in failure.fix
    assert "forward ran on float64 x" in failure.fix and "torch.ones_like(x)" in failure.fix


def test_another_float64_only_error_points_at_its_line_and_at_tensors_of_a_fixed_kind():
    forward = (
        "out = torch.zeros_like(x)\n"
        "        out[x >= threshold] = torch.ones(len(x))[x >= threshold]\n"
        "        return out"
    )
    verdict = check_spike(spike(forward=forward))
    assert marks(verdict) == "✓✗✓✓✓"
    failure = verdict.first_failure
    assert failure.got.startswith("forward stopped with an error on float64 x: RuntimeError: ")
    assert "your line `out[x >= threshold] = torch.ones(len(x))[x >= threshold]`" in failure.fix
    assert "Look on that line for a tensor of one fixed kind" in failure.fix
    assert "heaviside" not in failure.fix


def test_the_learners_own_assert_on_x_kind_is_named_as_theirs():
    forward = "assert x.dtype == torch.float32\n        return (x >= threshold).to(x.dtype)"
    verdict = check_spike(spike(forward=forward))
    assert marks(verdict) == "✓✗✓✓✓"
    failure = verdict.first_failure
    assert failure.got == "forward stopped with an error on float64 x: AssertionError: (no message)"
    assert failure.fix.startswith(
        "This is your own assert, on your line `assert x.dtype == torch.float32`."
    )
    assert failure.fix.endswith("loosen or remove that assert.")


def test_a_backward_that_raises_on_float64_x_only_is_not_told_well_done():
    back = "return grad_out * slope @ torch.eye(len(x)), None, None"
    verdict = check_spike(spike(back=back))
    assert marks(verdict) == "✓✓✗✓✓" and not verdict.ok
    failure = verdict.first_failure
    assert failure.got.startswith("backward stopped with an error on float64 x: RuntimeError: ")
    assert f"your line `{back}" in failure.fix and "backward ran on float32 x" in failure.fix


def test_a_backward_that_takes_grad_out_all_ones_only_fails_the_scaling_case():
    back = "assert (grad_out == 1).all()\n        return grad_out * slope, None, None"
    verdict = check_spike(spike(back=back))
    assert marks(verdict) == "✓✓✓✓✗"
    failure = verdict.first_failure
    assert failure.got == (
        "backward stopped with an error for grad_out = [2, -1.5, 3, 0.5, -4]: AssertionError: "
        "(no message)"
    )
    assert failure.fix.startswith(
        "This is your own assert, on your line `assert (grad_out == 1).all()`. With grad_out "
        "all ones, backward gave back a gradient for x"
    )


def test_an_error_in_both_kinds_names_the_line_it_came_through():
    verdict = check_spike(spike(forward="return (x >= threshold).to(x.dtype) + nothing"))
    assert marks(verdict) == "✗○○○○"
    failure = verdict.first_failure
    assert failure.got == "forward stopped with an error: NameError: name 'nothing' is not defined"
    assert failure.fix.startswith(
        "The error came through your line `return (x >= threshold).to(x.dtype) + nothing"
    )
    assert "Read the error, fix that line." in failure.fix


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
