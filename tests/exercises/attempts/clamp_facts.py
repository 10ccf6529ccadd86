"""What an attempt did, recorded by running it ourselves on each Clamp01: what it returned or
raised (and from which line), what its Clamp01's apply received, the grad_outs backward got
and gave back for them, forward called by hand, what hypothesis drew. The behaviour
signature, the oracles and the claim-checkers all read these facts, never the check's text.
"""

import contextlib
import inspect
import io
import linecache
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch
from hypothesis import currently_in_test_context, settings
from torch.autograd import Function

from lessons_lib import broken_clamps

_GRADCHECK_FILE = inspect.getfile(torch.autograd.gradcheck)

# Every Clamp01 an attempt is run on: the correct ones, each broken one, and the one that is
# wrong only while hypothesis draws (which only a property test that checks the gradient sees).
CORRECT = {c.make.__name__: c.make for c in broken_clamps.CORRECT}
BROKEN = {b.key: b.make for b in broken_clamps.EXERCISE_BUGS}
PROBE = "wrong-while-hypothesis-draws"
CLAMPS: dict[str, Callable[[], type[Function]]] = {
    **CORRECT,
    **BROKEN,
    PROBE: broken_clamps.wrong_while_hypothesis_draws,
}


@dataclass(frozen=True)
class Applied:
    """One call of the candidate's apply: the input, and where it was called from."""

    x: torch.Tensor
    requires_grad: bool
    in_gradcheck: bool
    drawn: bool  # inside one of hypothesis's examples


@dataclass(frozen=True)
class Backward:
    """One call of the candidate's backward: the grad_out it got and the gradient it gave."""

    grad_out: torch.Tensor
    grad: torch.Tensor | None
    in_gradcheck: bool
    drawn: bool


@dataclass
class Run:
    """One run of an attempt on one Clamp01."""

    returned: object = None
    error: BaseException | None = None
    error_line: str = ""  # the attempt's own line the error came from
    own_raise: bool = False  # that line is a `raise` statement of the attempt's
    applied: list[Applied] = field(default_factory=list)
    backwards: list[Backward] = field(default_factory=list)
    forward_direct: int = 0

    @property
    def error_type(self) -> str:
        return type(self.error).__name__ if self.error is not None else ""

    @property
    def fails(self) -> bool:
        """Raised, or returned False: the attempt says this Clamp01 is wrong."""
        return self.error is not None or self.returned is False

    def own_grad_outs(self) -> list[Backward]:
        """Backward calls of the attempt's own, not gradcheck's."""
        return [b for b in self.backwards if not b.in_gradcheck]

    def drawn_inputs(self) -> set[tuple]:
        """The distinct inputs apply received from hypothesis."""
        return {
            (a.x.dtype, tuple(a.x.shape), repr(a.x.flatten().tolist()))
            for a in self.applied
            if a.drawn
        }


def _inside_gradcheck() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == _GRADCHECK_FILE:
            return True
        frame = frame.f_back
    return False


def _watch(cls: type[Function], run: Run) -> None:
    """Instrument a fresh class (every factory makes a new one, so nothing leaks)."""
    apply, forward, backward = cls.apply, cls.forward, cls.backward
    depth = [0]

    def watched_apply(_cls: type, *args: object) -> object:
        x = next((a for a in args if isinstance(a, torch.Tensor)), None)
        if x is not None:
            seen = Applied(
                x.detach().clone(),
                x.requires_grad,
                _inside_gradcheck(),
                currently_in_test_context(),
            )
            run.applied.append(seen)
        depth[0] += 1
        try:
            return apply(*args)
        finally:
            depth[0] -= 1

    def watched_forward(*args: object) -> object:
        run.forward_direct += depth[0] == 0
        return forward(*args)

    def watched_backward(ctx: object, grad_out: object) -> object:
        sent = grad_out.detach().clone() if isinstance(grad_out, torch.Tensor) else None
        result = backward(ctx, grad_out)
        if sent is not None:
            grad = result[0] if isinstance(result, tuple) and result else result
            kept = grad.detach().clone() if isinstance(grad, torch.Tensor) else None
            run.backwards.append(
                Backward(sent, kept, _inside_gradcheck(), currently_in_test_context())
            )
        return result

    cls.apply = classmethod(watched_apply)
    cls.forward = staticmethod(watched_forward)
    cls.backward = staticmethod(watched_backward)


@contextlib.contextmanager
def hypothesis_profile(name: str, **changes: object) -> Iterator[None]:
    """Hypothesis's settings with `changes` (on top of the current profile) while inside."""
    previous = settings.get_current_profile_name()
    settings.register_profile(name, parent=settings.get_profile(previous), **changes)
    settings.load_profile(name)
    try:
        yield
    finally:
        settings.load_profile(previous)


def _steady_hypothesis() -> contextlib.AbstractContextManager[None]:
    """The same examples on every run, as the check draws them (derandomized, no database)."""
    return hypothesis_profile("clamp-attempt-facts", database=None, derandomize=True, deadline=None)


def _where(error: BaseException, module_file: str) -> tuple[str, bool]:
    """The attempt's own last line in the traceback, and whether it is a `raise`."""
    # walk_tb, not extract_tb: only the attempt's own lines are read (thousands of runs).
    rows = [
        n for f, n in traceback.walk_tb(error.__traceback__) if f.f_code.co_filename == module_file
    ]
    if not rows:
        return "", False
    line = linecache.getline(module_file, rows[-1]).strip()
    return line, line.startswith("raise ") or line == "raise"


def run_on(test: Callable, clamp: str) -> Run:
    """Run `test` on a fresh Clamp01 `clamp`, with its output and torch's state contained."""
    run = Run()
    cls = CLAMPS[clamp]()
    _watch(cls, run)
    module_file = getattr(inspect.getmodule(test), "__file__", "") or ""
    state = (torch.is_grad_enabled(), torch.get_default_dtype(), torch.is_anomaly_enabled())
    quiet = io.StringIO()
    with (
        _steady_hypothesis(),
        contextlib.redirect_stdout(quiet),
        contextlib.redirect_stderr(quiet),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        rng = torch.get_rng_state()
        torch.default_generator.manual_seed(
            0
        )  # CPU only: torch.manual_seed also seeds CUDA, slowly
        try:
            run.returned = test(cls)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # AssertionError, GradcheckError, SystemExit, ...
            run.error = error
            run.error_line, run.own_raise = _where(error, module_file)
    torch.set_rng_state(rng)
    torch.set_grad_enabled(state[0])
    torch.set_default_dtype(state[1])
    torch.autograd.set_detect_anomaly(state[2])
    return run


@dataclass
class Facts:
    """Every run of one attempt, by Clamp01."""

    runs: dict[str, Run]

    @property
    def course(self) -> Run:
        return self.runs["course_clamp01"]


def facts_of(test: Callable, clamps: tuple[str, ...] = tuple(CLAMPS)) -> Facts:
    """Run `test` on each Clamp01 in `clamps`."""
    return Facts({c: run_on(test, c) for c in clamps})


def _value(v: object) -> str:
    if isinstance(v, torch.Tensor):
        return f"tensor{tuple(v.shape)}{v.dtype}{[round(x, 6) for x in v.flatten().tolist()]}"
    return f"{type(v).__name__}:{v!r}"[:80]


def signature(facts: Facts) -> tuple:
    """The attempt's behaviour: per Clamp01, what it returned or raised; and on the course's
    Clamp01, the points it sent, the grad_outs, how many hypothesis inputs, forward by hand."""
    ends = tuple(
        (name, run.error_type or _value(run.returned)) for name, run in sorted(facts.runs.items())
    )
    course = facts.course
    sent = tuple(
        (_value(a.x), a.requires_grad, a.in_gradcheck) for a in course.applied if not a.drawn
    )
    grad_outs = tuple(_value(b.grad_out) for b in course.own_grad_outs() if not b.drawn)
    return ends, sent, grad_outs, len(course.drawn_inputs()), course.forward_direct
