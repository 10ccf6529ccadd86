"""Messages fresh readers found saying what did not happen, each pinned as a plain test: the
verdict must state the fact the check recorded (what was passed, what forward saved, which
number backward multiplied by, which check ran), never a guess from a matching value."""

import warnings

import pytest
import torch

from lessons_lib import (
    Clamp01,
    Cube,
    RoundSTE,
    check_cube,
    check_cube_grad,
    check_edge_test,
    check_function,
    check_my_checks,
    check_nudge,
    check_straight_through,
    show_source,
)
from lessons_lib.broken_clamps import CORRECT
from lessons_lib.running import LessonError
from tests.exercises.backward_pass.learners import beginners_cube, cell


def _cube(saved_line: str, forward_saves: bool = True) -> type:
    """The starter Cube, fixed, with `saved_line` reading the notepad (and forward saving or not)."""
    forward = "ctx.save_for_backward(x)" if forward_saves else "pass"
    return beginners_cube("return grad_out * 3 * x**2", saved=saved_line, forward=forward)


def _marks(check: object) -> dict[str, str]:
    """Each case line's mark (✓, ✗ or ○), by the case's name."""
    return {c.name: c.mark for c in check.cases}


def test_a_test_rejecting_a_kink_value_leaves_its_catches_unchecked_but_judges_its_grad_out():
    """Points exactly at 0 and 1 fail the strict-mask Clamp01: what the test would catch is not
    checked (neither ✓ nor ✗), while the four different grad_outs it sent get their ✓."""

    def my_edge_test(Clamp01Candidate):
        x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
        Clamp01Candidate.apply(x).backward(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
        return torch.equal(x.grad, torch.tensor([0.0, 2.0, 3.0, 4.0, 0.0]))

    check = check_edge_test(my_edge_test)
    marks = _marks(check)
    assert marks["catches a backward that lets every gradient through"] == "○"
    assert marks["sends each point its own upstream gradient"] == "✓"
    assert "not checked yet: your test fails a correct Clamp01" in str(check)
    assert str(check).splitlines()[0].endswith("5 not checked yet")


def test_a_test_that_raises_gets_no_tick_for_giving_back_true_or_false():
    def my_edge_test(Clamp01Candidate):
        x = torch.tensor([-1, 0, 1, 2], requires_grad=True)  # integers cannot require grad
        return x is not None

    check = check_edge_test(my_edge_test)
    assert _marks(check)["my_edge_test gives back True or False"] == "○"
    assert "✓ my_edge_test gives back True or False" not in str(check)
    assert _marks(check)["sends each point its own upstream gradient"] == "○"


@pytest.mark.parametrize("line", ["x = ctx.saved_tensors[0]", "(x,) = ctx.saved_tensors"])
def test_a_forward_that_saved_nothing_is_told_so(line):
    check = check_cube(_cube(line, forward_saves=False))
    fix = check.first_failure.fix
    assert fix.startswith("forward saved nothing") and "ctx.save_for_backward(x)" in fix
    assert "a group (a tuple)" not in fix and "Only its last line" not in fix
    finding = check_function(_cube(line, forward_saves=False), lambda x: x**3).findings[0]
    assert finding.fix.startswith("forward saved nothing") and line in finding.evidence[-1]


def test_a_slope_times_the_sum_of_grad_out_names_the_sum_not_a_number_written_in():
    fix = check_cube(beginners_cube("return 3 * x**2 * grad_out.sum()")).first_failure.fix
    assert "the sum of grad_out, 11.5," in fix and "you wrote in" not in fix


@pytest.mark.parametrize(
    ("check", "passed", "says"),
    [
        (check_straight_through, 5, "you passed the number 5; check_straight_through wants"),
        (check_cube, 5, "you passed the number 5; check_cube wants your Cube class"),
        (check_straight_through, torch.round, "you passed the built-in function torch.round;"),
        (check_nudge, 5, "you passed the number 5; check_nudge wants your function my_nudge"),
        (check_cube, None, "you passed None; check_cube wants"),
    ],
    ids=["round-5", "cube-5", "round-torch.round", "nudge-5", "cube-None"],
)
def test_a_wrong_argument_is_named_as_what_it_is(check, passed, says):
    text = str(check(passed))
    assert says in text and "\n" not in text
    for false in ("you passed your class", "you passed your function", "result of calling"):
        assert false not in text
    assert "plain Python function" not in text


def test_a_missing_argument_or_reference_is_one_line_not_a_type_error():
    assert str(check_cube()).startswith("check_cube: you passed nothing;")
    with pytest.raises(LessonError, match="needs a reference after your Function"):
        check_function(Cube)


def test_a_direct_call_torch_refuses_gets_its_plain_english_first():
    def my_edge_test(Clamp01Candidate):
        x = torch.tensor([-1, 0, 1, 2], requires_grad=True)
        return torch.equal(Clamp01Candidate.apply(x), x)

    from lessons_lib.friendly import explain_error

    with pytest.raises(RuntimeError) as raised:
        my_edge_test(Clamp01)
    lines = explain_error(raised.value, ["<the full traceback>"])
    assert lines[1].startswith("In plain English: PyTorch gives gradients only to tensors of")
    assert lines[-1] == "<the full traceback>"


def test_a_function_called_without_apply_is_explained():
    from lessons_lib.friendly import explain_error

    typo = _cube("(x,) = ctx.saved_tensors")
    with warnings.catch_warnings(), pytest.raises(TypeError) as raised:
        warnings.simplefilter("ignore")
        typo(torch.tensor(3.0)) - typo(torch.tensor(2.0))
    assert "Run it with Cube.apply(...)" in explain_error(raised.value, [])[1]


def test_the_slope_given_as_the_reference_is_not_blamed_on_forward():
    report = check_function(Cube, lambda x: 3 * x**2)
    forward, gradient = report.findings[:2]
    assert "The reference must compute what forward should" in forward.fix
    assert not gradient.fix.startswith("Fix forward first")


def test_the_clean_bill_says_what_it_compared_with_and_where_it_accepted_a_kink():
    strict = check_function(CORRECT[2].make(), lambda t: t.clamp(0, 1)).checked
    assert "except at 2 points where the reference has a kink (0, 1)" in strict
    declared = check_function(RoundSTE, torch.round, grad_reference=lambda x, g: g).checked
    assert "gradients match grad_reference (the rule you declared)" in declared
    single = check_function(Cube, lambda x: x**3, inputs=(torch.tensor([2.0]),)).checked
    assert "1 point of your inputs" in single and "1 points" not in single


def test_an_instance_where_the_class_is_wanted_is_named():
    namespace = cell(
        """
        class YourClamp01(torch.autograd.Function):
            pass
        """
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        instance = namespace["YourClamp01"]()
        text = str(check_my_checks(instance))
        cube_grad = cell("def cube_grad(x):\n    return x", Cube=Cube())["cube_grad"]
    assert text.startswith("check_my_checks: you passed an instance of YourClamp01,")
    assert "This Clamp01 is correct" not in text
    got = [c.got for c in check_cube_grad(cube_grad).cases if not c.passed]
    assert any("Cube is an instance of Cube, Cube(), not a Function class" in g for g in got)
    assert not any("no Function named Cube" in g for g in got)


def test_a_learners_own_raise_is_named_as_theirs():
    cube_grad = cell(
        """
        def cube_grad(x):
            if x.dtype != torch.float32:
                raise TypeError("float32 only")
            copy = x.detach().requires_grad_(True)
            with torch.enable_grad():
                (grad,) = torch.autograd.grad(Cube.apply(copy).sum(), copy)
            return grad
        """
    )["cube_grad"]
    fixes = [c.fix for c in check_cube_grad(cube_grad).cases if not c.passed]
    assert any(f.startswith("This is your own raise, on the line raise TypeError(") for f in fixes)


def test_an_unasserted_gradcheck_is_said_once_not_in_every_missed_bug():
    my_checks = cell(
        """
        from torch.autograd import gradcheck

        def my_checks(Clamp01Candidate):
            x = torch.tensor([-0.5, 0.3, 0.7, 1.5], dtype=torch.float64, requires_grad=True)
            gradcheck(Clamp01Candidate.apply, (x,), raise_exception=False)
        """
    )["my_checks"]
    text = str(check_my_checks(my_checks))
    assert text.count("returns False instead of raising") == 1


@pytest.mark.parametrize(
    ("shown", "says"),
    [(5, "you passed the number 5"), (Cube.apply, None)],
    ids=["number", "apply"],
)
def test_show_source_refuses_in_one_line_and_reads_apply_as_its_function(shown, says):
    if says is None:
        assert show_source(shown).data.startswith("class Cube(")
    else:
        with pytest.raises(LessonError, match=says):
            show_source(shown)


def test_show_source_on_a_class_without_source_says_why_in_one_line():
    defined_here = type("MyCube", (torch.autograd.Function,), {})
    with pytest.raises(LessonError, match="not available to read back"):
        show_source(defined_here)


def test_a_hint_level_that_is_not_one_is_said():
    text = str(check_cube(Cube, hint="yes"))
    assert "hint must be a whole number from 0 to 3; you passed the string 'yes'." in text


def test_a_backward_reading_the_notebooks_x_is_told_so():
    """Without (x,) = ctx.saved_tensors, backward reads the notebook's own x: say that, not that
    grad_out needs multiplying."""
    namespace = cell(
        """
        x = torch.tensor([2.0])

        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, grad_out):
                return grad_out * 3 * x**2
        """
    )
    fix = check_cube(namespace["Cube"]).first_failure.fix
    assert fix.startswith("backward used x, a tensor from outside it: the notebook's own x, [2]")


def test_a_misspelt_argument_in_a_test_is_a_spelling_slip_not_a_cell_to_run():
    def my_edge_test(Clamp01Candidate):
        x = torch.tensor([-0.5, 0.25, 0.75, 1.5], requires_grad=True)
        Clamp01Candidat.apply(x).backward(torch.tensor([1.0, 2.0, 3.0, 4.0]))  # noqa: F821
        return True

    fix = check_edge_test(my_edge_test).first_failure.fix
    assert "Did you mean Clamp01Candidate, the argument on your def line?" in fix
