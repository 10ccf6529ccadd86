"""The gradient doctor against a catalogue of learner mistakes, each with its exact codes."""

import subprocess
import sys

import numpy as np
import pytest
import torch
from torch.autograd import Function

from lessons_lib import Cube, RoundSTE, broken_clamps
from lessons_lib.doctor.examination import check_function
from lessons_lib.doctor.findings import CODES, LESSON_SECTIONS
from lessons_lib.doctor.samples import default_inputs
from lessons_lib.running import InputError, LessonError
from tests.doctor_catalogue import CORRECT, WRONG
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


@pytest.mark.parametrize(
    ("fn", "reference", "grad_reference", "inputs"),
    [c[1:] for c in CORRECT],
    ids=[c[0] for c in CORRECT],
)
def test_a_correct_function_gets_a_clean_bill_of_health(fn, reference, grad_reference, inputs):
    report = check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)
    assert report.ok and report.codes == [], str(report)
    assert not [note for note in report.notes if "finite difference" in note], str(report)


class Module(torch.nn.Module):
    def forward(self, x):
        return x**3


def plain_cube(x):
    return x**3


@pytest.mark.parametrize(
    ("thing", "says"),
    [
        (plain_cube, "You passed the function plain_cube, not"),
        (Module(), "nn.Module"),
        (Module, "nn.Module"),
        (Function, "pass your subclass"),
        (3, "You passed the number 3, not"),
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
    assert gradient.fix.startswith("Make forward and the reference agree first")
    assert "may be right for the forward you wrote" in gradient.fix
    assert "gradcheck" in gradient.fix and "would pass it" in gradient.fix
    # found on a later sample only, the gradient finding still says it
    later = check_function(wrong_forward, lambda t: t.clamp(0, 1), inputs=torch.tensor([0.5, 2.0]))
    assert later.codes == ["forward", "gradient"]
    assert later.findings[1].fix.startswith("Make forward and the reference agree first")


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


def test_an_empty_input_is_refused_with_a_plain_message():
    with pytest.raises(InputError, match="empty"):
        check_function(Cube, cube, inputs=torch.empty(0, dtype=torch.float64))


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


def test_cube_apply_is_examined_as_cube_itself():
    by_class, by_apply = check_function(Cube, cube), check_function(Cube.apply, cube)
    assert by_apply.codes == by_class.codes == []
    assert str(by_apply) == str(by_class)
