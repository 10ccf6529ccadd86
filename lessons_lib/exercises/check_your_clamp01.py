"""The exercise "Check your Clamp01": the course's answers, and the self-checks that check a
learner's tests.

Part 1, after the beginner tracks: `my_edge_test(Clamp01Candidate)` sends an uneven upstream
gradient through a Clamp01 at points on both sides of 0 and 1 and gives back True when the
gradient is right; check_edge_test runs it on correct and broken Clamp01s.

Part 2, after lesson 2's developer track: `my_checks(Clamp01Candidate)` raises (or returns
False) when it finds a bug; check_my_checks runs it on every broken Clamp01 of
lessons_lib.broken_clamps and on correct ones, and says which bugs it caught, which it missed
and how to catch those. Two kinds of check are judged by what they catch, not by whether they
ran: an uneven grad_out of the suite's own (it must catch abs-grad-out, which only an
assertion on the gradient for a negative grad_out sees), and a property test (it must catch a
Clamp01 whose backward is wrong only while hypothesis draws). In both parts a test that fails correct code is wrong too.
Neither self-check raises.

What is correct, everywhere: forward is torch.clamp(x, 0, 1); the gradient is grad_out where
0 < x < 1 and 0 where x < 0 or x > 1; at exactly 0 and 1 the slope jumps (from 0 to 1, and
from 1 to 0), so any value between 0 and grad_out is right there.
"""

import ast
import contextlib
import functools
import html
import inspect
import io
import sys
import textwrap
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch
from hypothesis import currently_in_test_context, given, settings
from hypothesis import strategies as st
from torch.autograd import Function
from torch.autograd.gradcheck import GradcheckError

from lessons_lib.broken_clamps import (
    ABS_GRAD_OUT,
    CORRECT,
    EXERCISE_BUGS,
    BrokenClamp,
    CorrectClamp,
    drops_grad_out,
    hardtanh_mask,
    inverted_mask,
    passes_everything,
    relu_mask,
    wrong_while_hypothesis_draws,
)
from lessons_lib.exercises.base import Case, ExerciseCheck, Hint, short
from lessons_lib.running import Failure, is_function, preserved_global_state
from lessons_lib.sections import read_more
from lessons_lib.watch import patched, watching

# --- where each idea is taught ------------------------------------------------------------
# Every "read more" names a heading that exists and covers the idea (tests check each one).

# Part 1's pointers, into the beginner tracks and Part 1 itself.
EDGE_READ = {
    "tensors": read_more("tensors"),
    "apply": read_more("notepad-cube"),
    "clamp": read_more("clamp"),
    "corners": read_more("corners"),
    "choose": read_more("choose-grad-out"),
    "your turn": read_more("your-turn-edges"),
}
# Part 2's pointers, into the developer tracks and Part 2 itself (and Part 1's section on
# choosing grad_out, the one place the course builds an uneven grad_out step by step).
READ = {
    "apply": read_more("apply"),
    "gradcheck": read_more("gradcheck"),
    "float64": read_more("float64"),
    "switches": read_more("switches"),
    "kinks": read_more("kinks"),
    "pytest": read_more("pytest"),
    "doctor": read_more("doctor"),
    "uneven": read_more("choose-grad-out"),
    "must do": read_more("must-do"),
    "sends": read_more("sends"),
    "every float": read_more("every-float"),
}


# --- the answers ----------------------------------------------------------------------------


def edge_test(Clamp01Candidate: type[Function]) -> bool:
    """Part 1's answer: True when Clamp01Candidate's gradient is right on both sides of 0 and 1."""
    # One point on each side of each edge: below 0, just above 0, just below 1, above 1.
    x = torch.tensor([-0.5, 0.001, 0.999, 1.5], requires_grad=True)
    # A different upstream gradient for each point, so each can be told apart in x.grad.
    grad_out = torch.tensor([10.0, 20.0, 30.0, 40.0])
    Clamp01Candidate.apply(x).backward(grad_out)
    # A correct Clamp01 passes grad_out on between 0 and 1, and gives back 0 outside.
    expected = torch.tensor([0.0, 20.0, 30.0, 0.0])
    return torch.equal(x.grad, expected)


def reference_checks(Clamp01Candidate: type[Function]) -> None:
    """Part 2's answer: raise an error when Clamp01Candidate is not a correct Clamp01."""
    clamp = Clamp01Candidate.apply

    def follows_the_rule(x, grad_out, grad):
        """Where grad is right: grad_out inside (0, 1), 0 outside [0, 1], and at exactly 0
        and 1, where the slope jumps, anything between 0 and grad_out."""
        inside, edge = (x > 0) & (x < 1), (x == 0) | (x == 1)
        between = (grad_out.clamp(max=0) <= grad) & (grad <= grad_out.clamp(min=0))
        return torch.where(edge, between, grad == grad_out * inside)

    # 1. Forward is torch.clamp: on both sides, inside, and exactly on the edges.
    x = torch.tensor([-1.5, -0.5, 0.0, 0.25, 0.75, 1.0, 1.5], dtype=torch.float64)
    assert torch.equal(clamp(x), x.clamp(0, 1)), f"forward gave {clamp(x).tolist()}"

    # 2. gradcheck in float64 at points well away from the kinks at 0 and 1: several at
    #    once, in every stretch of the line (below -1, between -1 and 0, inside, above 1).
    away = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(clamp, (away,))  # raises GradcheckError on a mismatch

    # 3. The edges, with an uneven grad_out that must come back unchanged: just outside 0
    #    and 1 the gradient is 0, just inside it is grad_out, and on them anything between
    #    (torch.clamp passes grad_out there, a strict mask (x > 0) & (x < 1) passes 0).
    edges = torch.tensor(
        [-0.001, 0.0, 0.001, 0.999, 1.0, 1.001], dtype=torch.float64, requires_grad=True
    )
    grad_out = torch.tensor([0.5, 2.0, -1.0, 3.0, 0.25, 4.0], dtype=torch.float64)
    sent = grad_out.clone()
    (grad,) = torch.autograd.grad(clamp(edges), edges, grad_out)
    assert torch.equal(grad_out, sent), "backward changed grad_out in place"
    assert follows_the_rule(edges, grad_out, grad).all(), f"gradient {grad.tolist()}"

    # 4. A property, on random inputs and random grad_outs, bounded: forward is
    #    torch.clamp, and the gradient follows the rule.
    @settings(max_examples=50, deadline=None, database=None)
    @given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-2, 2)), min_size=2, max_size=20))
    def random_inputs(pairs):
        values, upstream = zip(*pairs, strict=True)
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        g = torch.tensor(upstream, dtype=torch.float64)
        y = clamp(x)
        assert torch.equal(y, x.detach().clamp(0, 1))
        (grad,) = torch.autograd.grad(y, x, g)
        assert follows_the_rule(x.detach(), g, grad).all()

    random_inputs()


def grad_outs_gradcheck_sends(fn: type[Function], x: torch.Tensor, **options: object) -> list:
    """Every grad_out gradcheck hands fn's backward at x, in order, as lists of numbers."""
    outcome = Outcome()
    with _observing(fn, outcome, skip_gradcheck=False):
        torch.autograd.gradcheck(fn.apply, (x,), **options)
    return [g.tolist() for g in outcome.grad_outs]


# --- running a learner's test, watched ---------------------------------------------------

_PROFILE = "check-my-checks"  # the Hypothesis settings the learner's checks run under
_GRADCHECK_FILE = inspect.getfile(torch.autograd.gradcheck)
ENOUGH_EXAMPLES = 10  # distinct inputs drawn by hypothesis that make a property test


@dataclass
class Outcome:
    """What one run of a learner's test on one Clamp01 did."""

    found: bool = False  # raised, or returned False
    error: BaseException | None = None
    result: object = None  # what the test gave back
    applied: int = 0  # calls of the candidate's apply
    forward_direct: int = 0  # calls of its forward by hand
    warned: list[str] = field(default_factory=list)
    inputs: list[torch.Tensor] = field(default_factory=list)  # what apply received
    drawn: set = field(default_factory=set)  # distinct inputs apply received from hypothesis
    # The grad_outs the test itself sent to backward (gradcheck's own left out), and what
    # backward gave back for each.
    grad_outs: list[torch.Tensor] = field(default_factory=list)
    grads: list[torch.Tensor | None] = field(default_factory=list)
    example_nonfinite: set[str] = field(default_factory=set)  # "nan"/"inf" in the last example
    backward_drawn: int = 0  # backward calls inside hypothesis's examples, gradcheck's included


def _inside_gradcheck() -> bool:
    """True when gradcheck (or gradgradcheck) is somewhere up the call stack."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == _GRADCHECK_FILE:
            return True
        frame = frame.f_back
    return False


def _nonfinite(t: torch.Tensor) -> set[str]:
    found = {"nan"} if t.isnan().any() else set()
    return found | ({"inf"} if t.isinf().any() else set())


def _uneven(t: torch.Tensor) -> bool:
    """Not one value repeated: each element can be told apart by what comes back."""
    flat = t.flatten()
    return flat.numel() > 1 and bool((flat != flat[0]).any())


@contextlib.contextmanager
def _observing(fn: type[Function], outcome: Outcome, skip_gradcheck: bool = True) -> Iterator:
    """Record what fn's apply receives, and what its backward receives and gives back."""
    apply, backward = fn.apply, fn.backward

    def observed_apply(cls: type, *args: object, **kwargs: object) -> object:
        x = next((a for a in args if isinstance(a, torch.Tensor)), None)
        if x is not None:
            seen = x.detach().clone()
            outcome.inputs.append(seen)
            if currently_in_test_context():  # inside one of hypothesis's examples
                outcome.drawn.add((seen.dtype, tuple(seen.shape), repr(seen.flatten().tolist())))
                outcome.example_nonfinite = _nonfinite(seen)
        return apply(*args, **kwargs)

    @functools.wraps(backward)
    def observed_backward(ctx: object, *grad_outs: object) -> object:
        first = grad_outs[0] if grad_outs else None
        mine = isinstance(first, torch.Tensor) and not (skip_gradcheck and _inside_gradcheck())
        sent = first.detach().clone() if mine else None
        outcome.backward_drawn += currently_in_test_context()
        result = backward(ctx, *grad_outs)
        if sent is not None:
            grad = result[0] if isinstance(result, tuple) and result else result
            outcome.grad_outs.append(sent)
            outcome.grads.append(grad.detach().clone() if isinstance(grad, torch.Tensor) else None)
            if currently_in_test_context():
                outcome.example_nonfinite |= _nonfinite(sent)
        return result

    with patched(fn, apply=classmethod(observed_apply), backward=staticmethod(observed_backward)):
        yield


@contextlib.contextmanager
def _steady_hypothesis() -> Iterator[None]:
    """The learner's property tests draw the same examples every run and write nothing."""
    previous = settings.get_current_profile_name()
    parent = settings.get_profile(previous)
    settings.register_profile(
        _PROFILE, parent=parent, database=None, derandomize=True, deadline=None
    )
    settings.load_profile(_PROFILE)
    try:
        yield
    finally:
        settings.load_profile(previous)


def _run(test: Callable, fn: type[Function]) -> Outcome:
    """Call test(fn) with its output, warnings and changes to torch's state contained."""
    outcome = Outcome()
    quiet = io.StringIO()
    with (
        preserved_global_state(),
        _steady_hypothesis(),
        warnings.catch_warnings(record=True) as caught,
        contextlib.redirect_stdout(quiet),
        contextlib.redirect_stderr(quiet),
        watching(fn) as usage,
        _observing(fn, outcome),
    ):
        warnings.simplefilter("always")
        torch.manual_seed(0)  # random draws of the learner's own are the same every run
        try:
            outcome.result = test(fn)
            outcome.found = outcome.result is False
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # AssertionError, GradcheckError, pytest.fail, ...
            outcome.found, outcome.error = True, error
    outcome.applied, outcome.forward_direct = len(usage.applies), usage.forward_direct
    outcome.warned = [str(w.message) for w in caught]
    return outcome


# --- the verdict ------------------------------------------------------------------------------


class SuiteCheck(ExerciseCheck):
    """ExerciseCheck for a test: every missed bug or missing kind of check is named with a fix."""

    def hint(self, level: object = 1) -> "SuiteCheck":
        shown = super().hint(level).shown
        return SuiteCheck(self.name, self.cases, self.hints, self.hint_call, shown)

    def _also_missed(self) -> list[Case]:
        """The failures after the first that say what to add (not those of correct code)."""
        failed = [c for c in self.cases if not c.passed]
        return [c for c in failed[1:] if c.fix and not c.name.startswith("passes ")]

    def __str__(self) -> str:
        text = super().__str__()
        missed = self._also_missed()
        if not missed:
            return text
        lines = ["Also missed, and what catches each:"]
        lines += [f"  - {c.name.removeprefix('catches ')}. {c.fix}" for c in missed]
        marker = "Fix this one first, then run the check again."
        return text.replace(marker, "\n".join([*lines, marker]), 1)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        page = super()._repr_html_()
        missed = self._also_missed()
        if not missed:
            return page
        items = "".join(
            f"<li>{html.escape(c.name.removeprefix('catches '))}. {html.escape(c.fix)}</li>"
            for c in missed
        )
        block = f"<p><b>Also missed, and what catches each:</b></p><ul>{items}</ul>"
        marker = "<p>Fix this one first, then run the check again.</p>"
        return page.replace(marker, block + marker, 1)


def _numbers(t: torch.Tensor | None) -> str:
    """A short tensor as [a, b, c] with plain numbers (0.001, not 0.0010000000474974513)."""
    if t is None:
        return "nothing"
    values = [f"{v:g}" for v in t.flatten().tolist()[:8]]
    return "[" + ", ".join(values) + (", ...]" if t.numel() > 8 else "]")


def _not_a_function(test: object, argument: str, call: str) -> Case | None:
    """The one case shown when something other than the learner's test function was passed."""
    name = str(getattr(test, "__name__", type(test).__name__))
    owner = getattr(test, "__self__", None)  # YourClamp01.apply was passed
    if not (is_function(test) or is_function(owner) or not callable(test)):
        return None
    if is_function(owner):
        got = f"{owner.__name__}.apply, a Function's apply"
    elif is_function(test):
        got = f"the Function {name}"
    else:
        got = f"{type(test).__name__} {short(test)}"
    return Case(
        f"{argument} is a function",
        False,
        f"your function {argument}(Clamp01Candidate)",
        got,
        f"Pass the function that holds your checks, without calling it: {call}.",
    )


def _common_error_fix(outcome: Outcome, name: str, part: int) -> tuple[str, str] | None:
    """The fix for a slip that stops any test before it can judge a correct Clamp01, and
    where that is taught in Part `part`'s tracks ("" where no section is about it)."""
    error, message = outcome.error, str(outcome.error or "")
    choose = EDGE_READ["choose"]
    if isinstance(error, RuntimeError) and "floating point" in message and "gradients" in message:
        dtype = "torch.float32" if part == 1 else "torch.float64"
        return (
            "Your points are whole numbers (integers), and PyTorch gives gradients only to "
            "tensors of numbers with a decimal point (floating point): write -1.0, not -1 "
            f"(or torch.tensor([...], dtype={dtype})).",
            "",
        )
    if isinstance(error, RuntimeError) and "does not require grad" in message:
        return (
            "Make the input with requires_grad=True before calling the Clamp01, so autograd "
            "records the step and can give its gradient.",
            EDGE_READ["tensors"] if part == 1 else "",
        )
    if isinstance(error, RuntimeError) and "Mismatch in shape" in message:
        return "grad_out needs exactly one number for each number of x, in the same shape.", choose
    if isinstance(error, RuntimeError) and "Boolean value of Tensor" in message:
        return (
            "An `if` or an `assert` met a tensor of several values, which is neither True nor "
            "False: compare whole tensors with torch.equal(a, b), or use (a == b).all().",
            EDGE_READ["your turn"],
        )
    if isinstance(error, RuntimeError) and "only for scalar outputs" in message:
        return (
            "backward() without an argument needs one number: pass an uneven grad_out, "
            "y.backward(grad_out) or torch.autograd.grad(y, x, grad_out). (y.sum().backward() "
            "runs too, but sends only ones.)",
            choose,
        )
    if isinstance(error, NameError):
        return (
            f"{error.name} does not exist where {name} was written: run the cell that "
            "defines or imports it first.",
            "",
        )
    if isinstance(error, TypeError) and "positional argument" in message:
        return (
            f"{name} must take exactly one argument, the Clamp01 to check: "
            f"def {name}(Clamp01Candidate): ...",
            EDGE_READ["your turn"] if part == 1 else READ["must do"],
        )
    return None


def _correct_case(
    who: str,
    label: str,
    outcome: Outcome,
    fix: Callable[[], tuple[str, str]],
    note: str = "",
    apply_read: str = READ["apply"],
) -> Case:
    """The test `who` passes a correct Clamp01, and actually ran it; `fix` explains a failure
    (`apply_read`: where the track the learner is on teaches apply)."""
    name = f"passes {label}"
    expected = f"{who} runs it through Clamp01Candidate.apply and finds nothing wrong"
    if outcome.forward_direct and (outcome.found or not outcome.applied):
        return Case(
            name,
            False,
            expected,
            f"{who} called Clamp01Candidate.forward by hand {outcome.forward_direct} time(s)",
            "Call Clamp01Candidate.apply(x): forward alone records no backward, so none of "
            "your gradient checks tested the Clamp01 you were given.",
            apply_read,
        )
    if not outcome.applied and not outcome.found:
        return Case(
            name,
            False,
            expected,
            f"{who} never called Clamp01Candidate.apply, so it checked something else",
            note
            or f"Write every check in terms of the Function {who} is given, not a Clamp01 of "
            "your own: start with clamp = Clamp01Candidate.apply, then use clamp(x).",
        )
    if not outcome.found:
        return Case(name, True)
    return Case(name, False, expected, _describe(outcome, who), *fix())


def _splits_at_the_edges(clamp: CorrectClamp, passed: list[CorrectClamp]) -> CorrectClamp | None:
    """A passed correct Clamp01 that differs from `clamp` only at exactly 0 and 1, if any."""
    return next((other for other in passed if other.at_edges != clamp.at_edges), None)


def _describe(outcome: Outcome, who: str) -> str:
    """What one run of the test `who` did, in one line."""
    if outcome.error is None:
        return f"{who} returned False" if outcome.found else f"{who} found nothing wrong"
    failure = Failure.of(who, outcome.error)
    line = _learners_line(outcome.error)
    where = f", at the line `{line}`" if line else ""
    notes = [_one_line(n) for n in getattr(outcome.error, "__notes__", [])]
    example = next((n for n in notes if n.startswith(("Falsifying", "Failing"))), "")
    drawn = f" ({example[:117] + '...' if len(example) > 120 else example})" if example else ""
    return f"{who} raised {failure.kind}: {failure.message.rstrip(',.:;')}{where}{drawn}"


def _one_line(note: str) -> str:
    """Hypothesis's multi-line note on the failing example, as one line."""
    text = " ".join(note.split())
    return text.replace("( ", "(").replace(", )", ")").replace(",)", ")")


def _learners_line(error: BaseException) -> str:
    """The last line of the learner's own code in the traceback ("" if none is found)."""
    library = (
        str(Path(torch.__file__).parent),
        str(Path(inspect.getfile(given)).parent),
        str(Path(__file__).parent),
        "site-packages",
    )
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if not f.filename.startswith(library[:3]) and library[3] not in f.filename
    ]
    line = frames[-1].line if frames and frames[-1].line else ""
    return line.split("  # ")[0].strip()  # without a trailing comment


def _not_counted(name: str, why: str) -> Case:
    return Case(name, False, got=f"not counted: {why}")


# --- Part 1: the edges, with an uneven upstream gradient -------------------------------------

EDGE_HINT_CALL = "check_edge_test(my_edge_test, hint={})"
_EDGE_UNEVEN = "sends each point its own upstream gradient"
_FAILS_CORRECT = "your test also fails a correct Clamp01 (see above)"
EDGE_CORRECT = (
    ("the course's Clamp01 (correct)", CORRECT[0]),
    ("a Clamp01 that gives back 0 at exactly 0 and 1 (also correct)", CORRECT[2]),
)
# Part 1's broken Clamp01s, in the beginner tracks' words: what is wrong, what catches it.
EDGE_BUGS = (
    (
        passes_everything,
        "a backward that lets every gradient through",
        "Add a point outside 0 to 1, below 0 or above 1: there a correct Clamp01 gives back "
        "0, and this one gives back grad_out.",
    ),
    (
        drops_grad_out,
        "a backward that forgets grad_out",
        "Send an upstream gradient that is not 1. This backward gives back 1 between 0 and "
        "1 whatever arrives, so with a grad_out of 1 it looks right; with 20 it gives back 1 "
        "instead of 20.",
    ),
    (
        inverted_mask,
        "a backward that blocks the gradient between 0 and 1 and lets it through outside",
        "Add a point between 0 and 1: there a correct Clamp01 passes grad_out on.",
    ),
    (
        hardtanh_mask,
        "a backward that also lets the gradient through between -1 and 0",
        "Add a point just below 0, such as -0.5: this backward starts letting the gradient "
        "through at -1 instead of at 0.",
    ),
    (
        relu_mask,
        "a backward that forgets the edge at 1",
        "Add a point above 1, such as 1.5: this backward lets the gradient through "
        "everywhere above 0, also past 1.",
    ),
)
# Where Part 1 teaches what catches each: the rule, shown on points outside and inside the
# range, is in the section on Clamp01; a grad_out other than 1, in the one on choosing it.
EDGE_READ_FOR_BUG = {
    passes_everything: EDGE_READ["clamp"],
    drops_grad_out: EDGE_READ["choose"],
    inverted_mask: EDGE_READ["clamp"],
    hardtanh_mask: EDGE_READ["clamp"],
    relu_mask: EDGE_READ["clamp"],
}


def _edge_hints() -> tuple[Hint, ...]:
    return (
        Hint(
            "the idea",
            "A test is worth something only if it fails on a broken Clamp01 and passes a "
            "correct one. Put one point on each side of each edge: below 0 (between -1 and 0), "
            "just above 0, just below 1, and above 1. Give each point its own upstream "
            "gradient, all different, such as 10, 20, 30 and 40. Then write down what a correct "
            "Clamp01 gives back: the upstream gradient where the point is between 0 and 1, "
            "and 0 where it is outside. Leave exactly 0 and 1 out: at those corners either "
            "answer is right.",
        ),
        Hint(
            "the PyTorch calls",
            "x = torch.tensor([...], requires_grad=True) holds the points; grad_out = "
            "torch.tensor([...]) holds one number per point; "
            "Clamp01Candidate.apply(x).backward(grad_out) sends grad_out back through the "
            "Clamp01 you were given, and x.grad is what came back; expected = "
            "torch.tensor([...]) holds what should come back; return torch.equal(x.grad, "
            "expected) gives back True only when every number matches.",
        ),
        Hint(
            "the answer",
            "the course's tested answer, lessons_lib.clamp_exercise.edge_test:",
            inspect.getsource(edge_test),
        ),
    )


def check_edge_test(my_edge_test: object, hint: int = 0) -> SuiteCheck:
    """Part 1's self-check: run a learner's my_edge_test on correct and broken Clamp01s.

    `hint=1, 2, 3` also shows the idea, then the PyTorch calls, then the answer. Never raises.
    """
    name = str(getattr(my_edge_test, "__name__", type(my_edge_test).__name__))
    wrong = _not_a_function(my_edge_test, "my_edge_test", "check_edge_test(my_edge_test)")
    if wrong is not None:
        return SuiteCheck(name, [wrong], _edge_hints(), EDGE_HINT_CALL).hint(hint)
    runs = [(label, clamp, _run(my_edge_test, clamp.make())) for label, clamp in EDGE_CORRECT]
    first = runs[0][2]
    answers = _gives_true_or_false(first)
    names = [f"passes {label}" for label, *_ in runs]
    names += [f"catches {wrong}" for _, wrong, _ in EDGE_BUGS] + [_EDGE_UNEVEN]
    if not answers.passed:
        later = [_not_counted(n, "fix the first problem first") for n in names]
        return SuiteCheck(name, [answers, *later], _edge_hints(), EDGE_HINT_CALL).hint(hint)
    passed = [clamp for _, clamp, outcome in runs if not outcome.found]
    cases = [answers]
    for label, clamp, outcome in runs:
        fix = functools.partial(_edge_fix_for_correct, outcome, clamp, passed, name)
        cases.append(_correct_case("my_edge_test", label, outcome, fix, "", EDGE_READ["apply"]))
    if not all(c.passed for c in cases):
        cases += [_not_counted(n, _FAILS_CORRECT) for n in names[len(runs) :]]
        return SuiteCheck(name, cases, _edge_hints(), EDGE_HINT_CALL).hint(hint)
    for make, wrong, catch in EDGE_BUGS:
        outcome = _run(my_edge_test, make())
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
    return SuiteCheck(name, cases, _edge_hints(), EDGE_HINT_CALL).hint(hint)


def _gives_true_or_false(outcome: Outcome) -> Case:
    name = "my_edge_test gives back True or False"
    if outcome.error is not None or isinstance(outcome.result, bool):
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
    outcome: Outcome, clamp: CorrectClamp, passed: list[CorrectClamp], name: str
) -> tuple[str, str]:
    """Why a correct Clamp01 failed the learner's edge test, in the beginner tracks' words."""
    other = _splits_at_the_edges(clamp, passed)
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
    common = _common_error_fix(outcome, name, part=1)
    if common:
        return common
    if outcome.error is None and outcome.grad_outs:
        return (
            "This Clamp01 is correct, so my_edge_test should give back True for it. For your "
            f"x = {_numbers(outcome.inputs[-1])} and grad_out = {_numbers(outcome.grad_outs[-1])}"
            f", it gave back x.grad = {_numbers(outcome.grads[-1])}: compare that with your "
            "expected, number by number. The rule: grad_out where x is between 0 and 1, and 0 "
            "where x is below 0 or above 1.",
            EDGE_READ["choose"],
        )
    return (
        "This Clamp01 is correct, so my_edge_test should give back True for it: send your "
        "grad_out with Clamp01Candidate.apply(x).backward(grad_out), then compare x.grad "
        "with the rule: grad_out where x is between 0 and 1, and 0 where it is outside.",
        EDGE_READ["choose"],
    )


def _edge_uneven_case(outcome: Outcome) -> Case:
    expected = "an upstream gradient with a different number for each point"
    if any(_uneven(g) for g in outcome.grad_outs):
        return Case(_EDGE_UNEVEN, True)
    if not outcome.grad_outs:
        return Case(
            _EDGE_UNEVEN,
            False,
            expected,
            "the Clamp01's backward never ran",
            "Send your upstream gradient back through the Clamp01 you were given: "
            "Clamp01Candidate.apply(x).backward(grad_out).",
            EDGE_READ["choose"],
        )
    last = outcome.grad_outs[-1]
    repeated = "a single number" if last.numel() == 1 else "one number repeated"
    return Case(
        _EDGE_UNEVEN,
        False,
        expected,
        f"backward got grad_out = {_numbers(last)}, {repeated}",
        "Give each point its own upstream gradient, all different, such as "
        "torch.tensor([10.0, 20.0, 30.0, 40.0]) for four points. Then each number of x.grad "
        "shows which upstream gradient it came from, and a backward that gives back 1 "
        "instead of grad_out cannot look right by chance. (y.sum().backward() sends a 1 to "
        "every point.)",
        EDGE_READ["choose"],
    )


# --- Part 2: a full suite ----------------------------------------------------------------------

# Where each bug's kind of check is taught.
READ_FOR_BUG = {
    "passes-everything": READ["gradcheck"],  # shows gradcheck catching this very bug
    "drops-grad-out": READ["uneven"],  # shows this bug hiding behind a grad_out of ones
    "inverted-mask": READ["gradcheck"],  # points on every stretch, inside (0, 1) included
    "hardtanh-mask": READ["doctor"],  # shows it passing gradcheck on points inside (0, 1)
    "no-lower-bound": READ["doctor"],
    "zero-at-one": READ["doctor"],
    "writes-grad-out": READ["doctor"],
    "python-and": READ["doctor"],  # its table: `and` raises on several elements
    "relu-mask": READ["gradcheck"],  # points on every stretch, above 1 included
    "abs-grad-out": READ["sends"],  # shows gradcheck passing it, and what catches it
}

HINT_CALL = "check_my_checks(my_checks, hint={})"
UNEVEN = "asserts the gradient for an uneven grad_out of its own, negative values included"
PROPERTY = "runs a property test that checks the gradient on many inputs drawn by hypothesis"
RULE = (
    "forward is torch.clamp(x, 0, 1); the gradient is grad_out where 0 < x < 1 and 0 where "
    "x < 0 or x > 1; at exactly 0 and 1, where the slope jumps, any value between 0 and "
    "grad_out is right (torch.clamp passes grad_out there, a strict mask passes 0)"
)


def _hints() -> tuple[Hint, ...]:
    return (
        Hint(
            "the idea",
            "A check is worth something only if it fails on broken code. Give the Clamp01 "
            "several inputs at once, in every stretch of the line (below -1, between -1 and "
            "0, inside, above 1) and exactly on 0 and 1; compare forward with torch.clamp; "
            "keep gradcheck's points away from the kinks at 0 and 1, and check the edges "
            "yourself with an uneven grad_out, some of it negative, that must come back "
            "unchanged; assert every number of the gradient: grad_out just inside, 0 just "
            "outside, and anything between 0 and grad_out exactly on 0 and 1. Then let "
            "hypothesis draw many inputs and grad_outs, bounded, and check the same rule, "
            "gradient included, on each.",
        ),
        Hint(
            "the PyTorch calls",
            "clamp = Clamp01Candidate.apply; torch.equal(clamp(x), x.clamp(0, 1)) for forward; "
            "torch.autograd.gradcheck(clamp, (x,)) with x float64, requires_grad=True and no "
            "point near 0 or 1; (grad,) = torch.autograd.grad(clamp(x), x, grad_out) with an "
            "uneven grad_out such as torch.tensor([0.5, 2.0, -1.0, 3.0, ...]), a copy made by "
            "grad_out.clone() to compare with afterwards, grad_out * ((x > 0) & (x < 1)) as "
            "the expected gradient off the edges, and ((grad_out.clamp(max=0) <= grad) & "
            "(grad <= grad_out.clamp(min=0))).all() on them; for random inputs, an inner "
            "function decorated with @given(st.lists(st.tuples(st.floats(-3, 3), "
            "st.floats(-2, 2)), min_size=2)) from hypothesis, which draws a point and a "
            "grad_out for each element, called at the end of my_checks.",
        ),
        Hint(
            "the answer",
            "the course's tested answer, lessons_lib.clamp_exercise.reference_checks:",
            inspect.getsource(reference_checks),
        ),
    )


def check_my_checks(my_checks: object, hint: int = 0) -> SuiteCheck:
    """Part 2's self-check: run a learner's my_checks on correct and broken Clamp01s; say what
    it caught and missed, and whether it asserts the gradient for an uneven grad_out of its
    own and in a property test.

    `hint=1, 2, 3` also shows the idea, then the PyTorch calls, then the answer. Never raises.
    """
    name = str(getattr(my_checks, "__name__", type(my_checks).__name__))
    wrong = _not_a_function(my_checks, "my_checks", "check_my_checks(my_checks)")
    if wrong is not None:
        return SuiteCheck(name, [wrong], _hints(), HINT_CALL).hint(hint)
    source = _read_source(my_checks)
    note = source.note
    runs = [(clamp, _run(my_checks, clamp.make())) for clamp in CORRECT]
    passed = [clamp for clamp, outcome in runs if not outcome.found]
    cases = [
        _correct_case(
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
    bugs = {bug.key: _run(my_checks, bug.make()) if trusted else None for bug in EXERCISE_BUGS}
    cases += [_bug_case(bug, bugs[bug.key], trusted, note) for bug in EXERCISE_BUGS]
    course = runs[0][1]
    # The property test's gradient is judged on a Clamp01 that is wrong only while
    # hypothesis draws, so only a property test that checks the gradient can catch it.
    enough = trusted and len(course.drawn) >= ENOUGH_EXAMPLES
    probe = _run(my_checks, wrong_while_hypothesis_draws()) if enough else None
    cases += [
        _uneven_case(course, trusted, bugs[ABS_GRAD_OUT.key]),
        _property_case(course, trusted, source, probe),
    ]
    return SuiteCheck(name, cases, _hints(), HINT_CALL).hint(hint)


def run_my_checks(my_checks: object, fn: object) -> str:
    """Run my_checks(fn) once, contained as check_my_checks runs it; say what happened."""
    if is_function(my_checks) or not callable(my_checks):
        return (
            "Pass your checks first and the Function second: run_my_checks(my_checks, YourClamp01)."
        )
    if not is_function(fn):
        return "The second argument must be a Function class, such as YourClamp01 (not YourClamp01.apply)."
    outcome = _run(my_checks, fn)
    if not outcome.found:
        return f"my_checks found nothing wrong with {fn.__name__}"
    return f"{_describe(outcome, 'my_checks')} (run on {fn.__name__})"


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
    other = _splits_at_the_edges(clamp, passed)
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
    common = _common_error_fix(outcome, "my_checks", part=2)
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
        return _not_counted(name, "your checks also fail a correct Clamp01 (see above)")
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
        return _not_counted(UNEVEN, "your checks also fail a correct Clamp01 (see above)")
    expected = (
        "my_checks sends backward a grad_out of its own whose values differ, some of them "
        "negative, and fails when the gradient that comes back is wrong"
    )
    if not any(_uneven(g) for g in outcome.grad_outs):
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
            "grad_outs (a 1 among zeros, then zeros) do not count here: they are never "
            "negative, and never reach the edges, which gradcheck must stay away from.",
            READ["uneven"],
        )
    if abs_run.found:
        return Case(UNEVEN, True)
    pairs = [(g, grad) for g, grad in zip(abs_run.grad_outs, abs_run.grads, strict=True)]
    flipped = [(g, grad) for g, grad in pairs if grad is not None and ((g < 0) & (grad > 0)).any()]
    if flipped:
        g, grad = flipped[0]
        got = (
            f"for grad_out = {_numbers(g)}, abs-grad-out gave back {_numbers(grad)}, a negative "
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
    return Case(
        UNEVEN,
        False,
        expected,
        got,
        "Sending an uneven grad_out is half the check; the other half is asserting what comes "
        "back. Put negative values in it, at points inside (0, 1) too, and assert every "
        "number of the gradient against the rule: grad == grad_out * ((x > 0) & (x < 1)) away "
        "from 0 and 1, and between 0 and grad_out on them (check 3 of Part 2's answer). An "
        "assertion on a few points only passes a backward that gets the others wrong.",
        READ["sends"],
    )


def _property_case(outcome: Outcome, trusted: bool, source: _Source, probe: Outcome | None) -> Case:
    """A property test ran on many drawn inputs, and checks the gradient: it catches a
    Clamp01 (`probe`) whose backward is wrong only inside hypothesis's examples."""
    if not trusted:
        return _not_counted(PROPERTY, "your checks also fail a correct Clamp01 (see above)")
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
