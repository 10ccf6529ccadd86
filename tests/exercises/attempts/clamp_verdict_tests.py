"""The tests of check_edge_test (Part 1) and check_my_checks (Part 2) on their generated
attempts (clamp_attempts): nothing escapes, no "Well done" for a wrong test, no right test
failed, every ✓ and ✗ true, every claim about the learner's code true, and a wrong argument
refused in one line. Each test reads the attempts run once (clamp_findings caches them).
test_edge_test_attempts.py and test_my_checks_attempts.py subclass ClampVerdictTests."""

import itertools

import pytest

from tests.exercises.attempts.clamp_attempts import _candidates, candidates
from tests.exercises.attempts.clamp_claims import CHECKERS
from tests.exercises.attempts.clamp_findings import RULES, findings, message, outcomes

ENOUGH = 300


class ClampVerdictTests:
    """The shared tests; a subclass sets `part` (1: check_edge_test, 2: check_my_checks)."""

    part: int

    def test_at_least_300_distinct_attempts_are_generated_in_a_fixed_order(self):
        """The generator gives 300 or more attempts of distinct behaviour, the same every run."""
        attempts = [o for o in outcomes(self.part) if o.attempt.wrong is None]
        assert len(attempts) >= ENOUGH, f"only {len(attempts)} distinct attempts"
        assert len({o.attempt.signature for o in attempts}) == len(attempts)
        # The candidates these attempts came from, and the first 150 of a second generation.
        first = [c[0] for c in candidates(self.part)[:150]]
        assert first == [c[0] for c in itertools.islice(_candidates(self.part), 150)]

    def test_right_and_wrong_attempts_are_both_among_them(self):
        """The oracles find right attempts and wrong ones, so rules (b) and (c) are exercised."""
        rights = [o.right for o in outcomes(self.part)]
        assert rights.count(True) >= 1 and rights.count(False) >= ENOUGH // 2

    @pytest.mark.parametrize("rule", list(RULES))
    def test_no_verdict_breaks_the_rule(self, rule):
        """Rules (a), (b), (c), (d), (f): see clamp_findings."""
        found = findings(self.part)[rule]
        assert not found, message(found)

    @pytest.mark.parametrize("kind", list(CHECKERS))
    def test_every_claim_of_this_kind_is_true(self, kind):
        """Rule (e): each sentence about what the learner's code did is true (clamp_claims)."""
        found = findings(self.part)[f"claim: {kind}"]
        assert not found, message(found)

    @pytest.mark.parametrize("level", ["yes", 2.5, None])
    def test_a_bad_hint_level_is_named_in_one_added_line(self, level):
        """hint="yes" adds "hint must be a whole number from 0 to 3; you passed ..."."""
        from tests.exercises.attempts.clamp_attempts import LAMBDAS
        from tests.exercises.attempts.clamp_findings import CHECKS
        from tests.exercises.attempts.clamp_modules import load_module

        _, check = CHECKS[self.part]
        said = {"yes": "the string 'yes'", 2.5: "the number 2.5", None: "None"}[level]
        cheap = load_module(LAMBDAS["lambda_false"]).lambda_false  # a test that runs at once
        text = str(check(cheap, hint=level))
        assert (
            f"hint must be a whole number from 0 to 3; you passed {said}." in text.splitlines()
        ), text

    def test_the_html_shows_the_same_marks_as_the_text(self):
        """_repr_html_ shows the ✓ ✗ ○ marks of the plain text, in the same number."""
        differ = [
            o
            for o in outcomes(self.part)
            if o.html and any(o.html.count(m) != o.text.count(m) for m in "✓✗○")
        ]
        assert not differ, differ[0].attempt.shown() + "\n" + differ[0].text + "\n" + differ[0].html
