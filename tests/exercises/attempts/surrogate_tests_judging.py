"""check_my_surrogate_tests on one generated suite: every mark and named sentence of its
verdict against what the suite does when run by itself on each spike, and on the doctor.

false_claims(attempt) lists what the verdict got wrong, one line each (empty when all is
true); right(attempt) is the independent oracle: the suite passes SpikeAnswer and catches
every wrong spike when run by itself.
"""

import contextlib

from torch.autograd.gradcheck import GradcheckError

from lessons_lib.doctor.examination import Examination
from lessons_lib.doctor.report import Report
from lessons_lib.exercises import surrogate_tests_words as words
from lessons_lib.exercises.clamp.observe import run
from lessons_lib.exercises.spike_answers import SpikeAnswer
from lessons_lib.exercises.surrogate_mistakes import MISTAKES, WrongWhileDrawing
from lessons_lib.exercises.surrogate_tests import check_my_surrogate_tests
from lessons_lib.watch import patched
from tests.exercises.attempts.surrogate_tests_attempts import SuiteAttempt


@contextlib.contextmanager
def doctor_calls(seen: list[bool]):
    """Record, for every doctor examination of SpikeAnswer, whether it had a grad_reference."""
    start = Examination.__init__

    def init(self, fn, reference, grad_reference, inputs):
        if fn is SpikeAnswer:
            seen.append(grad_reference is not None)
        start(self, fn, reference, grad_reference, inputs)

    with patched(Examination, __init__=init):
        yield


@contextlib.contextmanager
def reports_on(fn, codes: list[str], read: list[bool]):
    """Record the codes of every doctor report made on fn, and whether its ok was read."""
    start, ok = Examination.report, Report.ok
    made_on_fn: set[int] = set()

    def report(self, name):
        made = start(self, name)
        if self.fn is fn:
            codes.extend(made.codes)
            made_on_fn.add(id(made))
        return made

    def read_ok(self):
        read.append(id(self) in made_on_fn)
        return ok.fget(self)

    with patched(Examination, report=report), patched(Report, ok=property(read_ok)):
        yield


def raises(tests, fn) -> bool:
    return run(tests, fn).found


def right(attempt: SuiteAttempt) -> bool:
    """A right suite passes the right spike and catches every wrong one, run by itself."""
    tests = attempt.function()
    wrong = [m.fn for m in MISTAKES] + [WrongWhileDrawing]
    return not raises(tests, SpikeAnswer) and all(raises(tests, fn) for fn in wrong)


def why_right_fails(attempt: SuiteAttempt, error: BaseException) -> str:
    """The fix the first case must give, from the error and the slips the suite was made with."""
    if isinstance(error, GradcheckError):
        return words.GRADCHECK
    if "doctor without grad_reference" in attempt.label:
        return words.NO_RULE_FAILED_RIGHT
    assert "rule" in attempt.label, attempt.label  # the only other slips that fail SpikeAnswer
    return words.DOCTOR_FAILED_RIGHT


def false_claims(attempt: SuiteAttempt) -> list[str]:
    """Every mark or sentence of the verdict on this suite that is not what happened."""
    tests = attempt.function()
    verdict = check_my_surrogate_tests(tests)
    first, doctor, *caught, prop = verdict.cases
    seen: list[bool] = []
    with doctor_calls(seen):
        alone = run(tests, SpikeAnswer)
    fails_right = alone.found
    found = []
    if first.passed is fails_right:
        found.append(
            f"right spike: marked {first.mark}, but the suite alone fails it: {fails_right}"
        )
    later = [doctor, *caught, prop]
    if fails_right:
        if first.fix != why_right_fails(attempt, alone.error):
            found.append(f"right spike: the fix says {first.fix!r}")
        found += [
            f"{c.name}: marked {c.mark}, but it was not checked" for c in later if c.mark != "○"
        ]
        return found
    found += [f"{c.name}: marked {c.mark} (not checked)" for c in later if not c.checked]
    if doctor.passed is not any(seen):
        found.append(f"doctor: marked {doctor.mark}; grad_reference given: {any(seen)}")
    elif not doctor.passed:
        want = words.DOCTOR_NO_RULE if seen else words.DOCTOR_NEVER
        if doctor.got != want:
            found.append(f"doctor: says {doctor.got!r}, the fact is {want!r}")
    for case, mistake in zip(caught, MISTAKES, strict=True):
        codes: list[str] = []
        read: list[bool] = []
        with reports_on(mistake.fn, codes, read):
            caught_it = raises(tests, mistake.fn)
        if case.passed is not caught_it:
            found.append(f"{case.name}: marked {case.mark}, the suite alone disagrees")
        said = words.REPORT_SWALLOWED if any(read) else words.REPORT_UNCHECKED
        reported = said.format(codes=", ".join(sorted(set(codes))))
        if not case.passed and (case.got == reported) is not bool(codes):
            found.append(f"{case.name}: says {case.got!r}; reported {codes}, ok read: {any(read)}")
    if prop.passed is not raises(tests, WrongWhileDrawing):
        found.append(f"{prop.name}: marked {prop.mark}, the suite alone disagrees")
    if not attempt.property_called:
        uncalled = words.UNCALLED_GOT.format(test="linear_and_peaks_at_threshold")
        if prop.passed or prop.got != uncalled:
            found.append(
                f"{prop.name}: the property test is never called, yet it says {prop.got!r}"
            )
    if verdict.ok and not (attempt.property_called and any(seen)):
        found.append("Well done, for a suite without a called property test or the doctor's rule")
    return found
