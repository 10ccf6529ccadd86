"""first_order: forward, backward's result and its gradients, grad_out's layout and None."""

import numpy as np
import pytest
import torch

from lessons_lib import Clamp
from lessons_lib.doctor.examination import check_function
from lessons_lib.doctor.findings import LESSON_SECTIONS
from lessons_lib.doctor.samples import default_inputs, upstream_gradient
from lessons_lib.research import HardGate
from tests.doctor_catalogue import CORRECT, WRONG
from tests.doctor_catalogue.results import BOUNDED
from tests.doctor_catalogue.shared import clamp_lo_hi
from tests.learner_functions import cube, function, save_and


def test_a_gradient_for_a_number_names_the_input_without_a_contradictory_count():
    grad_for_lo = function("ClampGradLo", Clamp.forward, lambda ctx, g: (g, g, None))
    text = str(check_function(grad_for_lo, clamp_lo_hi, inputs=BOUNDED))
    assert "a gradient for lo (value number 2), but lo is a float, not a tensor" in text
    assert "forward has 3" not in text  # no self-contradicting count


# --- non-finite: what was computed there ------------------------------------------


def test_a_nan_from_a_fractional_power_is_named_and_not_blamed_on_overflow():
    fractional = next(w[1] for w in WRONG if w[0] == "x**2 as y**(2/3): NaN for negative y")
    text = str(check_function(fractional, cube))
    assert "The gradient for x is NaN where the true gradient is finite" in text
    assert "at x[0, 0] = -2.5 (output -15.62, grad_out 1.96): expected 36.75, got nan" in text
    assert "there, backward computed (-15.62) ** 0.6667 = nan: a negative number to a" in text
    diagnosis = text.split("  Read more")[0]  # the section's own title may say overflow
    assert "overflow" not in diagnosis and "sigmoid" not in diagnosis
    assert "3 * x**2" in diagnosis


def test_an_overflow_is_named_with_the_operation_that_overflowed():
    sigmoid = next(w[1] for w in WRONG if w[0].startswith("naive sigmoid"))
    text = str(check_function(sigmoid, torch.sigmoid))
    assert "computed exp(1000) = inf: an overflow" in text and "then inf / inf = nan" in text
    assert "s * (1 - s)" in text


def test_zero_over_zero_is_named_with_the_division():
    divides = next(w[1] for w in WRONG if w[0] == "0 / 0 at x = 0")
    text = str(check_function(divides, cube))
    assert "at x[1, 0] = 0 (output 0, grad_out 1.47): expected 0, got nan" in text
    assert "there, backward computed 0 / 0 = nan" in text
    assert "overflow" not in text.split("  Read more")[0]


def slope_in_numpy_infinite_at_zero(ctx, g):
    x = ctx.saved_tensors[0].numpy()
    return g * torch.from_numpy(np.where(x == 0, np.inf, 3 * x**2))  # inf at 0, made in NumPy


def test_a_non_finite_gradient_torch_cannot_trace_gets_the_usual_causes_for_what_was_seen():
    inf_in_numpy = function("InfInNumpy", save_and(cube), slope_in_numpy_infinite_at_zero)
    text = str(check_function(inf_in_numpy, cube))
    assert "The gradient for x is infinite where the true gradient is finite" in text
    assert "backward computed" not in text  # NumPy's steps are invisible to torch
    fix = next(line for line in text.splitlines() if "How to fix it" in line)
    assert "The usual causes of inf: an overflow" in fix and "NaN" not in fix


# --- non-contiguous grad_out --------------------------------------------------------

VIEWS_GRAD_OUT = next(w[1] for w in WRONG if w[0] == "backward views grad_out flat")


def test_a_backward_that_views_grad_out_fails_in_training_once_the_output_is_transposed():
    """What the non-contiguous-grad-out words claim, on this torch."""
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    VIEWS_GRAD_OUT.apply(x).sum().backward()  # a contiguous-enough grad_out: fine
    for downstream in (lambda y: (y.t() * torch.ones(4, 3)).sum(), lambda y: y.sum(0).pow(2).sum()):
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            downstream(VIEWS_GRAD_OUT.apply(x)).backward()
    reshapes = next(c[1] for c in CORRECT if c[0] == "grad_out reshaped, not viewed")
    (reshapes.apply(x).t() * torch.ones(4, 3)).sum().backward()


def test_gradcheck_and_gradgradcheck_pass_a_backward_that_views_grad_out():
    """Why the doctor sends its own non-contiguous grad_out: torch's checks do not catch this."""
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(VIEWS_GRAD_OUT.apply, (x,))
    assert torch.autograd.gradgradcheck(
        VIEWS_GRAD_OUT.apply, (x,), gen_non_contig_grad_outputs=True
    )


def test_non_contiguous_grad_out_quotes_the_real_error_and_the_fix():
    text = str(check_function(VIEWS_GRAD_OUT, cube))
    assert "[non-contiguous-grad-out] backward raises when grad_out is not contiguous." in text
    assert "stored transposed" in text and "RuntimeError: view size is not compatible" in text
    assert "grad_out.reshape(...)" in text and "grad_out.contiguous()" in text
    assert LESSON_SECTIONS["non-contiguous-grad-out"] in text


def test_a_1d_function_gets_a_strided_grad_out_and_its_different_gradient_is_shown():
    kernel = next(w for w in WRONG if w[0].startswith("a 1-D Function reading"))
    text = str(check_function(kernel[1], cube, inputs=kernel[5]))
    assert "every other element of a longer tensor" in text
    assert (
        "at x = -2: with a contiguous grad_out 23.52, with a non-contiguous one 23.52" not in text
    )
    assert "at x = -1.333: with a contiguous grad_out" in text


def test_a_backward_that_raises_for_a_negative_grad_out_is_an_error_not_a_clean_bill():
    positive_only = next(w[1] for w in WRONG if w[0] == "backward refuses a negative grad_out")
    text = str(check_function(positive_only, cube))
    assert "backward raised ValueError: grad_out must be positive" in text
    assert "on the sample, with grad_out doubled and negated" in text


# --- grad_out misused, the derivative right ------------------------------------------

SIN_SUM = next(w[1] for w in WRONG if w[0] == "sin: sum of grad_out")


CUBE_MEAN = next(w[1] for w in WRONG if w[0] == "Cube: mean of grad_out")


def test_a_backward_that_sums_grad_out_is_a_chain_rule_mistake_not_a_wrong_derivative():
    text = str(check_function(SIN_SUM, torch.sin))
    assert text.startswith(
        "SinSum: 1 problem found (checked in float64)\n[chain-rule] backward uses grad_out as one"
    )
    assert "times 15.8, the sum of grad_out" in text
    assert "at x[0, 0] = -2.5 (grad_out 1.96): expected -1.57, got -12.66" in text
    assert "with a grad_out of all ones, the right gradient is -0.8011; backward gave 15.8" in text
    assert "Work out again the slope" not in text and "use grad_out element by element" in text
    assert round(float(upstream_gradient(default_inputs()[0], 0).sum()), 2) == 15.8


def test_a_backward_using_the_mean_of_grad_out_is_named_and_right_for_a_grad_out_of_ones():
    """What the words claim: .sum().backward() sends all ones, and then the gradient is right."""
    text = str(check_function(CUBE_MEAN, cube))
    assert "[chain-rule] backward uses grad_out as one number" in text
    assert "the mean of grad_out" in text
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    CUBE_MEAN.apply(x).sum().backward()
    assert torch.allclose(x.grad, 3 * x.detach() ** 2)
    (uneven,) = torch.autograd.grad(CUBE_MEAN.apply(x), x, torch.tensor([1.0, 2.0, 3.0]).double())
    assert not torch.allclose(uneven, torch.tensor([1.0, 2.0, 3.0]).double() * 3 * x.detach() ** 2)


def test_a_wrong_derivative_with_grad_out_used_elementwise_is_still_a_gradient_mistake():
    for name in ("Cube: forgot the square", "Cube: forgot the 3", "Clamp01: no mask at all"):
        entry = next(w for w in WRONG if w[0] == name)
        assert check_function(entry[1], entry[2]).codes == ["gradient"], name


def test_an_ignored_second_output_is_named_with_every_grad_out_shown():
    ignores = next(w[1] for w in WRONG if w[0] == "two outputs, the second's grad_out ignored")
    x = default_inputs()[0]
    text = str(check_function(ignores, lambda t: (t**2, t**3)))
    assert "[chain-rule] backward ignores the grad_out of output 1 (g3 in backward)" in text
    g0, g1 = upstream_gradient(x, 0)[0, 0].item(), upstream_gradient(x, 1)[0, 0].item()
    expected = 2 * -2.5 * g0 + 3 * 2.5**2 * g1
    assert f"at x[0, 0] = -2.5 (grad_out 0 {g0:.4g}, grad_out 1 {g1:.4g}): expected " in text
    assert f"expected {expected:.4g}, got {2 * -2.5 * g0:.4g}" in text
    assert "with the grad_out of output 1 set to zero, the intended gradient is -9.8" in text
    assert "Work out again the slope" not in text


# --- non-finite: read more only where a section covers the cause ----------------------


def test_a_nan_from_a_fractional_power_is_not_sent_to_the_overflow_section():
    fractional = next(w[1] for w in WRONG if w[0] == "x**2 as y**(2/3): NaN for negative y")
    text = str(check_function(fractional, cube))
    assert "3.3 A numerically superior hand derivative" not in text
    assert "Read more: no lesson section covers this cause of a NaN or an infinity" in text
    sigmoid = next(w[1] for w in WRONG if w[0].startswith("naive sigmoid"))
    assert (
        "Read more: Lesson 1 researcher track, “3.3 A numerically superior hand derivative”"
        in str(check_function(sigmoid, torch.sigmoid))
    )


# --- undefined grad_out -----------------------------------------------------------------

LAZY = next(w[1] for w in WRONG if w[0] == "set_materialize_grads(False), no None check")


def test_a_backward_that_raises_on_a_none_grad_out_is_found_as_gradcheck_finds_it():
    text = str(check_function(LAZY, cube))
    assert text.startswith(
        "CubeLazy: 1 problem found (checked in float64)\n[undefined-grad-out] backward raises when"
    )
    assert "with grad_out None, backward raised TypeError: unsupported operand" in text
    assert "if grad_out is None: return None" in text
    assert LESSON_SECTIONS["undefined-grad-out"] in text
    # the claims: gradcheck's default check raises the same, and so does training when the
    # step after it returns None for its output
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(TypeError, match="NoneType"):
        torch.autograd.gradcheck(LAZY.apply, (x,))
    with pytest.raises(TypeError, match="NoneType"):
        HardGate.apply(x, LAZY.apply(x)).sum().backward()


def test_with_several_outputs_each_undefined_grad_out_is_tried_and_named():
    lazy_two = next(w[1] for w in WRONG if w[0].startswith("two outputs, materialization off"))
    text = str(check_function(lazy_two, lambda t: (t**2, t**3)))
    assert "backward raises when the grad_out of output 0 (g2 in backward) is None." in text


def test_a_backward_inventing_a_gradient_for_a_none_grad_out_is_found():
    def backward(ctx, g):
        x = ctx.saved_tensors[0]
        return torch.ones_like(x) if g is None else g * 3 * x**2

    forward = next(w[1] for w in WRONG if w[0].startswith("set_materialize")).forward
    invents = function("CubeInvents", forward, backward)
    report = check_function(invents, cube)
    assert report.codes == ["undefined-grad-out"]
    assert "backward returns a non-zero gradient for x when grad_out is undefined" in str(report)


# --- a gradient no closer than a finite difference gets -----------------------------


def test_a_finite_difference_backward_passes_with_one_note_of_its_largest_error():
    from lessons_lib.checking_research import CubeByFiniteDifference

    report = check_function(CubeByFiniteDifference, cube)
    assert report.ok and report.codes == []
    (note,) = [n for n in report.notes if "finite difference" in n]
    error = float(note.split("by up to ")[1].split(" times")[0])
    assert 1e-10 < error < 1e-5  # within the doctor's tolerance, above a formula's accuracy


def test_the_finite_difference_note_is_for_float64_only():
    from lessons_lib.checking_research import CubeByFiniteDifference

    float32 = tuple(a.float() for a in default_inputs())
    report = check_function(CubeByFiniteDifference, cube, inputs=float32)
    assert report.codes == ["gradient"]  # in float32 the difference is simply wrong
    assert not [n for n in report.notes if "finite difference" in n]
