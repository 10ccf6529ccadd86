"""Running a learner's test on one Clamp01, contained and watched: what apply received, the
grad_outs backward was sent and gave back, what hypothesis drew, and how the test ended.
"""

import contextlib
import functools
import inspect
import io
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch
from hypothesis import Phase, currently_in_test_context, given, settings
from torch.autograd import Function

from lessons_lib.exercises.base import contained
from lessons_lib.running import Failure, InputError, as_function, first_line
from lessons_lib.running.arguments import MISSING, refuse
from lessons_lib.watch import patched, watching


def grad_outs_gradcheck_sends(
    fn: type[Function] = MISSING, x: torch.Tensor = MISSING, **options: object
) -> list:
    """Every grad_out gradcheck hands fn's backward at x, in order, as lists of numbers.

    With check_batched_grad=True, the batch gradcheck sends through vmap is left out: a
    batched tensor holds no values to read (its two rows reach backward first, one at a time).
    `fn` is a Function (`Clamp01` or `Clamp01.apply`); `x` one tensor (or a tuple holding
    one); anything else, or a gradcheck that cannot start, is one line, not a traceback."""
    call = "grad_outs_gradcheck_sends(Clamp01, x)"
    function = as_function(fn)
    if function is None:
        refuse("grad_outs_gradcheck_sends", fn, "a Function class first", call)
    if isinstance(x, tuple | list) and len(x) == 1:
        (x,) = x
    if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.requires_grad):
        refuse("grad_outs_gradcheck_sends", x, "a float64 tensor with requires_grad=True", call)
    outcome = Outcome()
    with _observing(function, outcome, skip_gradcheck=False):
        try:
            torch.autograd.gradcheck(function.apply, (x,), **options)
        except TypeError as error:  # an option gradcheck does not take
            raise InputError(f"grad_outs_gradcheck_sends: {first_line(error)}") from None
    return [g.tolist() for g in outcome.grad_outs]


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


def _readable_copy(t: torch.Tensor) -> torch.Tensor | None:
    """A copy of t, or None for a tensor batched by gradcheck's vmap, which cannot be read."""
    try:
        return t.detach().clone()
    except RuntimeError:  # "Batching rule not implemented for aten::detach"
        return None


def uneven(t: torch.Tensor) -> bool:
    """Not one value repeated: each element can be told apart by what comes back."""
    flat = t.flatten()
    return flat.numel() > 1 and bool((flat != flat[0]).any())


def all_different(t: torch.Tensor) -> bool:
    """A different number at every point: each element of x.grad shows which it came from."""
    flat = t.flatten().tolist()
    return len(flat) > 1 and len(set(flat)) == len(flat)


def repeated(t: torch.Tensor) -> list[float]:
    """The numbers that occur more than once in t, in the order they first occur."""
    flat = t.flatten().tolist()
    return [v for i, v in enumerate(flat) if flat.index(v) == i and flat.count(v) > 1]


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
        sent = _readable_copy(first) if mine else None
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
    # No explain phase: it adds only comments, which _one_line strips, and it traces every
    # shrinking step (Part 2 of lesson 3's check on 46 generated suites: 27.5 s of CPU, 5.8 s).
    phases = tuple(p for p in parent.phases if p is not Phase.explain)
    settings.register_profile(
        _PROFILE, parent=parent, database=None, derandomize=True, deadline=None, phases=phases
    )
    settings.load_profile(_PROFILE)
    try:
        yield
    finally:
        settings.load_profile(previous)


def run(test: Callable, fn: type[Function]) -> Outcome:
    """Call test(fn) with its output, warnings and changes to torch's state contained."""
    outcome = Outcome()
    quiet = io.StringIO()
    with (
        contained() as caught,
        _steady_hypothesis(),
        contextlib.redirect_stdout(quiet),
        contextlib.redirect_stderr(quiet),
        watching(fn) as usage,
        _observing(fn, outcome),
    ):
        # Random draws of the learner's own are the same every run. With no accelerator,
        # torch.manual_seed seeds the CPU alone too, after queueing a CUDA seed with a stack
        # trace (about 1 ms a run).
        if torch.accelerator.is_available():
            torch.manual_seed(0)
        else:
            torch.default_generator.manual_seed(0)
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


def describe(outcome: Outcome, who: str) -> str:
    """What one run of the test `who` did, in one line."""
    if outcome.error is None:
        return f"{who} returned False" if outcome.found else f"{who} found nothing wrong"
    failure = Failure.of(who, outcome.error)
    line = _learners_line(outcome.error)
    where = f", at the line `{line}`" if line else ""
    if failure.own and line:
        raised = "assert" if line.startswith("assert") else "raise"  # the statement's word
        where = f", by your own {raised} at the line `{line}`"
    notes = [_one_line(n) for n in _notes(outcome.error)]
    example = next((n for n in notes if n.startswith(("Falsifying", "Failing"))), "")
    drawn = f" ({example[:117] + '...' if len(example) > 120 else example})" if example else ""
    return f"{who} raised {failure.kind}: {failure.message.rstrip(',.:;')}{where}{drawn}"


def _notes(error: BaseException) -> list[str]:
    """The error's notes; for hypothesis's group of several failures, its first one's too."""
    notes = list(getattr(error, "__notes__", []))
    if isinstance(error, BaseExceptionGroup) and error.exceptions:
        notes += _notes(error.exceptions[0])
    return notes


def falsifying_example(outcome: Outcome) -> bool:
    """Did hypothesis report the input the test failed on?"""
    if outcome.error is None:
        return False
    return any(n.startswith(("Falsifying", "Failing")) for n in _notes(outcome.error))


def _one_line(note: str) -> str:
    """Hypothesis's multi-line note on the failing example, as one line, without its
    comments ("# or any other generated value" would swallow what follows it)."""
    text = " ".join(re.sub(r"\s+#[^\n]*", "", note).split())
    return text.replace("( ", "(").replace(", )", ")").replace(",)", ")")


def _learners_line(error: BaseException) -> str:
    """The last line of the learner's own code in the traceback ("" if none is found)."""
    library = (
        str(Path(torch.__file__).parent),
        str(Path(inspect.getfile(given)).parent),
        str(Path(__file__).parents[2]),  # lessons_lib itself
        "site-packages",
    )
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if not f.filename.startswith(library[:3]) and library[3] not in f.filename
    ]
    line = frames[-1].line if frames and frames[-1].line else ""
    return line.split("  # ")[0].strip()  # without a trailing comment
