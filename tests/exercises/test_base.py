"""The harness: the verdict (headline, first problem, an aside, hints one step at a time),
contained learner code, and the first case under the one policy for Functions."""

import warnings

import pytest
import torch

from lessons_lib import Cube
from lessons_lib.exercises.base import Aside, Case, ExerciseCheck, Hint, Refusal, contained, refusal

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
    ("level", "shown"), [(-2, 0), (0, 0), (True, 1), (9, 3), ("1", 0), (None, 0)]
)
def test_hint_levels_are_clamped_and_never_raise(level, shown):
    assert verdict(FAIL).hint(level).shown == shown


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


def test_a_case_not_counted_says_why_and_offers_no_fix():
    case = Case.not_counted("catches a bug", "fix the first problem first")
    assert not case.passed and not case.counted and not case.fix
    assert case.got == "not counted: fix the first problem first"


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
        (Cube, True, "You passed an instance, Cube()"),  # called: Cube()
        (lambda: 3, True, "You passed an int"),
        (lambda: len, False, None),
        (lambda: Cube, False, "the Function Cube"),
        (lambda: Cube.apply, False, "Cube.apply, a Function's apply"),
        (lambda: 3, False, "int 3"),
    ],
    ids=["class", "apply", "instance", "number", "f", "f-class", "f-apply", "f-number"],
)
def test_refusal_follows_the_one_policy(passed, wants_class, says):
    words = Refusal("you passed it", "it", "check({})", "Pass it.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # instantiating a Function warns; that is the point
        case = refusal(passed(), words, wants_class)
    if says is None:
        assert case is None
    else:
        assert not case.passed and says in case.got and case.fix == "Pass it."


def test_a_refused_apply_is_named_as_the_functions_apply():
    from lessons_lib import Cube
    from lessons_lib.exercises.base import learners_name

    assert learners_name(Cube.apply) == "Cube.apply"
    assert learners_name(Cube) == "Cube"
