"""evidence: every line the doctor quotes places the mistake and tells expected from got."""

import re

import pytest
import torch

from lessons_lib.doctor.compare import close
from lessons_lib.doctor.evidence import distinct, evidence_lines
from lessons_lib.doctor.examination import check_function
from lessons_lib.doctor.findings import LESSON_SECTIONS
from tests.doctor_catalogue import WRONG
from tests.learner_functions import cube

F64 = torch.float64


def test_evidence_lines_quote_at_most_three_places_as_x_expected_got():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=F64)
    lines = evidence_lines(x > 0, (x,), ["x"], 3 * x**2, torch.full_like(x, 4.0), at=0)
    assert lines == (
        "at x = 1: expected 3, got 4",
        "at x = 2: expected 12, got 4",
        "at x = 3: expected 27, got 4",
    )


def test_evidence_lines_add_the_prefix_and_grad_out_and_subscript_a_grid():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64)
    wrong = torch.tensor([[False, True], [False, False]])
    grad_out = torch.full_like(x, 1.5)
    lines = evidence_lines(
        wrong,
        (x,),
        ["x"],
        3 * x**2,
        torch.zeros_like(x),
        at=0,
        prefix="d/dx ",
        quotes=(("grad_out", grad_out), ("direction", None)),
    )
    assert lines == ("d/dx at x[0, 1] = 2 (grad_out 1.5): expected 12, got 0",)


def test_output_shaped_evidence_is_placed_by_output_with_the_input_beside_it():
    """A sort's tangent at output[1] is not 'at w = 2': the output position comes first."""
    w = torch.tensor([1.0, 2.0], dtype=F64)
    wrong = torch.tensor([False, True])
    expected, got = torch.tensor([3.0, 12.0]), torch.tensor([3.0, 4.0])
    assert evidence_lines(wrong, (3, w), ["n", "w"], expected, got) == (
        "at output[1] (w = 2): expected 12, got 4",
    )
    assert evidence_lines(wrong, (3, w), ["n", "w"], expected, got, at=1) == (
        "at w = 2: expected 12, got 4",
    )
    total = (torch.tensor([True]), (w,), ["w"], torch.tensor([6.0]), torch.tensor([0.0]))
    assert evidence_lines(*total) == ("at output[0]: expected 6, got 0",)
    assert evidence_lines(*total, output=1) == ("at output 1[0]: expected 6, got 0",)


def test_evidence_lines_word_the_two_values_as_told_when_expected_would_mislead():
    x = torch.tensor([1.0, 2.0], dtype=F64)
    lines = evidence_lines(x > 1, (x,), ["x"], x, x**2, at=0, says="backward changed it to {got}")
    assert lines == ("at x = 2: backward changed it to 4",)


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        (36.75, 18.75, ("36.75", "18.75")),  # 4 digits tell them apart: kept
        (36.75, 36.75 * 1.0001, ("36.75", "36.754")),  # 1e-4 relative: one more digit
        (3.57, 3.57 * (1 + 2e-5), ("3.57", "3.5701")),
        (1.0, 1.0 + 2**-52, ("1", "1.0000000000000002")),  # the closest doubles: 17 digits
        (36.75, float("nan"), ("36.75", "nan")),
    ],
)
def test_distinct_prints_4_digits_or_the_fewest_that_tell_two_values_apart(a, b, shown):
    assert distinct(a, b) == shown


def test_evidence_never_prints_expected_and_got_alike_when_they_differ_beyond_the_tolerance():
    """rtol is 1e-5: a gradient off by 1e-4 relative is flagged, so it must read differently."""
    x = torch.tensor([-2.5, -1.5], dtype=F64)
    want = 3 * x**2
    got = 3.0003 * x**2
    wrong = ~close(got, want)
    assert wrong.all()
    lines = evidence_lines(wrong, (x,), ["x"], want, got, at=0)
    assert lines == (
        "at x = -2.5: expected 18.75, got 18.752",
        "at x = -1.5: expected 6.75, got 6.751",  # 4 digits already differ
    )


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
    assert text.startswith(
        "CubeSquaresSavedX: 1 problem found (checked in float64)\n[mutates-saved] backward changed"
    )
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
