"""The verdict an exercise check shows: headline, first problem, and hints one step at a time."""

import pytest

from lessons_lib.exercises.base import Case, ExerciseCheck, Hint

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
