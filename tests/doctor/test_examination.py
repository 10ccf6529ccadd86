"""The gradient doctor against a catalogue of learner mistakes, each with its exact codes."""

import re
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable

from lessons_lib import Clamp, Cube, RoundSTE, broken_clamps
from lessons_lib.doctor.examination import CODES, LESSON_SECTIONS, check_function, default_inputs
from lessons_lib.doctor.samples import upstream_gradient
from lessons_lib.research import HardGate
from lessons_lib.running import InputError, LessonError
from tests.doctor_catalogue import BOUNDED, CORRECT, WRONG, clamp_lo_hi
from tests.learner_functions import cube, function, save_and


@pytest.mark.parametrize(
    ("fn", "reference", "grad_reference", "codes", "inputs"),
    [(*w[1:5], w[5] if len(w) > 5 else None) for w in WRONG],
    ids=[w[0] for w in WRONG],
)
def test_the_doctor_names_each_mistake_exactly(fn, reference, grad_reference, codes, inputs):
    report = check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)
    assert report.codes == codes, str(report)
    assert not report.ok


def test_a_gradient_for_a_number_names_the_input_without_a_contradictory_count():
    grad_for_lo = function("ClampGradLo", Clamp.forward, lambda ctx, g: (g, g, None))
    text = str(check_function(grad_for_lo, clamp_lo_hi, inputs=BOUNDED))
    assert "a gradient for lo (value number 2), but lo is a float, not a tensor" in text
    assert "forward has 3" not in text  # no self-contradicting count


@pytest.mark.parametrize(
    ("fn", "reference", "grad_reference", "inputs"),
    [c[1:] for c in CORRECT],
    ids=[c[0] for c in CORRECT],
)
def test_a_correct_function_gets_a_clean_bill_of_health(fn, reference, grad_reference, inputs):
    report = check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)
    assert report.ok and report.codes == [], str(report)


class Module(torch.nn.Module):
    def forward(self, x):
        return x**3


def plain_cube(x):
    return x**3


@pytest.mark.parametrize(
    ("thing", "says"),
    [
        (plain_cube, "plain Python function"),
        (Module(), "nn.Module"),
        (Module, "nn.Module"),
        (Function, "pass your subclass"),
        (3, "You passed an int"),
    ],
    ids=[
        "plain function",
        "module instance",
        "module class",
        "Function itself",
        "a number",
    ],
)
def test_anything_but_a_function_subclass_is_named_for_what_it_is(thing, says):
    report = check_function(thing, cube)
    assert report.codes == ["not-a-function"]
    assert says in str(report)


def test_an_instance_is_told_to_pass_the_class():
    with pytest.warns(DeprecationWarning):
        instance = Cube()
    assert "pass the class Cube itself" in str(check_function(instance, cube))


def test_every_code_is_in_the_catalogue_and_has_a_lesson_section():
    caught = {code for w in WRONG for code in w[4]} | {"not-a-function"}
    assert caught == set(CODES) == set(LESSON_SECTIONS)


def test_the_text_report_names_the_problem_the_evidence_and_the_fix():
    text = str(check_function(WRONG[0][1], cube))
    assert text.startswith("CubeStarter: 1 problem found\n[chain-rule] backward ignores grad_out")
    assert "at x[0, 0] = -2.5 (grad_out 1.96): expected 36.75, got 18.75" in text
    # -3.92 * 3 * 2.5**2: the true gradient for the doubled and negated grad_out
    assert "negated, at x[0, 0] = -2.5 (grad_out -3.92): expected -73.5, got 18.75" in text
    assert "How to fix it: Multiply by grad_out" in text
    assert LESSON_SECTIONS["chain-rule"] in text


def test_the_html_report_names_the_problem_in_a_box():
    page = check_function(WRONG[0][1], cube)._repr_html_()
    assert "CubeStarter: 1 problem found" in page and "(chain-rule)" in page
    assert "expected 36.75, got 18.75" in page
    assert "Read more:" in page
    assert "no problems found" in check_function(Cube, cube)._repr_html_()


def test_error_reports_quote_the_exception_not_a_traceback():
    typo = next(w[1] for w in WRONG if w[0] == "typo in forward")
    text = str(check_function(typo, cube))
    assert "forward raised NameError: name 'undefined_name' is not defined" in text
    assert "Traceback" not in text


def error_text(name: str) -> str:
    entry = next(w for w in WRONG if w[0] == name)
    return str(check_function(entry[1], entry[2]))


def test_pythons_and_on_a_mask_is_explained_with_the_elementwise_operators():
    text = error_text("Python's and on a mask of several numbers")
    assert "Boolean value of Tensor with more than one value is ambiguous" in text
    assert "Combine masks elementwise with &, | and ~" in text
    assert "(x >= 0) & (x <= 1)" in text


def test_an_operator_precedence_mask_is_explained_with_parentheses():
    """`x >= 0 & x <= 1` computes `0 & x` first, which floats refuse: the fix says why."""
    text = error_text("& before the comparisons: x >= 0 & x <= 1")
    assert "not implemented for 'Double'" in text
    assert "x >= 0 & x <= 1 means x >= (0 & x) <= 1" in text
    assert "Put each comparison in parentheses: (x >= 0) & (x <= 1)" in text


def test_an_error_sends_nobody_to_a_section_that_does_not_cover_it():
    text = error_text("Python's and on a mask of several numbers")
    assert "The walkthrough" not in text
    assert "Read more: no lesson section covers errors in your own code" in text


def test_only_a_missing_backward_is_told_to_define_one():
    """A NotImplementedError raised inside a backward that exists is not a missing backward."""

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x >= 0 | x <= 1)  # `0 | x` first: not implemented for floats

    written = function("ClampOrPrecedence", save_and(lambda x: x.clamp(0, 1)), backward)
    text = str(check_function(written, lambda x: x.clamp(0, 1)))
    assert "backward raised NotImplementedError" in text
    assert "Define a @staticmethod backward" not in text
    assert "Define a @staticmethod backward" in error_text("no backward defined")


def test_a_wrong_gradient_is_fixed_in_plain_words_then_pointed_to_gradcheck():
    """Exercise 1's Part 1 shows this report to beginners, who have not met gradcheck yet."""
    slope = function("SlopeCube", save_and(cube), lambda ctx, g: g * 3 * ctx.saved_tensors[0])
    text = str(check_function(slope, cube))
    fix = text.split("How to fix it: ")[1].split("\n")[0]
    assert fix.startswith("Work out again the slope of what forward computes")
    assert fix.endswith("(lesson 2 shows how to confirm it with gradcheck).")
    assert "float64" not in fix and "torch.autograd.gradcheck" not in fix


def test_a_gradient_that_matches_a_wrong_forward_says_fix_forward_first():
    """NoLowerBound's backward is right for its own wrong forward: gradcheck passes it, so
    "re-derive the derivative and confirm with gradcheck" would send the learner in a circle."""
    wrong_forward = broken_clamps.no_lower_bound()
    x = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(wrong_forward.apply, (x,))
    report = check_function(wrong_forward, lambda t: t.clamp(0, 1))
    assert report.codes == ["forward", "gradient"]
    gradient = report.findings[1]
    assert gradient.fix.startswith("Fix forward first")
    assert "may be right for the forward you wrote" in gradient.fix
    assert "gradcheck" in gradient.fix and "would pass it" in gradient.fix
    # found on a later sample only, the gradient finding still says it
    later = check_function(wrong_forward, lambda t: t.clamp(0, 1), inputs=torch.tensor([0.5, 2.0]))
    assert later.codes == ["forward", "gradient"]
    assert later.findings[1].fix.startswith("Fix forward first")


def test_learner_html_is_escaped():
    sneaky = function(
        "Sneaky", save_and(cube), lambda ctx, g: (_ for _ in ()).throw(ValueError("<script>"))
    )
    page = check_function(sneaky, cube)._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page


# --- robustness: no side effects, clear errors for a wrongly set-up check ----------


def test_the_doctor_leaves_global_state_and_inputs_alone():
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    torch.manual_seed(1)
    expected_next = torch.rand(1)
    torch.manual_seed(1)
    for _, fn, reference, grad_reference, _, *inputs in WRONG:
        check_function(fn, reference, grad_reference=grad_reference, inputs=(inputs or [(x,)])[0])
    assert torch.is_grad_enabled() and torch.get_default_dtype() == torch.float32
    assert torch.equal(torch.rand(1), expected_next)
    assert x.tolist() == [0.5, 2.0] and x.grad is None and x.is_leaf


def test_a_bare_tensor_is_accepted_as_the_inputs():
    assert check_function(Cube, cube, inputs=torch.tensor([1.0, 2.0])).ok


def test_integer_inputs_are_refused_with_a_plain_message():
    with pytest.raises(InputError, match=r"floating-point tensor.*torch\.int64.*x\.double\(\)"):
        check_function(Cube, cube, inputs=(torch.tensor([1, 2]),))


def test_a_broken_reference_is_the_checks_fault_and_says_so():
    with pytest.raises(LessonError, match="The reference itself failed"):
        check_function(Cube, lambda x: x @ torch.ones(7))
    with pytest.raises(LessonError, match="grad_reference itself failed"):
        check_function(RoundSTE, torch.round, grad_reference=lambda x: x)
    with pytest.raises(InputError, match="reference must be a function"):
        check_function(Cube, "x**3")


def test_lesson_errors_show_without_a_traceback_in_ipython():
    error = InputError("inputs need at least one floating-point tensor")
    assert error._render_traceback_() == [
        "InputError: inputs need at least one floating-point tensor"
    ]


def test_the_default_sample_covers_the_classic_trouble_spots():
    (x,) = default_inputs()
    values = set(x.flatten().tolist())
    assert x.dtype == torch.float64 and x.dim() == 2
    assert {0.0, 1.0, 0.5, 2.5, -0.5} <= values
    assert any(v < 0 for v in values) and any(0 < v < 1 for v in values)


def test_the_checked_text_says_where_the_doctor_looked():
    text = str(check_function(Cube, cube))
    where = "at 12 points of the sample, 32 random points in [-10, 10] and 32 points in the tails"
    assert where in text
    assert "double backward gives the reference's second derivatives" in text
    assert "the gradient scales with grad_out" in text
    assert "a non-contiguous grad_out gives the same gradient" in text


def test_a_once_differentiable_backward_is_not_checked_twice_and_the_report_says_why():
    from lessons_lib.research import CubeOnceDifferentiable

    report = check_function(CubeOnceDifferentiable, cube)
    assert report.ok
    text = str(report)
    assert "Double backward was not checked: backward is marked @once_differentiable" in text
    assert "silently zero" in text  # and says when the refusal does not fire


def numpy_exp(ctx, x):
    y = torch.from_numpy(np.exp(x.detach().numpy()))  # overflows, with a warning, at x = 1000
    ctx.save_for_backward(y)
    return y


def test_learner_warnings_on_points_the_learner_never_chose_are_silenced(recwarn):
    exp = function("NumpyExp", numpy_exp, lambda ctx, g: g * ctx.saved_tensors[0])
    assert check_function(exp, torch.exp).ok
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    with pytest.warns(RuntimeWarning, match="overflow"):  # the learner's own points still warn
        check_function(exp, torch.exp, inputs=torch.tensor([1000.0], dtype=torch.float64))


def test_benchmark_script_runs_and_prints_median_and_slowest():
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.doctor", "--repeat", "1"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    assert "median per check" in out and "slowest per check" in out and "target < 20 ms" in out


def meddling_forward(ctx, x):
    torch.set_anomaly_enabled(True)
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(123)
    ctx.save_for_backward(x)
    return x**3


def test_global_state_a_learners_forward_changes_is_restored_after_every_stage():
    """Forward runs in the engine pass, double backward and jvp: each must be undone."""
    meddler = function(
        "Meddler", meddling_forward, lambda ctx, g: g * 3 * ctx.saved_tensors[0] ** 2
    )
    torch.manual_seed(1)
    expected_next = torch.rand(1)
    torch.manual_seed(1)
    assert check_function(meddler, cube).ok
    assert not torch.is_anomaly_enabled() and torch.get_default_dtype() == torch.float32
    assert torch.equal(torch.rand(1), expected_next)


@once_differentiable
def cube_backward_helper(ctx, g):
    return g * 3 * ctx.saved_tensors[0] ** 2


def test_a_once_differentiable_helper_inside_backward_is_a_refusal_not_a_wrong_answer():
    """torch.autograd.grad can route around the refusal node; the doctor looks for it."""
    wrapped = function("CubeHelper", save_and(cube), lambda ctx, g: cube_backward_helper(ctx, g))
    report = check_function(wrapped, cube)
    assert report.ok, str(report)
    assert "Double backward was not checked" in str(report)


class ReluWithJvp(Function):
    @staticmethod
    def forward(x):
        return x.clamp(min=0)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        return g * (ctx.saved_tensors[0] >= 0)  # 1 at the kink: a valid subgradient

    @staticmethod
    def jvp(ctx, t):
        return t * (ctx.saved_tensors[0] >= 0)


class ReluWildJvpAtZero(ReluWithJvp):
    @staticmethod
    def jvp(ctx, t):
        x = ctx.saved_tensors[0]
        return torch.where(x == 0, 7 * t, t * (x > 0))  # 7 is no slope of relu at 0


def test_at_a_kink_jvp_may_push_any_one_sided_slope_but_no_other_value():
    assert check_function(ReluWithJvp, torch.relu).ok
    report = check_function(ReluWildJvpAtZero, torch.relu)
    assert report.codes == ["jvp"]
    assert "tangent at output[1, 0] (x[1, 0] = 0, tangent" in str(report)


def test_an_empty_input_is_refused_with_a_plain_message():
    with pytest.raises(InputError, match="empty"):
        check_function(Cube, cube, inputs=torch.empty(0, dtype=torch.float64))


def test_evidence_says_what_backward_wrote_into_grad_out_and_where_a_mistake_was_found():
    in_place = next(w[1] for w in WRONG if w[0] == "backward multiplies grad_out in place")
    text = str(check_function(in_place, cube))
    wrote = "grad_out at output[0, 0] (x[0, 0] = -2.5): autograd passed 1.96, backward left 36.75"
    assert wrote in text
    above_three = next(w[1] for w in WRONG if w[0] == "gradient wrong only for x > 3")
    assert "(found among the random points in [-10, 10])" in str(check_function(above_three, cube))


# --- every "expected" is the true value ------------------------------------------

EVIDENCE = re.compile(
    r"at x\[\d, \d\] = (?P<x>\S+) \(grad_out (?P<g>\S+)\): expected (?P<expected>\S+), got"
)
CUBE_CHAIN_RULE = [w for w in WRONG if w[4] == ["chain-rule"] and w[2] is cube]


@pytest.mark.parametrize("fn", [w[1] for w in CUBE_CHAIN_RULE], ids=[w[0] for w in CUBE_CHAIN_RULE])
def test_every_expected_in_chain_rule_evidence_is_grad_out_times_the_true_slope(fn):
    """Also on the line with grad_out doubled and negated: 3 x**2 times the grad_out quoted."""
    text = str(check_function(fn, cube))
    lines = [line for line in text.splitlines() if "expected" in line]
    scaling = "when grad_out was doubled and negated" in text  # not grad_out used as one number
    assert scaling == any("doubled and negated" in line for line in lines)
    for line in lines:
        found = EVIDENCE.search(line).groupdict()
        x, g, expected = (float(found[k]) for k in ("x", "g", "expected"))
        assert expected == pytest.approx(3 * x**2 * g, rel=1e-3), line


def test_a_surrogates_doubled_and_negated_evidence_expects_the_rule_for_that_grad_out():
    ones = next(w for w in WRONG if w[0] == "RoundSTE returns ones")
    text = str(check_function(ones[1], torch.round, grad_reference=ones[3]))
    assert "negated, at x[0, 0] = -2.5 (grad_out -3.92): expected -3.92, got 1" in text


# --- mutates-saved -------------------------------------------------------------------

SQUARES_SAVED_X = next(w[1] for w in WRONG if w[0] == "backward squares the saved x in place")


def test_one_training_step_with_a_backward_that_squares_its_saved_x_raises_nothing():
    """What the mutates-saved words claim, on this torch: silent once, loud the second time."""
    w = torch.tensor([2.0, -1.5], requires_grad=True)
    loss = SQUARES_SAVED_X.apply(w).sum()
    loss.backward(retain_graph=True)  # no error
    assert w.grad.tolist() == [12.0, 6.75]  # the right gradient...
    assert w.detach().tolist() == [4.0, 2.25]  # ...and the caller's w is now w**2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_mutates_saved_says_a_single_step_is_silent_names_the_input_and_the_fix():
    text = str(check_function(SQUARES_SAVED_X, cube))
    assert text.startswith("CubeSquaresSavedX: 1 problem found\n[mutates-saved] backward changed")
    assert "the saved input x in place" in text
    assert "at x[0, 0] = -2.5: backward changed it to 6.25" in text
    assert "In one training step nothing raises" in text
    assert "Only a later backward that needs the same tensor raises" in text
    assert "x.pow(2) or x * x" in text
    assert "modified by an inplace operation: [" not in text  # not the generic error
    assert LESSON_SECTIONS["mutates-saved"] in text


def test_a_change_through_data_is_said_to_escape_the_version_counter():
    through_data = next(w[1] for w in WRONG if w[0] == "backward squares the saved x through .data")
    text = str(check_function(through_data, cube))
    assert "around the version counter" in text and "Only a later backward" not in text
    w = torch.tensor([2.0], requires_grad=True)
    loss = through_data.apply(w).sum()
    loss.backward(retain_graph=True)
    loss.backward()  # no error: the second backward silently uses w**2
    assert w.grad.item() == 12.0 + 48.0


def test_a_zeroed_saved_output_is_blamed_on_backward_not_forward():
    zeroes = next(w[1] for w in WRONG if w[0] == "backward zeroes the saved output")
    text = str(check_function(zeroes, cube))
    assert "the saved output in place" in text
    assert (
        "the output at output[0, 0] (x[0, 0] = -2.5): was -15.62, backward changed it to 0" in text
    )


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


# --- double backward: the words match what happens ------------------------------------


def test_a_double_backward_that_raises_is_not_said_to_pass_with_no_error():
    raises = next(w[1] for w in WRONG if w[0] == "backward calls x.numpy() without detach")
    text = str(check_function(raises, cube))
    assert "Double backward raised RuntimeError: Can't call numpy() on Tensor" in text
    assert "with no error" not in text and "stops with this error" in text
    silent = next(w[1] for w in WRONG if w[0] == "backward detaches x")
    assert "with no error" in str(check_function(silent, cube))


def test_double_backward_and_jvp_send_a_developer_to_lesson_2_and_the_researcher_track_after():
    for name, code in (("backward detaches x", "double-backward"), ("jvp that raises", "jvp")):
        fn = next(w[1] for w in WRONG if w[0] == name)
        text = str(check_function(fn, cube))
        assert f"Read more: {LESSON_SECTIONS[code]}" in text
        assert "Read more: Lesson 2 developer track" in text
        assert "Further reading: Lesson 1 researcher track" in text
    page = check_function(fn, cube)._repr_html_()
    assert "<i>Further reading:</i> Lesson 1 researcher track" in page


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


# --- the numbers printed tell expected from got ------------------------------------

EXPECTED_GOT = re.compile(r"expected (\S+), got (\S+?),?$")


def test_every_expected_and_got_printed_read_differently():
    """The doctor flags a 1e-5 relative difference; 4 digits alone would print it as equal."""
    for _, fn, reference, grad_reference, _, *inputs in WRONG:
        text = str(
            check_function(
                fn, reference, grad_reference=grad_reference, inputs=(inputs or [None])[0]
            )
        )
        for line in text.splitlines():
            found = EXPECTED_GOT.search(line)
            if found:
                assert found[1] != found[2], line
    off = next(w[1] for w in WRONG if w[0] == "Cube: off by 1e-4 relative")
    assert "at x[0, 0] = -2.5 (grad_out 1.96): expected 36.75, got 36.754" in str(
        check_function(off, cube)
    )


# --- a complex input ---------------------------------------------------------------


def test_a_complex_input_is_refused_as_unsupported_without_advice_that_drops_its_imaginary_part():
    z = torch.tensor([1.0 + 2.0j, -0.5 + 0.3j], dtype=torch.complex128)
    with pytest.raises(InputError) as refused:
        check_function(Cube, cube, inputs=(z,))
    message = str(refused.value)
    assert "real floating-point tensors" in message and "does not support complex" in message
    assert "gradcheck" in message and "double()" not in message
    assert "only those have gradients" not in message
    # the claims: complex tensors have gradients, and .double() would drop the imaginary part
    assert z.clone().requires_grad_().requires_grad
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        assert z.double().tolist() == [1.0, -0.5]
    assert torch.autograd.gradcheck(lambda t: t**3, (z.clone().requires_grad_(),))


# --- grad_out misused, the derivative right ------------------------------------------

SIN_SUM = next(w[1] for w in WRONG if w[0] == "sin: sum of grad_out")
CUBE_MEAN = next(w[1] for w in WRONG if w[0] == "Cube: mean of grad_out")


def test_a_backward_that_sums_grad_out_is_a_chain_rule_mistake_not_a_wrong_derivative():
    text = str(check_function(SIN_SUM, torch.sin))
    assert text.startswith("SinSum: 1 problem found\n[chain-rule] backward uses grad_out as one")
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
    assert text.startswith("CubeLazy: 1 problem found\n[undefined-grad-out] backward raises when")
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


def test_cube_apply_is_examined_as_cube_itself():
    by_class, by_apply = check_function(Cube, cube), check_function(Cube.apply, cube)
    assert by_apply.codes == by_class.codes == []
    assert str(by_apply) == str(by_class)
