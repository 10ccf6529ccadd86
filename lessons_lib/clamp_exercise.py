"""The exercise "Check your Clamp01": the course's answer, and the self-check that checks a
learner's checks.

A learner writes `my_checks(Clamp01Candidate)`, which raises (or returns False) when it
finds a bug. check_my_checks runs it on every broken Clamp01 of lessons_lib.broken_clamps
and on correct ones, and says which bugs it caught, which it missed and how to catch
those; a suite that fails correct code is wrong too. It never raises.
"""

import ast
import contextlib
import html
import inspect
import io
import textwrap
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd import Function
from torch.autograd.gradcheck import GradcheckError

from lessons_lib.broken_clamps import CATALOGUE, CORRECT, BrokenClamp
from lessons_lib.probe import Failure, is_function, preserved_global_state
from lessons_lib.verdict import Case, ExerciseCheck, Hint, short
from lessons_lib.watch import watching


def reference_checks(Clamp01Candidate: type[Function]) -> None:
    """The course's answer: raise an error when Clamp01Candidate is not a correct Clamp01."""
    clamp = Clamp01Candidate.apply

    # 1. Forward is torch.clamp: on both sides, inside, and exactly on the edges.
    x = torch.tensor([-1.5, -0.5, 0.0, 0.25, 0.75, 1.0, 1.5], dtype=torch.float64)
    assert torch.equal(clamp(x), x.clamp(0, 1)), f"forward gave {clamp(x).tolist()}"

    # 2. gradcheck in float64 at points well away from the kinks at 0 and 1: several at
    #    once, in every stretch of the line (below -1, between -1 and 0, inside, above 1).
    away = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(clamp, (away,))  # raises GradcheckError on a mismatch

    # 3. The edges: exactly 0 and 1 let grad_out through (as torch.clamp does), just outside
    #    they block it. grad_out is uneven, and must come back unchanged.
    edges = torch.tensor(
        [-0.001, 0.0, 0.001, 0.999, 1.0, 1.001], dtype=torch.float64, requires_grad=True
    )
    grad_out = torch.tensor([0.5, 2.0, -1.0, 3.0, 0.25, 4.0], dtype=torch.float64)
    sent = grad_out.clone()
    (grad,) = torch.autograd.grad(clamp(edges), edges, grad_out)
    assert torch.equal(grad_out, sent), "backward changed grad_out in place"
    assert grad.tolist() == [0.0, 2.0, -1.0, 3.0, 0.25, 0.0], f"gradient {grad.tolist()}"

    # 4. A property, on random inputs and random grad_outs: forward is torch.clamp, and
    #    the gradient is grad_out where 0 <= x <= 1, and 0 elsewhere.
    @settings(max_examples=50, deadline=None, database=None)
    @given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-2, 2)), min_size=2, max_size=20))
    def follows_the_rule(pairs):
        values, upstream = zip(*pairs, strict=True)
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        g = torch.tensor(upstream, dtype=torch.float64)
        y = clamp(x)
        assert torch.equal(y, x.detach().clamp(0, 1))
        (grad,) = torch.autograd.grad(y, x, g)
        assert torch.equal(grad, g * ((x >= 0) & (x <= 1)))

    follows_the_rule()


# --- checking a learner's checks ---------------------------------------------------------

_DEV = "Lesson 2 developer track"
READ = {
    "gradcheck": f"{_DEV}, “gradcheck: your backward against finite differences”",
    "float64": f"{_DEV}, “float64, and why float32 fails”",
    "kinks": f"{_DEV}, “Inputs at kinks”",
    "pytest": f"{_DEV}, “Testing a Function in a pytest file”",
    "doctor": f"{_DEV}, “What gradcheck finds, and what the doctor finds”",
}
# Where each bug's kind of check is taught.
READ_FOR_BUG = {
    "passes-everything": READ["gradcheck"],
    "drops-grad-out": READ["gradcheck"],
    "inverted-mask": READ["gradcheck"],
    "hardtanh-mask": READ["kinks"],
    "no-lower-bound": READ["doctor"],
    "zero-at-one": READ["doctor"],
    "writes-grad-out": READ["doctor"],
    "python-and": READ["gradcheck"],
}

HINT_CALL = "check_my_checks(my_checks, hint={})"
_PROFILE = "check-my-checks"  # the Hypothesis settings the learner's checks run under


def _hints() -> tuple[Hint, ...]:
    return (
        Hint(
            "the idea",
            "A check is worth something only if it fails on broken code. Give the Clamp01 "
            "several inputs at once, in every stretch of the line (below -1, between -1 and "
            "0, inside, above 1) and exactly on 0 and 1; compare forward and the gradient "
            "with what torch.clamp does; send an uneven grad_out and make sure it comes back "
            "unchanged. Keep gradcheck's points away from the kinks at 0 and 1, and check the "
            "kinks yourself, against the rule.",
        ),
        Hint(
            "the PyTorch calls",
            "clamp = Clamp01Candidate.apply; torch.equal(clamp(x), x.clamp(0, 1)) for forward; "
            "torch.autograd.gradcheck(clamp, (x,)) with x float64, requires_grad=True and no "
            "point near 0 or 1; (grad,) = torch.autograd.grad(clamp(x), x, grad_out) with an "
            "uneven grad_out, a copy made by grad_out.clone() to compare with afterwards, "
            "and grad_out * ((x >= 0) & (x <= 1)) as the expected gradient; for random "
            "inputs, an inner function decorated with @given(st.lists(st.floats(-3, 3), "
            "min_size=2)) from hypothesis, called at the end of my_checks.",
        ),
        Hint(
            "the answer",
            "the course's tested answer, lessons_lib.clamp_exercise.reference_checks:",
            inspect.getsource(reference_checks),
        ),
    )


class SuiteCheck(ExerciseCheck):
    """ExerciseCheck for a suite of checks: every missed bug is named with how to catch it."""

    def hint(self, level: object = 1) -> "SuiteCheck":
        shown = super().hint(level).shown
        return SuiteCheck(self.name, self.cases, self.hints, self.hint_call, shown)

    def _also_missed(self) -> list[Case]:
        """The missed bugs after the first failure, each with what would catch it."""
        failed = [c for c in self.cases if not c.passed]
        return [c for c in failed[1:] if c.name.startswith("catches ") and c.fix]

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


@dataclass
class Outcome:
    """What one run of the learner's checks on one Clamp01 did."""

    found: bool = False  # raised, or returned False
    error: BaseException | None = None
    applied: int = 0  # calls of the candidate's apply
    forward_direct: int = 0  # calls of its forward by hand
    warned: list[str] = field(default_factory=list)


def check_my_checks(my_checks: object, hint: int = 0) -> SuiteCheck:
    """Run a learner's my_checks on correct and broken Clamp01s; say what it caught and missed.

    `hint=1, 2, 3` also shows the idea, then the PyTorch calls, then the answer. Never raises.
    """
    name = str(getattr(my_checks, "__name__", type(my_checks).__name__))
    owner = getattr(my_checks, "__self__", None)  # YourClamp01.apply was passed
    if is_function(my_checks) or is_function(owner) or not callable(my_checks):
        if is_function(owner):
            got = f"{owner.__name__}.apply, a Function's apply"
        elif is_function(my_checks):
            got = f"the Function {name}"
        else:
            got = f"{type(my_checks).__name__} {short(my_checks)}"
        case = Case(
            "my_checks is a function",
            False,
            "your function my_checks(Clamp01Candidate)",
            got,
            "Pass the function that holds your checks, without calling it: "
            "check_my_checks(my_checks).",
        )
        return SuiteCheck(name, [case], _hints(), HINT_CALL).hint(hint)
    note = _source_note(my_checks)
    cases = [_correct_case(label, _run(my_checks, make()), note) for label, make in CORRECT]
    trusted = all(c.passed for c in cases)
    cases += [_bug_case(bug, _run(my_checks, bug.make()), trusted, note) for bug in CATALOGUE]
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
    return f"{_describe(outcome)} (run on {fn.__name__})"


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


def _run(my_checks: Callable, fn: type[Function]) -> Outcome:
    """Call my_checks(fn) with its output, warnings and changes to torch's state contained."""
    outcome = Outcome()
    quiet = io.StringIO()
    with (
        preserved_global_state(),
        _steady_hypothesis(),
        warnings.catch_warnings(record=True) as caught,
        contextlib.redirect_stdout(quiet),
        contextlib.redirect_stderr(quiet),
        watching(fn) as usage,
    ):
        warnings.simplefilter("always")
        torch.manual_seed(0)  # random draws of the learner's own are the same every run
        try:
            outcome.found = my_checks(fn) is False
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # AssertionError, GradcheckError, pytest.fail, ...
            outcome.found, outcome.error = True, error
    outcome.applied, outcome.forward_direct = len(usage.applies), usage.forward_direct
    outcome.warned = [str(w.message) for w in caught]
    return outcome


def _describe(outcome: Outcome) -> str:
    if outcome.error is None:
        return "my_checks returned False" if outcome.found else "my_checks found nothing wrong"
    failure = Failure.of("my_checks", outcome.error)
    line = _learners_line(outcome.error)
    where = f", at the line `{line}`" if line else ""
    notes = [_one_line(n) for n in getattr(outcome.error, "__notes__", [])]
    example = next((n for n in notes if n.startswith(("Falsifying", "Failing"))), "")
    drawn = f" ({example[:117] + '...' if len(example) > 120 else example})" if example else ""
    return f"my_checks raised {failure.kind}: {failure.message.rstrip(',.:;')}{where}{drawn}"


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


def _correct_case(label: str, outcome: Outcome, note: str = "") -> Case:
    """my_checks passes a correct Clamp01, and actually ran it."""
    name = f"passes {label}"
    expected = "my_checks runs it through Clamp01Candidate.apply and finds nothing wrong"
    if outcome.forward_direct and (outcome.found or not outcome.applied):
        return Case(
            name,
            False,
            expected,
            f"my_checks called Clamp01Candidate.forward by hand {outcome.forward_direct} time(s)",
            "Call Clamp01Candidate.apply(x): forward alone records no backward, so none of "
            "your gradient checks tested the Clamp01 you were given.",
            READ["gradcheck"],
        )
    if not outcome.applied and not outcome.found:
        return Case(
            name,
            False,
            expected,
            "my_checks never called Clamp01Candidate.apply, so it checked something else",
            note
            or "Write every check in terms of the Function my_checks is given, not your own "
            "YourClamp01: start with clamp = Clamp01Candidate.apply, then use clamp(x).",
        )
    if not outcome.found:
        return Case(name, True)
    return Case(name, False, expected, _describe(outcome), *_fix_for_correct(outcome))


def _fix_for_correct(outcome: Outcome) -> tuple[str, str]:
    """Why a correct Clamp01 failed the learner's checks, and where that is taught."""
    error = outcome.error
    message = str(error) if error is not None else ""
    rule = (
        "This Clamp01 is correct, so a check that fails it is wrong: forward is "
        "torch.clamp(x, 0, 1), and the gradient is grad_out where 0 <= x <= 1 (both edges "
        "included, as torch.clamp does) and 0 elsewhere."
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
                "slopes 0 and 1, while backward rightly gives 1. Keep gradcheck's points away "
                "from 0 and 1, and check the edges against the rule yourself.",
                READ["kinks"],
            )
        return ("gradcheck failed on correct code. " + rule, READ["gradcheck"])
    if isinstance(error, RuntimeError) and "does not require grad" in message:
        return (
            "Make the input with requires_grad=True before calling clamp(x), so autograd "
            "records the step and can give its gradient.",
            READ["gradcheck"],
        )
    if isinstance(error, RuntimeError) and "Boolean value of Tensor" in message:
        return (
            "An `if` or an `assert` met a tensor of several values, which is neither True nor "
            "False: compare whole tensors with torch.equal(a, b), or use (a == b).all().",
            "",
        )
    if isinstance(error, RuntimeError) and "only for scalar outputs" in message:
        return (
            "backward() without an argument needs one number: use y.sum().backward(), or "
            "better torch.autograd.grad(y, x, grad_out) with an uneven grad_out.",
            "",
        )
    if isinstance(error, NameError):
        return (
            f"{error.name} does not exist where my_checks was written: run the cell that "
            "defines or imports it first.",
            "",
        )
    if isinstance(error, TypeError) and "positional argument" in message:
        return (
            "my_checks must take exactly one argument, the Clamp01 to check: "
            "def my_checks(Clamp01Candidate): ...",
            "",
        )
    if isinstance(error, NotImplementedError) and "jvp" in message:
        return (
            "check_forward_ad=True needs a jvp, which no Clamp01 here defines: check backward "
            "(gradcheck's default) and leave forward mode out.",
            READ["gradcheck"],
        )
    return (rule, "")


def _source_note(my_checks: Callable) -> str:
    """A sentence for two slips that run without error: a dropped gradcheck result, and a
    property test that is defined but never called."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(my_checks)))
    except (OSError, TypeError, SyntaxError):
        return ""
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    for node in ast.walk(tree):
        given_tests = isinstance(node, ast.FunctionDef) and any(
            "given" in ast.unparse(d) for d in node.decorator_list
        )
        if given_tests and node.name not in calls:
            return (
                f"Your property test {node.name} is defined but never called: defining it runs "
                f"nothing, so call {node.name}() at the end of my_checks. "
            )
    for node in ast.walk(tree):
        dropped = isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        if dropped and "raise_exception=False" in ast.unparse(node.value):
            return (
                "gradcheck(..., raise_exception=False) returns False instead of raising, and "
                "my_checks drops that result: assert it (assert gradcheck(...)). "
            )
    return ""


def _bug_case(bug: BrokenClamp, outcome: Outcome, trusted: bool, note: str = "") -> Case:
    name = f"catches {bug.key}: {bug.wrong}"
    if not trusted:
        return Case(
            name,
            False,
            got="not counted: your checks also fail a correct Clamp01 (see above)",
        )
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
