"""Part 2 of "Choose your surrogate": check_my_surrogate_tests runs a learner's
my_surrogate_tests(spike) on the right spike and on the catalogue's wrong ones, and says which
it caught and missed, whether it held the spike to its declared rule with the doctor, and
whether its property test checks the gradient. Every sentence is read off what a run
recorded (clamp.observe's Outcome, and the doctor's reports made during it). Never raises.
"""

import ast
import contextlib
import inspect
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from torch.autograd.gradcheck import GradcheckError

from lessons_lib.doctor.examination import Examination
from lessons_lib.doctor.report import Report
from lessons_lib.exercises import surrogate_tests_words as words
from lessons_lib.exercises.base import (
    Case,
    ExerciseCheck,
    learners_name,
    named_as_written,
    refused,
)
from lessons_lib.exercises.clamp.observe import (
    ENOUGH_EXAMPLES,
    Outcome,
    describe,
    falsifying_example,
    run,
)
from lessons_lib.exercises.spike_answers import SpikeAnswer
from lessons_lib.exercises.surrogate_mistakes import MISTAKES, Mistake, WrongWhileDrawing
from lessons_lib.running.arguments import MISSING
from lessons_lib.watch import patched

PLACEHOLDER = "my_surrogate_tests"  # the task's name for the learner's function


@dataclass
class DoctorSeen:
    """One doctor report made on the spike during a run: with a grad_reference or not, the
    codes it found, the dtype it checked in, and whether the tests read its `ok`."""

    declared: bool
    codes: tuple[str, ...]
    dtype: str
    read: bool = False


@dataclass
class Watched:
    """One run of the learner's tests: what clamp.observe saw, and every doctor report made
    on the spike."""

    outcome: Outcome
    doctor: list[DoctorSeen] = field(default_factory=list)


@contextlib.contextmanager
def _doctor_reports(spike: type, seen: list[DoctorSeen]) -> Iterator[None]:
    report, ok = Examination.report, Report.ok
    made_here: dict[int, DoctorSeen] = {}

    def recorded(self: Examination, name: str) -> Report:
        made = report(self, name)
        if self.fn is spike:
            made_here[id(made)] = DoctorSeen(
                self.grad_reference is not None, tuple(made.codes), made.dtype
            )
            seen.append(made_here[id(made)])
        return made

    def read_ok(self: Report) -> bool:
        if id(self) in made_here:
            made_here[id(self)].read = True
        return ok.fget(self)

    with patched(Examination, report=recorded), patched(Report, ok=property(read_ok)):
        yield


def watched_run(tests: Callable, spike: type) -> Watched:
    """Run tests(spike) contained, recording the doctor's reports on the spike."""
    doctor: list[DoctorSeen] = []
    with _doctor_reports(spike, doctor):
        outcome = run(tests, spike)
    return Watched(outcome, doctor)


def check_my_surrogate_tests(tests: object = MISSING, hint: object = 0) -> ExerciseCheck:
    """Part 2's self-check: run a learner's my_surrogate_tests on the right spike and the
    catalogue's wrong ones; say what it caught and missed. `hint=1, 2, 3` shows the ladder."""
    wrong = refused(tests, words.WANTED)
    if wrong is not None:
        return wrong.hint(hint)
    name = learners_name(tests, PLACEHOLDER)
    right = watched_run(tests, SpikeAnswer)
    first = _right_case(right)
    cases = [first, _doctor_case(right, first.passed)]
    for mistake in MISTAKES:
        cases.append(_mistake_case(mistake, tests, first.passed))
    probe = watched_run(tests, WrongWhileDrawing).outcome if first.passed else None
    cases.append(_property_case(right.outcome, probe, _uncalled(tests), first.passed))
    # The sentences say "my_surrogate_tests"; the verdict names the function it ran.
    cases = named_as_written(cases, PLACEHOLDER, name)
    call = (
        words.HINT_CALL.replace(f"({PLACEHOLDER},", f"({name},")
        if name.isidentifier()
        else words.HINT_CALL
    )
    return ExerciseCheck(name, cases, words.HINTS, call).hint(hint)


def _right_case(right: Watched) -> Case:
    outcome = right.outcome
    if not outcome.found and not outcome.applied:
        return Case(words.RIGHT, False, words.RIGHT_EXPECTED, words.NEVER_RAN, words.USE_SPIKE)
    if not outcome.found:
        return Case(words.RIGHT, True)
    got = describe(outcome, PLACEHOLDER)
    if isinstance(outcome.error, GradcheckError):
        return Case(words.RIGHT, False, words.RIGHT_EXPECTED, got, words.GRADCHECK, words.READ)
    found = [seen for seen in right.doctor if seen.codes]
    if found and found[0].declared and found[0].codes == ("gradient",):  # only the gradient
        fix = words.DOCTOR_FAILED_RIGHT
    elif found and found[0].declared:
        fix = words.DOCTOR_OTHER_ON_RIGHT.format(codes=", ".join(found[0].codes))
    elif found:
        fix = words.NO_RULE_FAILED_RIGHT
    elif isinstance(outcome.error, NameError) and outcome.error.name:
        fix = words.UNDEFINED.format(name=outcome.error.name) + words.DEFINE.get(
            outcome.error.name, ""
        )
    elif outcome.example_nonfinite and falsifying_example(outcome):
        fix = words.DREW_NONFINITE.format(drawn=" and ".join(sorted(outcome.example_nonfinite)))
    elif falsifying_example(outcome) and _assertion(outcome.error):
        fix = words.RIGHT_OTHERWISE + " " + words.FAILED_ON_DRAWN
    else:
        fix = words.RIGHT_OTHERWISE
    return Case(words.RIGHT, False, words.RIGHT_EXPECTED, got, fix, words.READ)


def _doctor_case(right: Watched, trusted: bool) -> Case:
    if not trusted:
        return Case.not_checked(words.DOCTOR, words.FAILS_RIGHT)
    if any(seen.declared for seen in right.doctor):
        return Case(words.DOCTOR, True)
    got = words.DOCTOR_NO_RULE if right.doctor else words.DOCTOR_NEVER
    return Case(words.DOCTOR, False, words.DOCTOR_EXPECTED, got, words.DOCTOR_FIX, words.READ)


def _mistake_case(mistake: Mistake, tests: Callable, trusted: bool) -> Case:
    name = f"catches {mistake.key}: {mistake.wrong}"
    if not trusted:
        return Case.not_checked(name, words.FAILS_RIGHT)
    watched = watched_run(tests, mistake.fn)
    if watched.outcome.found:
        return Case(name, True)
    found = [seen for seen in watched.doctor if seen.codes]
    if found:  # the doctor found it, and the tests let it pass
        codes = ", ".join(sorted({code for seen in found for code in seen.codes}))
        if any(seen.read for seen in found):
            got, fix = words.REPORT_SWALLOWED.format(codes=codes), words.LET_IT_FAIL
        else:
            got, fix = words.REPORT_UNCHECKED.format(codes=codes), words.CHECK_REPORT
        return Case(name, False, words.CAUGHT_EXPECTED, got, fix, words.READ)
    got = words.MISSED if watched.outcome.applied else words.MISSED_UNRUN
    fix = words.CATCH[mistake.key]
    below = sorted({seen.dtype for seen in watched.doctor if "float64" not in seen.dtype})
    if mistake.key == "float-output" and below:
        fix = words.DOCTOR_BELOW_FLOAT64.format(dtype=" and ".join(below))
    return Case(name, False, words.CAUGHT_EXPECTED, got, fix, words.READ)


def _property_case(right: Outcome, probe: Outcome | None, uncalled: str, trusted: bool) -> Case:
    """A property test ran on drawn inputs and checks the gradient: it catches a spike that
    is wrong only while hypothesis draws."""
    name, expected = words.PROPERTY, words.PROPERTY_EXPECTED.format(n=ENOUGH_EXAMPLES)
    if not trusted or probe is None:
        return Case.not_checked(name, words.FAILS_RIGHT)
    drawn = len(right.drawn)
    if probe.found and drawn >= ENOUGH_EXAMPLES:
        return Case(name, True)
    if probe.found:
        got = words.TOO_FEW.format(inputs=_inputs(drawn))
        return Case(name, False, expected, got, words.DRAW_MORE, words.READ_PROPERTY)
    if uncalled:
        got, fix = words.UNCALLED_GOT.format(test=uncalled), words.UNCALLED.format(test=uncalled)
    elif drawn == 0:
        got, fix = words.NOTHING_DRAWN, words.PROPERTY_HOW
    elif not probe.backward_drawn:
        got, fix = words.NO_GRADIENT_DRAWN.format(inputs=_inputs(drawn)), words.CHECK_GRADIENT
    else:
        fix = words.CHECK_MORE if drawn >= ENOUGH_EXAMPLES else words.DRAW_MORE
        got = words.PROBE_MISSED.format(inputs=_inputs(drawn))
    return Case(name, False, expected, got, fix, words.READ_PROPERTY)


def _assertion(error: BaseException) -> bool:
    """An assert that failed, alone or as the first of hypothesis's group of failures."""
    if isinstance(error, BaseExceptionGroup) and error.exceptions:
        return _assertion(error.exceptions[0])
    return isinstance(error, AssertionError)


def _inputs(count: int) -> str:
    return f"{count} drawn input" + ("" if count == 1 else "s")


def _uncalled(tests: Callable) -> str:
    """The first inner function decorated with @given that the tests never call ("" if none)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(tests)))
    except (OSError, TypeError, SyntaxError):
        return ""
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    for node in ast.walk(tree):
        drawn = isinstance(node, ast.FunctionDef) and any(
            "given" in ast.unparse(d) for d in node.decorator_list
        )
        if drawn and node.name not in called:
            return node.name
    return ""
