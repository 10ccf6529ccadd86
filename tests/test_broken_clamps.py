"""The broken-Clamp01 catalogue: each specimen is wrong in exactly the way its entry says,
the correct ones are correct (either gradient at exactly 0 and 1), and gradcheck and the
doctor see what lesson 2's table says."""

import warnings

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.autograd import gradcheck, gradgradcheck
from torch.autograd.gradcheck import GradcheckError

from lessons_lib import Clamp01, broken_clamps, check_function
from lessons_lib.broken_clamps import (
    ABS_GRAD_OUT,
    CATALOGUE,
    CORRECT,
    EXERCISE_BUGS,
    RELU_MASK,
    clamp01_leaky,
    clamp01_wrong_fake,
    wrong_while_hypothesis_draws,
)
from lessons_lib.running import is_function
from tests.torch_conventions import torch_clamp_at_a_bound

BUGS = {bug.key: bug for bug in EXERCISE_BUGS}
CORRECT_IDS = ["course", "saves-input", "strict-mask"]
POINTS = (-1.5, -0.5, 0.25, 0.75, 1.5)  # the developer track's points: every stretch, no kink
GRAD_OUT = (0.5, 2.0, -1.0, 3.0, 0.25)


def reference(x):
    return x.clamp(0, 1)


def run(fn, values, grad_out):
    """forward's values, the gradient for grad_out, and grad_out as backward left it."""
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    g = torch.tensor(grad_out, dtype=torch.float64)
    y = fn.apply(x)
    (grad,) = torch.autograd.grad(y, x, g)
    return y.detach().tolist(), grad.tolist(), g.tolist()


def rule(values, grad_out, at_edges="grad_out"):
    """What a correct Clamp01 gives: torch.clamp forward, grad_out inside (0, 1), 0 outside
    [0, 1], and at exactly 0 and 1 either grad_out or 0 (`at_edges`), both valid at a kink."""
    edge = (lambda g: g) if at_edges == "grad_out" else (lambda g: 0.0)
    return (
        [min(max(v, 0.0), 1.0) for v in values],
        [
            g if 0 < v < 1 else edge(g) if v in (0, 1) else 0.0
            for v, g in zip(values, grad_out, strict=True)
        ],
        list(grad_out),
    )


def test_the_catalogue_has_eight_bugs_with_unique_keys_and_words_for_each():
    assert [bug.key for bug in CATALOGUE] == [
        "passes-everything",
        "drops-grad-out",
        "inverted-mask",
        "hardtanh-mask",
        "no-lower-bound",
        "zero-at-one",
        "writes-grad-out",
        "python-and",
    ]
    for bug in EXERCISE_BUGS:
        assert bug.wrong and bug.catch.endswith(".")


def test_the_exercise_adds_two_bugs_after_the_catalogue_which_stays_as_lesson_2_shows_it():
    assert (*CATALOGUE, RELU_MASK, ABS_GRAD_OUT) == EXERCISE_BUGS
    assert (RELU_MASK.key, ABS_GRAD_OUT.key) == ("relu-mask", "abs-grad-out")
    assert len(set(BUGS)) == len(EXERCISE_BUGS) == 10


@pytest.mark.parametrize("make", [b.make for b in EXERCISE_BUGS] + [c.make for c in CORRECT])
def test_every_factory_returns_a_fresh_function_class_on_each_call(make):
    first, second = make(), make()
    assert is_function(first) and is_function(second)
    assert first is not second


def test_no_function_class_sits_in_the_module_itself():
    """So the oracle list of test_checks_oracles.py needs no entry for a deliberate mistake."""
    defined_here = [
        v
        for v in vars(broken_clamps).values()
        if is_function(v) and v.__module__ == broken_clamps.__name__
    ]
    assert defined_here == []


@pytest.mark.parametrize("correct", CORRECT, ids=CORRECT_IDS)
def test_the_correct_clamps_pass_the_doctor_gradcheck_and_gradgradcheck(correct):
    fn = correct.make()
    assert check_function(fn, reference).ok
    x = torch.tensor(POINTS, dtype=torch.float64, requires_grad=True)
    assert gradcheck(fn.apply, (x,)) and gradgradcheck(fn.apply, (x,))


@pytest.mark.parametrize("correct", CORRECT, ids=CORRECT_IDS)
@given(pairs=st.lists(st.tuples(st.floats(-3, 3), st.floats(-2, 2)), min_size=1, max_size=12))
def test_the_correct_clamps_follow_the_rule_everywhere_edges_included(correct, pairs):
    values, grad_out = zip(*pairs, strict=True)
    assert run(correct.make(), values, grad_out) == rule(values, grad_out, correct.at_edges)


def test_the_correct_clamps_differ_only_at_exactly_0_and_1_as_their_entries_say():
    values = (-0.5, 0.0, 0.5, 1.0, 1.5)
    grad_out = (2.0, 3.0, 4.0, 5.0, 6.0)
    grads = {c.at_edges: run(c.make(), values, grad_out)[1] for c in CORRECT}
    assert grads == {"grad_out": [0.0, 3.0, 4.0, 5.0, 0.0], "0": [0.0, 0.0, 4.0, 0.0, 0.0]}
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    (torchs,) = torch.autograd.grad(x.clamp(0, 1), x, torch.tensor(grad_out, dtype=x.dtype))
    assert torchs.tolist() == grads[torch_clamp_at_a_bound()]  # torch.clamp's, per release


def test_the_course_copy_behaves_as_the_course_clamp01():
    copy = broken_clamps.course_clamp01()
    assert issubclass(copy, Clamp01) and copy.__name__ == "Clamp01"


# --- each bug is the one its entry names --------------------------------------------------

VALUES = (-1.5, -0.5, 0.0, 0.5, 1.0, 1.5)
UPSTREAM = (0.5, 2.0, -1.0, 3.0, 0.25, 4.0)
RIGHT = rule(VALUES, UPSTREAM)


def test_passes_everything_lets_grad_out_through_outside_the_range():
    forward, grad, _ = run(BUGS["passes-everything"].make(), VALUES, UPSTREAM)
    assert forward == RIGHT[0] and grad == list(UPSTREAM)


def test_drops_grad_out_returns_the_mask_whatever_grad_out_is():
    forward, grad, _ = run(BUGS["drops-grad-out"].make(), VALUES, UPSTREAM)
    assert forward == RIGHT[0] and grad == [0.0, 0.0, 1.0, 1.0, 1.0, 0.0]


def test_inverted_mask_lets_through_exactly_what_the_clamp_blocks():
    forward, grad, _ = run(BUGS["inverted-mask"].make(), VALUES, UPSTREAM)
    assert forward == RIGHT[0] and grad == [0.5, 2.0, 0.0, 0.0, 0.0, 4.0]


def test_hardtanh_mask_leaks_only_between_minus_one_and_zero():
    forward, grad, _ = run(BUGS["hardtanh-mask"].make(), VALUES, UPSTREAM)
    wrong = [i for i, (g, r) in enumerate(zip(grad, RIGHT[1], strict=True)) if g != r]
    assert forward == RIGHT[0] and wrong == [1] and grad[1] == 2.0


def test_no_lower_bound_keeps_negatives_and_its_backward_agrees():
    forward, grad, _ = run(BUGS["no-lower-bound"].make(), VALUES, UPSTREAM)
    assert forward == [-1.5, -0.5, 0.0, 0.5, 1.0, 1.0]
    assert grad == [0.5, 2.0, -1.0, 3.0, 0.25, 0.0]  # the derivative of that forward


def test_zero_at_one_is_wrong_at_exactly_one_and_nowhere_else():
    forward, grad, _ = run(BUGS["zero-at-one"].make(), VALUES, UPSTREAM)
    assert forward == [0.0, 0.0, 0.0, 0.5, 0.0, 1.0] and grad == RIGHT[1]


def test_writes_grad_out_gives_right_values_but_changes_grad_out():
    forward, grad, after = run(BUGS["writes-grad-out"].make(), VALUES, UPSTREAM)
    assert forward == RIGHT[0] and grad == RIGHT[1] and after != list(UPSTREAM)


def test_writes_grad_out_is_refused_after_a_sum_of_several_elements():
    x = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        BUGS["writes-grad-out"].make().apply(x).sum().backward()


def test_python_and_is_right_for_one_number_and_raises_for_several():
    fn = BUGS["python-and"].make()
    for value in (-0.5, 0.5, 1.5):
        assert run(fn, (value,), (2.0,)) == rule((value,), (2.0,))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value"):
        fn.apply(torch.tensor([0.5, 1.5]))


# --- what gradcheck and the doctor see: the developer track's table -----------------------

TABLE = {
    "passes-everything": ("fails", ["gradient"]),
    "drops-grad-out": ("fails", ["chain-rule"]),
    "inverted-mask": ("fails", ["gradient"]),
    "hardtanh-mask": ("fails", ["gradient"]),
    "no-lower-bound": ("passes", ["forward", "gradient"]),
    "zero-at-one": ("passes", ["forward"]),
    "writes-grad-out": ("passes", ["mutates-grad-out"]),
    "python-and": ("raises RuntimeError", ["error"]),
}


@pytest.mark.parametrize("key", list(TABLE))
def test_gradcheck_at_honest_points_and_the_doctor_give_the_lessons_table(key):
    fn = BUGS[key].make()
    x = torch.tensor(POINTS, dtype=torch.float64, requires_grad=True)
    try:
        verdict = "passes" if gradcheck(fn.apply, (x,), raise_exception=False) else "fails"
    except RuntimeError as error:
        verdict = f"raises {type(error).__name__}"
    assert (verdict, check_function(fn, reference).codes) == TABLE[key]


def test_gradcheck_catches_a_dropped_grad_out_even_on_one_element():
    x = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(BUGS["drops-grad-out"].make().apply, (x,))


def test_gradcheck_on_points_inside_the_range_only_misses_two_backward_bugs():
    x = torch.tensor([0.25, 0.75], dtype=torch.float64, requires_grad=True)
    missed = [
        key
        for key in ("passes-everything", "drops-grad-out", "inverted-mask", "hardtanh-mask")
        if gradcheck(BUGS[key].make().apply, (x,), raise_exception=False)
    ]
    assert missed == ["passes-everything", "hardtanh-mask"]


def test_at_the_kinks_an_atol_of_one_half_passes_the_inverted_mask_too():
    kinks = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    inverted = BUGS["inverted-mask"].make()
    for fn in (Clamp01, inverted):
        assert not gradcheck(fn.apply, (kinks,), raise_exception=False)
        assert gradcheck(fn.apply, (kinks,), atol=0.5, raise_exception=False)


# --- the two custom operators ---------------------------------------------------------------

X = torch.tensor(POINTS, dtype=torch.float64, requires_grad=True)


def opcheck_failures(op) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = torch.library.opcheck(op, (X,), raise_exception=False)
    return [test for test, result in results.items() if result != "SUCCESS"]


def test_the_leaky_operator_passes_opcheck_and_fails_gradcheck():
    assert torch.equal(clamp01_leaky(X.detach()), X.detach().clamp(0, 1))
    assert opcheck_failures(clamp01_leaky) == []
    assert not gradcheck(clamp01_leaky, (X,), raise_exception=False)


def test_the_wrong_fake_passes_gradcheck_and_fails_opchecks_fake_tensor_tests():
    assert gradcheck(clamp01_wrong_fake, (X,))
    assert opcheck_failures(clamp01_wrong_fake) == ["test_faketensor", "test_aot_dispatch_dynamic"]


def test_relu_mask_leaks_only_above_one():
    forward, grad, _ = run(BUGS["relu-mask"].make(), VALUES, UPSTREAM)
    wrong = [i for i, (g, r) in enumerate(zip(grad, RIGHT[1], strict=True)) if g != r]
    assert forward == RIGHT[0] and wrong == [5] and grad[5] == 4.0


def test_abs_grad_out_is_right_for_grad_outs_of_zero_or_more_and_flips_negative_ones():
    fn = BUGS["abs-grad-out"].make()
    positive = tuple(abs(g) for g in UPSTREAM)
    assert run(fn, VALUES, positive)[:2] == rule(VALUES, positive)[:2]
    forward, grad, _ = run(fn, VALUES, UPSTREAM)
    wrong = [i for i, (g, r) in enumerate(zip(grad, RIGHT[1], strict=True)) if g != r]
    assert forward == RIGHT[0] and wrong == [2] and grad[2] == 1.0  # -1.0 came back as 1.0


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("batched", [False, True], ids=["default", "check_batched_grad"])
def test_gradcheck_passes_abs_grad_out_in_every_mode_negative_grad_outs_included(
    fast_mode, batched
):
    """By default gradcheck's grad_outs are never negative; check_batched_grad's randn ones
    are, but it compares backward only with itself (under vmap), so abs-grad-out passes."""
    fn = BUGS["abs-grad-out"].make()
    x = torch.tensor(POINTS, dtype=torch.float64, requires_grad=True)
    for seed in range(5):  # fast mode and check_batched_grad draw at random: several draws
        torch.manual_seed(seed)
        assert gradcheck(fn.apply, (x,), fast_mode=fast_mode, check_batched_grad=batched)
    assert gradgradcheck(fn.apply, (x,))


def test_the_hypothesis_probe_is_right_on_hand_picked_inputs_and_wrong_on_drawn_ones():
    fn = wrong_while_hypothesis_draws()
    assert run(fn, VALUES, UPSTREAM) == RIGHT
    seen = []

    @given(st.just(VALUES))
    def drawn(values):
        seen.append(run(fn, values, UPSTREAM))

    drawn()
    assert seen and all(s[0] == RIGHT[0] and s[1] == [0.5, 2.0, 0.0, 0.0, 0.0, 4.0] for s in seen)
