"""Part 1 of "Check your Clamp01": check_edge_test runs a learner's my_edge_test on correct and
broken Clamp01s, in the beginner tracks' words.
"""

import functools

import torch

from lessons_lib.broken_clamps import (
    CORRECT,
    CorrectClamp,
)
from lessons_lib.exercises.base import Case, ExerciseCheck, learners_name
from lessons_lib.exercises.clamp.judging import (
    common_error_fix,
    correct_case,
    later_reason,
    refused_test,
    splits_at_the_edges,
    verdict,
)
from lessons_lib.exercises.clamp.observe import Outcome, all_different, repeated, run
from lessons_lib.exercises.clamp.words import (
    EDGE_BUGS,
    EDGE_HINT_CALL,
    EDGE_READ,
    EDGE_READ_FOR_BUG,
    EDGE_UNEVEN,
    FAILS_CORRECT,
    edge_hints,
)
from lessons_lib.running import numbers, short
from lessons_lib.running.arguments import MISSING
from lessons_lib.running.reading import outside_tensors

EDGE_CORRECT = (
    ("the course's Clamp01 (correct)", CORRECT[0]),
    ("a Clamp01 that gives back 0 at exactly 0 and 1 (also correct)", CORRECT[2]),
)


def check_edge_test(my_edge_test: object = MISSING, hint: object = 0) -> ExerciseCheck:
    """Part 1's self-check: run a learner's my_edge_test on correct and broken Clamp01s.

    `hint=1, 2, 3` also shows the idea, then the PyTorch calls, then the answer. Never raises.
    """
    wrong = refused_test(my_edge_test, "check_edge_test", "my_edge_test")
    if wrong is not None:
        return wrong.hint(hint)
    name = learners_name(my_edge_test)
    runs = [(label, clamp, run(my_edge_test, clamp.make())) for label, clamp in EDGE_CORRECT]
    first = runs[0][2]
    answers = _gives_true_or_false(first)
    names = [f"passes {label}" for label, *_ in runs]
    names += [f"catches {wrong}" for _, wrong, _ in EDGE_BUGS] + [EDGE_UNEVEN]
    if answers.checked and not answers.passed:
        later = [Case.not_checked(n) for n in names]
        return verdict(
            name, [answers, *later], edge_hints(), EDGE_HINT_CALL, hint, placeholder="my_edge_test"
        )
    passed = [clamp for _, clamp, outcome in runs if not outcome.found]
    cases = [answers]
    for label, clamp, outcome in runs:
        fix = functools.partial(
            _edge_fix_for_correct, outcome, clamp, passed, name, outside_tensors(my_edge_test)
        )
        cases.append(correct_case("my_edge_test", label, outcome, fix, "", EDGE_READ["apply"]))
    if not all(c.passed for c in cases[1:]):
        # What the test sent is a fact of its run either way; what it "catches" is not.
        why = later_reason(cases, FAILS_CORRECT)
        cases += [Case.not_checked(n, why) for n in names[len(runs) : -1]]
        ran = first.applied or first.error is not None
        cases.append(_edge_uneven_case(first) if ran else Case.not_checked(EDGE_UNEVEN, why))
        return verdict(name, cases, edge_hints(), EDGE_HINT_CALL, hint, placeholder="my_edge_test")
    for make, wrong, catch in EDGE_BUGS:
        outcome = run(my_edge_test, make())
        missed = Case(
            f"catches {wrong}",
            False,
            "my_edge_test gives back False (or raises an error) for this broken Clamp01",
            f"my_edge_test gave back {short(outcome.result)}, so this broken Clamp01 would "
            "get through",
            catch,
            EDGE_READ_FOR_BUG[make],
        )
        cases.append(Case(missed.name, True) if outcome.found else missed)
    cases.append(_edge_uneven_case(first))
    return verdict(name, cases, edge_hints(), EDGE_HINT_CALL, hint, placeholder="my_edge_test")


def _gives_true_or_false(outcome: Outcome) -> Case:
    name = "my_edge_test gives back True or False"
    if outcome.error is not None:
        return Case.not_checked(name, "it raised an error on the course's Clamp01 (see below)")
    if isinstance(outcome.result, bool):
        return Case(name, True)
    expected = "True (the Clamp01 looks right) or False (it found a bug)"
    if isinstance(outcome.result, torch.Tensor):
        return Case(
            name,
            False,
            expected,
            f"a tensor, {short(outcome.result)}",
            "Compare with torch.equal(x.grad, expected), which gives back one True or False "
            "for the whole tensor; x.grad == expected gives one per number.",
        )
    return Case(
        name,
        False,
        expected,
        short(outcome.result),
        "End my_edge_test with a return line: return torch.equal(x.grad, expected).",
    )


def _edge_fix_for_correct(
    outcome: Outcome,
    clamp: CorrectClamp,
    passed: list[CorrectClamp],
    name: str,
    outside: dict[str, torch.Tensor],
) -> tuple[str, str]:
    """Why a correct Clamp01 failed the learner's edge test, in the beginner tracks' words."""
    other = splits_at_the_edges(clamp, passed)
    if other is not None:
        return (
            f"This Clamp01 is correct too. At exactly 0 and 1 it gives back {clamp.at_edges}, "
            f"and your test passes another correct one that gives back {other.at_edges} there. "
            "Clamp01 has a corner at 0 (its slope jumps from 0 to 1) and at 1 (from 1 to 0), "
            "so there is no single slope there, as at rounding's jumps in lesson 1, and any "
            "value between 0 and grad_out is right. Leave exactly 0 and 1 out of your points: "
            "test just either side of them, such as -0.001 and 0.001.",
            EDGE_READ["corners"],
        )
    common = common_error_fix(outcome, name, part=1)
    if common:
        return common
    if outcome.error is None and outcome.grad_outs:
        leftover = ""
        if outside:  # a fact of the test's code: it reads tensors the notebook made
            names = " and ".join(sorted(outside))
            leftover = (
                f" Your test reads {names} from outside it, the notebook's own: a .grad adds "
                "up over every backward, so x.grad may hold more than this one backward's "
                "answer. Make x and grad_out inside the test."
            )
        return (
            "This Clamp01 is correct, so my_edge_test should give back True for it. For x = "
            f"{numbers(outcome.inputs[-1])} and grad_out = {numbers(outcome.grad_outs[-1])}, "
            f"the Clamp01's backward gave back {numbers(outcome.grads[-1])}: compare that with "
            "your expected, number by number. The rule: grad_out where x is between 0 and 1, "
            f"and 0 where x is below 0 or above 1.{leftover}",
            EDGE_READ["choose"],
        )
    return (
        "This Clamp01 is correct, so my_edge_test should give back True for it: send your "
        "grad_out with Clamp01Candidate.apply(x).backward(grad_out), then compare x.grad "
        "with the rule: grad_out where x is between 0 and 1, and 0 where it is outside.",
        EDGE_READ["choose"],
    )


def _what_repeats(grad_out: torch.Tensor) -> str:
    """Which numbers of the grad_out backward received more than one point shares."""
    if grad_out.numel() == 1:
        return "a single number"
    if len(set(grad_out.flatten().tolist())) == 1:
        return "one number repeated"
    values = [f"{v:g}" for v in repeated(grad_out)]
    named = values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]
    return f"in which {named} {'is' if len(values) == 1 else 'are'} repeated"


def _edge_uneven_case(outcome: Outcome) -> Case:
    expected = "an upstream gradient with a different number for each point"
    if any(all_different(g) for g in outcome.grad_outs):
        return Case(EDGE_UNEVEN, True)
    if not outcome.grad_outs and outcome.error is not None:
        return Case.not_checked(EDGE_UNEVEN, "your test raised an error before any backward ran")
    if not outcome.grad_outs:
        return Case(
            EDGE_UNEVEN,
            False,
            expected,
            "the Clamp01's backward never ran",
            "Send your upstream gradient back through the Clamp01 you were given: "
            "Clamp01Candidate.apply(x).backward(grad_out).",
            EDGE_READ["choose"],
        )
    last = outcome.grad_outs[-1]
    return Case(
        EDGE_UNEVEN,
        False,
        expected,
        f"backward got grad_out = {numbers(last)}, {_what_repeats(last)}",
        "Give each point its own upstream gradient, all different, such as "
        "torch.tensor([10.0, 20.0, 30.0, 40.0]) for four points. Then each number of x.grad "
        "shows which upstream gradient it came from, and a backward that gives back 1 "
        "instead of grad_out cannot look right by chance. (y.sum().backward() sends a 1 to "
        "every point.)",
        EDGE_READ["choose"],
    )
