"""Part 2 of "Check your Clamp01": check_my_checks runs a learner's my_checks on every broken
Clamp01 of lessons_lib.broken_clamps and on correct ones, and says which bugs it caught, which
it missed and how to catch those. An uneven grad_out of the suite's own and a property test
are judged by what they catch (abs-grad-out; a Clamp01 wrong only while hypothesis draws),
not by whether they ran. A test that fails correct code is wrong too. Never raises.
"""

import ast
import dataclasses
import functools
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from torch.autograd.gradcheck import GradcheckError

from lessons_lib.broken_clamps import (
    ABS_GRAD_OUT,
    CORRECT,
    EXERCISE_BUGS,
    BrokenClamp,
    CorrectClamp,
    wrong_while_hypothesis_draws,
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
from lessons_lib.exercises.clamp.observe import ENOUGH_EXAMPLES, Outcome, describe, run, uneven
from lessons_lib.exercises.clamp.words import (
    FAILS_CORRECT_TOO,
    HINT_CALL,
    PROPERTY,
    READ,
    READ_FOR_BUG,
    RULE,
    UNEVEN,
    hints,
)
from lessons_lib.running import as_function, numbers
from lessons_lib.running.arguments import MISSING, is_plain_function, wrong_argument


def check_my_checks(my_checks: object = MISSING, hint: object = 0) -> ExerciseCheck:
    """Part 2's self-check: run a learner's my_checks on correct and broken Clamp01s; say what
    it caught and missed, and whether it asserts the gradient for an uneven grad_out of its
    own and in a property test.

    `hint=1, 2, 3` also shows the idea, then the PyTorch calls, then the answer. Never raises.
    """
    wrong = refused_test(my_checks, "check_my_checks", "my_checks")
    if wrong is not None:
        return wrong.hint(hint)
    name = learners_name(my_checks)
    source = _read_source(my_checks)
    note = source.note
    runs = [(clamp, run(my_checks, clamp.make())) for clamp in CORRECT]
    passed = [clamp for clamp, outcome in runs if not outcome.found]
    cases = [
        correct_case(
            "my_checks",
            clamp.label,
            outcome,
            functools.partial(_fix_for_correct, outcome, clamp, passed),
            note,
        )
        for clamp, outcome in runs
    ]
    trusted = all(c.passed for c in cases)
    # A suite that fails correct code "catches" everything: its catches are not run.
    bugs = {bug.key: run(my_checks, bug.make()) if trusted else None for bug in EXERCISE_BUGS}
    # An uncalled property test is its own case's problem: calling it may not catch a bug.
    bug_note = "" if source.uncalled else note
    cases += [_bug_case(bug, bugs[bug.key], trusted, bug_note) for bug in EXERCISE_BUGS]
    course = runs[0][1]
    # The property test's gradient is judged on a Clamp01 that is wrong only while
    # hypothesis draws, so only a property test that checks the gradient can catch it.
    enough = trusted and len(course.drawn) >= ENOUGH_EXAMPLES
    probe = run(my_checks, wrong_while_hypothesis_draws()) if enough else None
    cases += [
        _uneven_case(course, trusted, bugs[ABS_GRAD_OUT.key]),
        _property_case(course, trusted, source, probe),
    ]
    why = later_reason(cases, FAILS_CORRECT_TOO)  # never ran the Clamp01s, or failed one
    cases = [c if c.checked else dataclasses.replace(c, got=why) for c in cases]
    return verdict(name, cases, hints(), HINT_CALL, hint, said=note, placeholder="my_checks")


def run_my_checks(my_checks: object = MISSING, fn: object = MISSING) -> str:
    """Run my_checks(fn) once, contained as check_my_checks runs it; say what happened."""
    call = "run_my_checks(my_checks, YourClamp01)"
    if not is_plain_function(my_checks):
        return wrong_argument("run_my_checks", my_checks, "your function my_checks first", call)
    function = as_function(fn)  # YourClamp01 and YourClamp01.apply mean the same Function
    if function is None:
        return wrong_argument("run_my_checks", fn, "a Function class second", call)
    fn = function
    name = learners_name(my_checks)  # the function run, by its own name (a lambda has none)
    who = name if name.isidentifier() else "my_checks"
    outcome = run(my_checks, fn)
    if not outcome.found:
        return f"{who} found nothing wrong with {fn.__name__}"
    return f"{describe(outcome, who)} (run on {fn.__name__})"


def _fix_for_correct(
    outcome: Outcome, clamp: CorrectClamp, passed: list[CorrectClamp]
) -> tuple[str, str]:
    """Why a correct Clamp01 failed the learner's checks, and where that is taught."""
    error = outcome.error
    message = str(error) if error is not None else ""
    if outcome.example_nonfinite and getattr(error, "__notes__", None):
        drawn = " and ".join(sorted(outcome.example_nonfinite))
        return (
            f"Your property test drew {drawn}: st.floats() with no bounds draws NaN and "
            "infinities as well as ordinary numbers. torch.clamp keeps NaN as NaN (NaN is "
            "neither below 0 nor above 1), and NaN == NaN is False, so torch.equal fails even "
            "on a correct Clamp01; an infinite grad_out times a mask's 0 gives NaN too. Bound "
            "what hypothesis draws: st.floats(-3, 3), which covers both edges, or "
            "st.floats(allow_nan=False, allow_infinity=False).",
            READ["every float"],
        )
    other = splits_at_the_edges(clamp, passed)
    if other is not None and not isinstance(error, GradcheckError):
        return (
            f"This Clamp01 is correct: at exactly 0 and 1 it gives {clamp.at_edges}, and your "
            f"checks pass another correct one that gives {other.at_edges} there, so they demand "
            "one answer where either is right. Clamp01's slope jumps from 0 to 1 at x = 0 and "
            "from 1 to 0 at x = 1, so the derivative does not exist there, and any value "
            "between the one-sided slopes is a valid gradient: between 0 and grad_out. At "
            "exactly 0 and 1 accept anything in that range, (grad_out.clamp(max=0) <= grad) & "
            "(grad <= grad_out.clamp(min=0)), and demand grad_out strictly inside and 0 "
            "strictly outside.",
            READ["kinks"],
        )
    if isinstance(error, GradcheckError):
        if any("double precision" in w for w in outcome.warned):
            return (
                "gradcheck ran in float32, whose rounding swamps its finite differences: "
                "give it float64 inputs, torch.tensor(..., dtype=torch.float64, "
                "requires_grad=True).",
                READ["float64"],
            )
        if "0.5000" in message.split("analytical")[0]:
            return (
                "gradcheck met a kink: at exactly 0 or 1 (or within eps = 1e-6 of them) its "
                "central difference straddles the corner and measures 0.5, the average of the "
                "slopes 0 and 1, and compares it with backward's value there. Any value "
                "between 0 and grad_out is right at a kink, so gradcheck cannot judge one: "
                "keep its points away from 0 and 1, and check the edges against the rule "
                "yourself.",
                READ["kinks"],
            )
        return (f"gradcheck failed on correct code. This Clamp01 is correct: {RULE}.", "")
    common = common_error_fix(outcome, "my_checks", part=2)
    if common:
        return common
    if isinstance(error, NotImplementedError) and "jvp" in message:
        return (
            "check_forward_ad=True needs a jvp, which no Clamp01 here defines: check backward "
            "(gradcheck's default) and leave forward mode out.",
            READ["switches"],
        )
    return (f"This Clamp01 is correct, so a check that fails it is wrong: {RULE}.", "")


@dataclass
class _Source:
    """What the learner's source shows: property tests, and a sentence for two silent slips."""

    given: list[str] = field(default_factory=list)  # inner functions decorated with @given
    uncalled: list[str] = field(default_factory=list)  # ... of those, never called
    note: str = ""


def _read_source(my_checks: Callable) -> _Source:
    """Two slips that run without error: a dropped gradcheck result, and a property test
    that is defined but never called."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(my_checks)))
    except (OSError, TypeError, SyntaxError):
        return _Source()
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    source = _Source()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
            "given" in ast.unparse(d) for d in node.decorator_list
        ):
            source.given.append(node.name)
            if node.name not in calls:
                source.uncalled.append(node.name)
    if source.uncalled:
        test = source.uncalled[0]
        source.note = (
            f"Your property test {test} is defined but never called: defining it runs "
            f"nothing, so call {test}() at the end of my_checks. "
        )
        return source
    for node in ast.walk(tree):
        dropped = isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        if dropped and "raise_exception=False" in ast.unparse(node.value):
            source.note = (
                "gradcheck(..., raise_exception=False) returns False instead of raising, and "
                "my_checks drops that result: assert it (assert gradcheck(...)). "
            )
            break
    return source


def _bug_case(bug: BrokenClamp, outcome: Outcome | None, trusted: bool, note: str = "") -> Case:
    name = f"catches {bug.key}: {bug.wrong}"
    if not trusted or outcome is None:
        return Case.not_checked(name, FAILS_CORRECT_TOO)
    if outcome.found:
        return Case(name, True)
    return Case(
        name,
        False,
        "my_checks raises an error (or returns False) for this broken Clamp01",
        "my_checks found nothing wrong, so a test suite built from it would pass this bug",
        note + bug.catch,
        READ_FOR_BUG[bug.key],
    )


def _uneven_case(outcome: Outcome, trusted: bool, abs_run: Outcome | None) -> Case:
    """An uneven grad_out of the suite's own, not gradcheck's, reached backward, and the suite
    fails when the gradient for it is wrong: it catches abs-grad-out, which gradcheck cannot."""
    if not trusted or abs_run is None:
        return Case.not_checked(UNEVEN, FAILS_CORRECT_TOO)
    expected = (
        "my_checks sends backward a grad_out of its own whose values differ, some of them "
        "negative, and fails when the gradient that comes back is wrong"
    )
    if not any(uneven(g) for g in outcome.grad_outs):
        if outcome.grad_outs:
            values = sorted({f"{g.flatten()[0].item():g}" for g in outcome.grad_outs})
            got = f"every grad_out my_checks sent held one value repeated ({', '.join(values)})"
        else:
            got = "backward ran only inside gradcheck, with gradcheck's grad_outs"
        return Case(
            UNEVEN,
            False,
            expected,
            got,
            "Send one yourself, at points on and either side of 0 and 1: (grad,) = "
            "torch.autograd.grad(clamp(x), x, grad_out) with grad_out = torch.tensor([0.5, "
            "2.0, -1.0, 3.0, ...]), one value per point, some negative, then assert every "
            "number of grad against the rule. y.sum().backward() sends ones, which a backward "
            "that returns its mask instead of grad_out * mask passes. gradcheck's own "
            "grad_outs do not count here: with its default switches (a 1 among zeros, then "
            "zeros) they are never negative, and they never reach the edges, which gradcheck "
            "must stay away from.",
            READ["uneven"],
        )
    if abs_run.found:
        return Case(UNEVEN, True)
    pairs = [(g, grad) for g, grad in zip(abs_run.grad_outs, abs_run.grads, strict=True)]
    flipped = [(g, grad) for g, grad in pairs if grad is not None and ((g < 0) & (grad > 0)).any()]
    rule = (
        "assert every number of the gradient against the rule: grad == grad_out * ((x > 0) & "
        "(x < 1)) away from 0 and 1, and between 0 and grad_out on them (check 3 of Part 2's "
        "answer)."
    )
    fix = (
        "Sending an uneven grad_out is half the check; the other half is asserting what comes "
        f"back. Put negative values in it, at points inside (0, 1) too, and {rule} An "
        "assertion on a few points only passes a backward that gets the others wrong."
    )
    if flipped:
        g, grad = flipped[0]
        got = (
            f"for grad_out = {numbers(g)}, abs-grad-out gave back {numbers(grad)}, a negative "
            "grad_out turned positive, and my_checks found nothing wrong: it does not assert "
            "every number of that gradient"
        )
    elif any((g < 0).any() for g, _ in pairs):
        got = (
            "the negative values of my_checks's grad_outs all reached points where the "
            "gradient is 0 anyway, so it found nothing wrong with abs-grad-out, whose backward "
            "turns a negative grad_out positive"
        )
    else:
        got = (
            "every grad_out my_checks sent was 0 or more, and for those grad_out.abs() is "
            "grad_out, so it found nothing wrong with abs-grad-out, whose backward turns a "
            "negative grad_out positive"
        )
        fix = (
            "Put negative values in your grad_out, at points inside (0, 1): for values of 0 or "
            f"more, grad_out.abs() is grad_out, so no assertion can tell them apart. Then {rule}"
        )
    return Case(UNEVEN, False, expected, got, fix, READ["sends"])


def _property_case(outcome: Outcome, trusted: bool, source: _Source, probe: Outcome | None) -> Case:
    """A property test ran on many drawn inputs, and checks the gradient: it catches a
    Clamp01 (`probe`) whose backward is wrong only inside hypothesis's examples."""
    if not trusted:
        return Case.not_checked(PROPERTY, FAILS_CORRECT_TOO)
    drawn = len(outcome.drawn)
    expected = (
        f"at least {ENOUGH_EXAMPLES} different inputs drawn by hypothesis reach "
        "Clamp01Candidate.apply, and the property test fails when the gradient for them is wrong"
    )
    if probe is not None and probe.found:
        return Case(PROPERTY, True)
    how = (
        "A property test is an inner function decorated with @given(st.lists(st.tuples("
        "st.floats(-3, 3), st.floats(-2, 2)), min_size=2)) that builds x = torch.tensor(values, "
        "dtype=torch.float64, requires_grad=True) and grad_out from what hypothesis draws, "
        "checks clamp(x) and the gradient torch.autograd.grad(clamp(x), x, grad_out) against "
        "the rule, and is called at the end of my_checks."
    )
    if probe is not None:
        ran = "backward never ran in it" if not probe.backward_drawn else "backward ran in it"
        got = (
            f"your property test ran on {drawn} drawn inputs ({ran}), and found nothing wrong "
            "with a Clamp01 whose backward is wrong only while hypothesis draws (it lets the "
            "gradient through where the clamp blocks it, and blocks it inside (0, 1))"
        )
        fix = (
            "Check the gradient in your property test, not only forward: draw a grad_out as "
            "well, compute (grad,) = torch.autograd.grad(clamp(x), x, grad_out), and assert "
            "every number of grad against the rule, as check 4 of Part 2's answer does. "
            "Between hand-picked points, only a property test looks."
        )
        return Case(PROPERTY, False, expected, got, fix, READ["pytest"])
    if source.uncalled:
        test = source.uncalled[0]
        got = f"{test} is defined but never called, so hypothesis drew nothing"
        fix = f"{source.note}{how}"
    elif drawn:
        got = f"only {drawn} different input(s) reached Clamp01Candidate.apply from hypothesis"
        fix = (
            "Build x from the values hypothesis draws, not from a fixed tensor, and let it run "
            f"at least {ENOUGH_EXAMPLES} examples (its default is 100). {how}"
        )
    elif source.given:
        got = "Clamp01Candidate.apply never received what hypothesis drew"
        fix = f"Call clamp = Clamp01Candidate.apply on the drawn values. {how}"
    else:
        got = "my_checks has no property test: nothing drawn by hypothesis reached the Clamp01"
        fix = how
    return Case(PROPERTY, False, expected, got, fix, READ["pytest"])
