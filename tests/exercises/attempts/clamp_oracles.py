"""Independent oracles: for each property a verdict's case line names, whether it holds for
an attempt, read from the facts we recorded by running the attempt (clamp_facts), never from
the check. Each oracle answers True (holds), False (does not) or None (undecidable: the
property's words do not settle it, so a ✓ or ✗ there is not judged).

"Right", precisely: a test that does its job. Part 1 (check_edge_test): on every correct
Clamp01 of lessons_lib.broken_clamps it gives back True; on each of Part 1's five broken
Clamp01s it gives back False or raises; and it sends at least one grad_out whose numbers are
all different. Part 2 (check_my_checks): on every correct Clamp01 it neither raises nor gives
back False; on every broken one it raises or gives back False; it sends backward a grad_out of
its own (not gradcheck's) holding different values, one negative; and at least 10 distinct
inputs drawn by hypothesis reach the candidate's apply, and it fails the Clamp01 that is wrong
only while hypothesis draws. "Wrong": one of these definitely fails. A test that fails a
correct Clamp01 at exactly 0 or 1 (demanding one of the two valid values there) is wrong.
"""

import re
from collections.abc import Callable

import torch

from tests.exercises.attempts.clamp_facts import BROKEN, CORRECT, PROBE, Facts, Run

Oracle = Callable[[Facts], bool | None]

# Part 1's broken Clamp01s, by the words its case names use.
EDGE_BUG_WORDS = {
    "lets every gradient through": "passes-everything",
    "forgets grad_out": "drops-grad-out",
    "blocks the gradient between 0 and 1": "inverted-mask",
    "between -1 and 0": "hardtanh-mask",
    "forgets the edge at 1": "relu-mask",
}
EDGE_BUGS = tuple(EDGE_BUG_WORDS.values())

# The correct Clamp01s, by the words their labels use.
CORRECT_WORDS = {
    "the course's Clamp01": "course_clamp01",
    "written another way": "saves_input",
    "0 at exactly 0 and 1": "strict_mask",
}

ENOUGH_DRAWN = 10


def _never_ran_it(run: Run) -> bool:
    """The test never called the candidate: "passes it" says nothing then."""
    return not run.applied and not run.forward_direct


def passes_edge(run: Run) -> bool | None:
    """Part 1: a test passes a Clamp01 when it gives back True; False or a raise fail it."""
    if _never_ran_it(run) and not run.fails:
        return None
    if run.returned is True and run.error is None:
        return True
    return False if run.fails else None  # None, a tensor, ...: "passes" does not say


def catches(run: Run) -> bool | None:
    """A test catches a Clamp01 when it raises or gives back False on it."""
    if run.fails:
        return True
    return False if run.returned is True or run.returned is None else None


def passes_suite(run: Run) -> bool | None:
    """Part 2: a suite passes a Clamp01 when it neither raises nor gives back False."""
    return None if _never_ran_it(run) and not run.fails else not run.fails


def gives_true_or_false(facts: Facts) -> bool:
    """On the course's Clamp01 the test gave back a bool (and did not raise)."""
    run = facts.course
    return run.error is None and isinstance(run.returned, bool)


def _all_different(t: torch.Tensor) -> bool:
    flat = t.flatten().tolist()
    return len(flat) > 1 and len(set(flat)) == len(flat)


def own_uneven_grad_out(facts: Facts) -> bool | None:
    """The test sent backward a grad_out whose numbers all differ, a different number for
    each point (one value repeated, some repeated, or a single number, is not)."""
    sent = [b.grad_out for b in facts.course.own_grad_outs()]
    return any(_all_different(g) for g in sent)


def asserts_uneven_negative(facts: Facts) -> bool | None:
    """The suite sends an uneven grad_out of its own with a negative value, and fails the
    Clamp01 whose backward turns negatives positive."""
    sent = [b.grad_out for b in facts.course.own_grad_outs()]
    has = any(len(set(g.flatten().tolist())) > 1 and (g < 0).any() for g in sent)
    if not has or not catches_bug(facts, "abs-grad-out"):
        return False
    return True if not fails_a_correct(facts) else None


def property_test(facts: Facts) -> bool | None:
    """At least 10 distinct drawn inputs reach apply, and the suite fails the Clamp01 that is
    wrong only while hypothesis draws."""
    if len(facts.course.drawn_inputs()) < ENOUGH_DRAWN or not facts.runs[PROBE].fails:
        return False
    return True if not fails_a_correct(facts) else None


def catches_bug(facts: Facts, key: str) -> bool | None:
    return catches(facts.runs[key])


def fails_a_correct(facts: Facts) -> bool:
    return any(facts.runs[c].fails for c in CORRECT)


def is_plain_test_function(facts: Facts | None) -> bool:
    """The old refusal's case ("my_edge_test is a function"): holds for every run attempt."""
    return facts is not None


def _correct_named_in(case: str) -> str | None:
    """The correct Clamp01 a case line names, or None when it names none we know."""
    return next((c for w, c in CORRECT_WORDS.items() if w in case), None)


def oracle_for(case: str, part: int) -> Oracle | None:
    """The oracle for a case line's name, or None when no property we know is named."""
    if case.endswith(" is a function"):
        return is_plain_test_function
    if case.endswith(" gives back True or False"):
        return gives_true_or_false
    if case.startswith("runs through Clamp01Candidate.apply "):
        clamp = _correct_named_in(case)
        return None if clamp is None else (lambda facts: bool(facts.runs[clamp].applied))
    if case == "sends each point its own upstream gradient":
        return own_uneven_grad_out
    if case.startswith("asserts the gradient for an uneven grad_out"):
        return asserts_uneven_negative
    if case.startswith("runs a property test"):
        return property_test
    if case.startswith("passes "):
        clamp = _correct_named_in(case)
        judge = passes_edge if part == 1 else passes_suite
        return None if clamp is None else (lambda facts: judge(facts.runs[clamp]))
    if case.startswith("catches "):
        key = re.match(r"catches ([a-z-]+):", case)
        if key and key.group(1) in BROKEN:
            return lambda facts: catches_bug(facts, key.group(1))
        bug = next((b for w, b in EDGE_BUG_WORDS.items() if w in case), None)
        return (lambda facts: catches_bug(facts, bug)) if bug else None
    return None


def rightness(facts: Facts, part: int) -> bool | None:
    """True: the attempt is right (see the module's docstring); False: wrong; None: undecided."""
    if part == 1:
        verdicts = [passes_edge(facts.runs[c]) for c in CORRECT]
        verdicts += [catches(facts.runs[b]) for b in EDGE_BUGS]
        verdicts += [gives_true_or_false(facts), own_uneven_grad_out(facts)]
    else:
        verdicts = [passes_suite(facts.runs[c]) for c in CORRECT]
        verdicts += [catches(facts.runs[b]) for b in BROKEN]
        verdicts += [asserts_uneven_negative(facts), property_test(facts)]
    if any(v is False for v in verdicts):
        return False
    return True if all(v is True for v in verdicts) else None
