"""The harness: the verdict (headline, first problem, an aside, hints one step at a time),
contained learner code, and the one-line refusal under the one policy for Functions."""

import warnings

import pytest
import torch

from lessons_lib import Cube
from lessons_lib.exercises.base import Aside, Case, ExerciseCheck, Hint, Wanted, contained, refused

HINTS = (
    Hint("the idea", "Think <first>."),
    Hint("the API", "Call f(x)."),
    Hint("the answer", "the answer:", "def f(x):\n    return x\n"),
)
CALL = "check(f, hint={})"


def verdict(*cases, shown=0):
    return ExerciseCheck("f", cases, HINTS, CALL, shown)


FAIL = Case("second", False, "1", "2", "Do <this>.", "Developer track, “Mistake 4”")


def test_a_passing_verdict_says_well_done_and_offers_no_hint():
    check = verdict(Case("first", True))
    assert check.ok and check.first_failure is None
    assert str(check) == "f: all 1 checks passed. Well done!\n  ✓ first"
    assert "Stuck?" not in check._repr_html_()


def test_the_first_failure_is_shown_with_where_to_read_more():
    text = str(verdict(Case("first", True), FAIL, Case("third", False, fix="later")))
    assert text.splitlines()[:4] == [
        "f: 1 of 3 checks passed",
        "  ✓ first",
        "  ✗ second",
        "  ✗ third",
    ]
    assert "  how to fix it: Do <this>.\n  read more: Developer track, “Mistake 4”" in text
    assert "later" not in text


def test_an_unfinished_verdict_says_how_to_ask_for_the_next_hint():
    assert str(verdict(FAIL)).splitlines()[-1] == (
        "Stuck? check(f, hint=1) shows the idea (hint=2 the API, then hint=3 the answer)."
    )
    assert (
        str(verdict(FAIL, shown=2)).splitlines()[-1] == "Stuck? check(f, hint=3) shows the answer."
    )


def test_hints_reveal_in_order_and_the_answer_is_a_code_block():
    assert "Hint" not in str(verdict(FAIL))
    one = str(verdict(FAIL).hint(1))
    assert "Hint 1 of 3 (the idea): Think <first>." in one and "Hint 2" not in one
    three = str(verdict(FAIL).hint(3))
    assert three.endswith("Hint 3 of 3 (the answer): the answer:\n    def f(x):\n        return x")
    assert "<pre>def f(x):\n    return x\n</pre>" in verdict(FAIL).hint(3)._repr_html_()


@pytest.mark.parametrize(
    ("level", "shown", "passed"),
    [
        (-2, 0, "the number -2"),
        (0, 0, None),
        (True, 0, "the value True"),  # a bool is no level: True is not taken as 1
        (9, 3, "the number 9"),
        ("1", 0, "the string '1'"),
        (None, 0, "None"),
    ],
)
def test_hint_levels_are_clamped_or_said_to_be_wrong_and_never_raise(level, shown, passed):
    check = verdict(FAIL).hint(level)
    assert check.shown == shown
    problem = f"hint must be a whole number from 0 to 3; you passed {passed}."
    if passed is None:
        assert check.hint_problem == "" and "hint must be" not in str(check)
    else:
        assert check.hint_problem == problem and problem in str(check).splitlines()


def test_a_verdict_without_hints_never_offers_one():
    check = ExerciseCheck("f", [FAIL])
    assert "Stuck?" not in str(check) and check.hint(2).shown == 0


def test_the_html_view_escapes_learner_text():
    page = verdict(FAIL).hint(1)._repr_html_()
    assert "Do &lt;this&gt;." in page and "Think &lt;first&gt;." in page
    assert "<i>Read more:</i> Developer track, “Mistake 4”" in page


def test_the_aside_sits_under_the_first_problem_in_text_and_html():
    check = ExerciseCheck("f", [FAIL], aside=Aside("Also missed:", ("a <b>.",)))
    assert str(check).splitlines()[-2:] == [
        "  - a <b>.",
        "Fix this one first, then run the check again.",
    ]
    assert str(check).splitlines()[-3] == "Also missed:"
    assert "<ul><li>a &lt;b&gt;.</li></ul><p>Fix this one first" in check._repr_html_()
    assert "Also missed" not in str(ExerciseCheck("f", [Case("x", True)], aside=check.aside))


def test_hint_keeps_the_verdicts_class_and_aside():
    class Special(ExerciseCheck):
        pass

    check = Special("f", [FAIL], HINTS, CALL, aside=Aside("Also:", ("more",)))
    shown = check.hint(2)
    assert type(shown) is Special and shown.aside == check.aside and shown.shown == 2
    assert check.shown == 0  # the original is left as it was


def test_a_case_not_checked_says_why_and_offers_no_fix():
    case = Case.not_checked("catches a bug", "your test fails a correct Clamp01")
    assert not case.passed and not case.checked and not case.fix
    assert case.line == "○ catches a bug (not checked yet: your test fails a correct Clamp01)"


def test_only_checks_that_ran_get_a_tick_or_a_cross_in_text_and_html():
    cases = [Case("ran", True), FAIL, Case.not_checked("later")]
    check = ExerciseCheck("f", cases, HINTS, CALL)
    text, page = str(check), check._repr_html_()
    assert text.splitlines()[0] == "f: 1 of 3 checks passed, 1 not checked yet"
    assert "  ✓ ran" in text and f"  ✗ {FAIL.name}" in text
    assert "  ○ later (not checked yet: fix the first problem, then run the check again)" in text
    assert "✗ later" not in text and "✗ later" not in page and "○ later (not checked yet" in page
    assert text.count("First problem:") == 1 and f"First problem: {FAIL.name}" in text
    assert not ExerciseCheck("f", [Case("ran", True), Case.not_checked("later")]).ok


@pytest.mark.parametrize("level", ["yes", -1, 1.5, None, True])
def test_a_hint_level_that_is_not_one_is_said_not_ignored(level):
    check = ExerciseCheck("f", [FAIL], HINTS, CALL).hint(level)
    assert check.shown == 0
    assert "hint must be a whole number from 0 to" in str(check)
    assert "you passed" in check._repr_html_()


def test_contained_puts_torch_back_and_keeps_warnings_in():
    with warnings.catch_warnings(record=True) as outside:
        warnings.simplefilter("always")
        with contained() as caught:
            torch.set_grad_enabled(False)
            torch.set_default_dtype(torch.float64)
            warnings.warn("from the learner", stacklevel=2)
    assert torch.is_grad_enabled() and torch.get_default_dtype() == torch.float32
    assert [str(w.message) for w in caught] == ["from the learner"] and outside == []


@pytest.mark.parametrize(
    ("passed", "wants_class", "says"),
    [
        (lambda: Cube, True, None),
        (lambda: Cube.apply, True, None),
        (Cube, True, "you passed an instance of Cube, Cube(); check wants it"),  # Cube()
        (lambda: 3, True, "you passed the number 3; check wants it"),
        (lambda: torch.round, True, "you passed the built-in function torch.round"),
        (lambda: lambda x: x, False, None),
        (lambda: len, False, "you passed the built-in function len"),
        (lambda: Cube, False, "you passed the Function class Cube"),
        (lambda: Cube.apply, False, "you passed Cube.apply"),
        (lambda: 3, False, "you passed the number 3"),
    ],
    ids=[
        "class",
        "apply",
        "instance",
        "number",
        "builtin",
        "f",
        "f-builtin",
        "f-class",
        "f-apply",
        "f-number",
    ],
)
def test_a_refusal_is_one_line_that_names_what_was_passed(passed, wants_class, says):
    wanted = Wanted("check", "it", "check(it)", wants_class)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # instantiating a Function warns; that is the point
        verdict = refused(passed(), wanted)
    if says is None:
        assert verdict is None
    else:
        assert not verdict.ok and str(verdict).startswith(f"check: {says}")
        assert str(verdict).endswith("; check wants it, as in check(it).")
        assert "\n" not in str(verdict) and "✗" not in str(verdict)


def test_a_refused_apply_is_named_as_the_functions_apply():
    from lessons_lib import Cube
    from lessons_lib.exercises.base import learners_name

    assert learners_name(Cube.apply) == "Cube.apply"
    assert learners_name(Cube) == "Cube"
