"""Part 2, check_my_checks: which bugs a learner's suite caught and missed, each with its fix;
an uneven grad_out and a property test earn their ticks by what they catch, not by running."""

import torch
from hypothesis import example, given
from hypothesis import strategies as st

from lessons_lib import Clamp01
from lessons_lib.broken_clamps import ABS_GRAD_OUT, CATALOGUE, EXERCISE_BUGS
from lessons_lib.exercises.base import ExerciseCheck
from lessons_lib.exercises.clamp.answers import reference_checks
from lessons_lib.exercises.clamp.suite import check_my_checks, run_my_checks
from lessons_lib.exercises.clamp.words import (
    PROPERTY,
    READ,
    READ_FOR_BUG,
    UNEVEN,
)
from tests.exercises.clamp.learners import (
    CORRECT_NAMES,
    KEYS,
    case,
    forward_only,
    gradcheck_inside_and_sum_at_the_edges,
)


def caught(check: ExerciseCheck) -> list[str]:
    """The bug keys a verdict says were caught."""
    return [
        c.name.split(":")[0].removeprefix("catches ")
        for c in check.cases
        if c.passed and c.name.startswith("catches ")
    ]


def gradcheck_only(Clamp01Candidate):
    x = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(Clamp01Candidate.apply, (x,))


def sum_backward_only(Clamp01Candidate):
    x = torch.tensor([-0.5, 0.3, 1.7], requires_grad=True)
    Clamp01Candidate.apply(x).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


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


def test_run_my_checks_says_what_one_run_found():
    assert run_my_checks(forward_only, Clamp01) == "forward_only found nothing wrong with Clamp01"
    found = run_my_checks(reference_checks, CATALOGUE[1].make())
    assert found.startswith("reference_checks raised GradcheckError: ")
    assert found.endswith("(run on DropsGradOut)")
    assert run_my_checks(Clamp01, forward_only) == (
        "run_my_checks: you passed the Function class Clamp01; run_my_checks wants your "
        "function my_checks first, as in run_my_checks(my_checks, YourClamp01)."
    )
    # One policy across the course: Clamp01.apply means Clamp01.
    assert run_my_checks(forward_only, Clamp01.apply) == run_my_checks(forward_only, Clamp01)
    assert run_my_checks(forward_only, "Clamp01") == (
        "run_my_checks: you passed the string 'Clamp01'; run_my_checks wants a Function class "
        "second, as in run_my_checks(my_checks, YourClamp01)."
    )


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
    # NaN first: st.floats() draws one only sometimes within the examples run (a CI run drew none).
    @example([float("nan"), 0.5])
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
    assert not prop.passed and prop.got.startswith(
        "gradcheck_inside_and_sum_at_the_edges has no property test"
    )
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
    assert "call random_inputs() at the end of" in prop.fix


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
        "a negative grad_out turned positive, and uneven_but_asserted_at_the_outer_points found nothing wrong: it does not "
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


def test_run_my_checks_names_the_function_it_ran_whatever_its_name():
    def b4(Clamp01Candidate):
        pass

    writes = next(bug for bug in CATALOGUE if bug.key == "writes-grad-out").make()
    assert run_my_checks(b4, writes) == f"b4 found nothing wrong with {writes.__name__}"
    assert "my_checks" not in run_my_checks(reference_checks, writes)
    # A lambda has no name of its own: the task's name stands for it, as in check_my_checks.
    said = run_my_checks(lambda Clamp01Candidate: None, Clamp01)
    assert said == "my_checks found nothing wrong with Clamp01"
