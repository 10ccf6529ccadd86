"""Lesson 3's beginner task ("Choose your surrogate", Part 1): a spike Function, checked.

The learner writes MySpike: forward the step at a threshold, backward grad_out times the
fast-sigmoid bump centred there; the threshold and width are plain numbers whose gradients
are None. check_spike says what is right or wrong with it and never raises; every sentence
about the learner's code is read off what a run recorded (lessons_lib.running).
"""

from dataclasses import dataclass

import torch

from lessons_lib.exercises import spike_words as words
from lessons_lib.exercises.base import Case, ExerciseCheck, contained, refused
from lessons_lib.running import Failure, Run, as_function, plain, run_function
from lessons_lib.running.arguments import MISSING
from lessons_lib.running.words import untracked
from lessons_lib.surrogate_gradients import surrogate_slope

THRESHOLD, WIDTH = 1.0, 0.5
# x exactly at the threshold (the step gives 1 there), near it and far on both sides.
SPIKE_X = (1.0, 0.25, 1.5, 2.75, -1.0)
# Uneven, signed and beyond ±1: a backward that ignores or clips grad_out cannot match it.
SPIKE_GRAD_OUT = (2.0, -1.5, 3.0, 0.5, -4.0)
# A second threshold and width: a spike that fixed 1 and 0.5 in its code cannot follow them.
MOVED_THRESHOLD, MOVED_WIDTH = -0.5, 2.0
MOVED_X = (-0.5, 1.0, -3.0, 0.5, 4.0)


@dataclass(frozen=True)
class Setting:
    """Where the check runs MySpike: the numbers x, the threshold and the width."""

    x: tuple
    threshold: float
    width: float

    def tensor(self, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        return torch.tensor(self.x, dtype=dtype)

    def step(self) -> torch.Tensor:
        x = self.tensor(torch.float64)
        return (x >= self.threshold).to(x.dtype)

    def bump(self, threshold: float | None = None, width: float | None = None) -> torch.Tensor:
        """The fast-sigmoid bump at x (centred on `threshold`, `width` wide: by default its own)."""
        t = self.threshold if threshold is None else threshold
        w = self.width if width is None else width
        return surrogate_slope(self.tensor(torch.float64), "fast-sigmoid", t, w)

    @property
    def words(self) -> str:
        return f"threshold {self.threshold:g}, width {self.width:g}"


MAIN = Setting(SPIKE_X, THRESHOLD, WIDTH)
MOVED = Setting(MOVED_X, MOVED_THRESHOLD, MOVED_WIDTH)


def check_spike(fn: object = MISSING, hint: object = 0) -> ExerciseCheck:
    """Check a beginner's MySpike: the step forwards, grad_out times the bump backwards.

    `hint` (1, 2 or 3) also shows that many steps of the hint ladder.
    """
    wrong = refused(fn, words.WANTED)
    if wrong is not None:
        return wrong.hint(hint)
    function = as_function(fn)
    with contained():
        cases = spike_cases(function)
    return ExerciseCheck(function.__name__, cases, words.HINTS, words.HINT_CALL).hint(hint)


def _run(fn: type, setting: Setting, dtype=torch.float32, grad_out: tuple | None = None) -> Run:
    x = setting.tensor(dtype)
    sent = torch.ones_like(x) if grad_out is None else torch.tensor(grad_out, dtype=dtype)
    inputs = (x, setting.threshold, setting.width)
    return run_function(fn, inputs, lambda output, index: sent.clone())


def spike_cases(fn: type) -> list[Case]:
    """The five cases, in order; a later one is "not checked yet" when an earlier one stops it."""
    x = MAIN.tensor()
    ones, moved = _run(fn, MAIN), _run(fn, MOVED)
    double = _run(fn, MAIN, torch.float64)  # the same numbers in float64: only x's kind differs
    step_case = _step_case(ones, MAIN, double)
    if step_case.passed:
        step_case = _step_case(moved, MOVED)
    whole = _whole_step(ones)
    if whole is not None:  # the step's values, in numbers autograd cannot follow back to x
        later = (words.THREE, words.CENTRED, words.SCALES)
        return [
            Case(words.STEP, True),
            whole,
            *(Case.not_checked(n, words.NO_WAY_BACK) for n in later),
        ]
    if ones.failure is not None and ones.failure.stage == "forward":
        later = (words.KIND, words.THREE, words.CENTRED, words.SCALES)
        return [step_case, *(Case.not_checked(n) for n in later)]
    kind_case = _kind_case(ones, double)
    three_case = _three_case(ones, x, double)
    first = _first_gradient(ones, x)
    if first is None:
        later = (words.CENTRED, words.SCALES)
        return [step_case, kind_case, three_case, *(Case.not_checked(n) for n in later)]
    centred = _centred_case(first, MAIN)
    if centred.passed:
        centred = _moved_centred_case(_first_gradient(moved, x), first)
    scaled = _run(fn, MAIN, grad_out=SPIKE_GRAD_OUT)
    return [step_case, kind_case, three_case, centred, _scales_case(first, scaled, x)]


def _first_gradient(run: Run, x: torch.Tensor) -> torch.Tensor | None:
    """backward's gradient for x, when it gave back a tensor shaped like x first."""
    if run.failure is not None or not run.grads:
        return None
    grad = run.grads[0]
    if not isinstance(grad, torch.Tensor) or grad.shape != x.shape:
        return None
    return grad.detach() if grad.is_floating_point() else None


def _raised(run: Run, stage: str) -> bool:
    """Whether the learner's code raised in this stage of the run (not a result autograd
    cannot follow, which is recorded as a failure too)."""
    failed = run.failure
    return failed is not None and failed.stage == stage and failed.kind != "NoGraph"


def _kind_word(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _stopped(failed: Failure, on: torch.dtype | None = None) -> str:
    """The error as the run recorded it, in its own words; `on`: the kind of x it raised on."""
    if on is None:
        return words.STOPPED.format(stage=failed.stage, kind=failed.kind, message=failed.message)
    return words.STOPPED_ON.format(
        stage=failed.stage, x_kind=_kind_word(on), kind=failed.kind, message=failed.message
    )


def _statement(failed: Failure) -> str:
    return "assert" if failed.kind == "AssertionError" else "raise"


def _where(failed: Failure) -> str:
    """The learner's line the error came through, or their own raise there; "" if unknown."""
    if failed.own:
        return words.OWN_STATEMENT.format(statement=_statement(failed), line=failed.line)
    return words.CAME_THROUGH.format(line=failed.line) if failed.line else ""


def _kind_fix(failed: Failure, ran: torch.dtype) -> str:
    """The fix for an error raised in one kind of numbers only: the run on x of kind `ran`,
    with the same numbers, threshold and width, did not raise in the same stage."""
    stage = failed.stage
    contrast = words.ONLY_THE_KIND.format(stage=stage, ran=_kind_word(ran))
    if failed.own:
        return contrast + words.OWN_KIND.format(stage=stage, statement=_statement(failed))
    heaviside = "heaviside" in failed.message and "different dtypes" in failed.message
    if stage == "forward" and heaviside:  # torch's own words name the call and the cause
        return contrast + words.HEAVISIDE_KINDS
    place = "on that line" if failed.line else f"in {stage}"
    fixed = words.FIXED_KIND_STEP if stage == "forward" else words.FIXED_KIND
    return contrast + fixed.format(place=place)


def _step_case(run: Run, setting: Setting, double: Run | None = None) -> Case:
    """forward's values against the step; `double`, the same setting in float64, tells an
    error raised only in float32 from one raised in both."""
    name = words.STEP
    x = setting.tensor()
    want = setting.step()
    expected = f"{plain(want.float())}  (for x = {plain(x)}, threshold {setting.threshold:g})"
    write = words.WRITE_STEP
    failed = run.failure
    if failed is not None and failed.stage == "forward":
        if failed.kind == "NoGraph" and run.output is Ellipsis:
            return Case(name, False, expected, "... (the placeholder)", words.PLACEHOLDER)
        if failed.kind == "NoGraph":  # not a tensor, or one autograd cannot follow
            return Case(name, False, expected, untracked(run.output), write + ".")
        if double is not None and not _raised(double, "forward"):
            fix = _where(failed) + _kind_fix(failed, torch.float64)
            return Case(name, False, expected, _stopped(failed, torch.float32), fix)
        fix = _where(failed) + words.READ_THE_ERROR + write + "."
        return Case(name, False, expected, _stopped(failed), fix)
    got = run.output
    if got is Ellipsis:
        return Case(name, False, expected, "... (the placeholder)", words.PLACEHOLDER)
    if not isinstance(got, torch.Tensor) or got.shape != want.shape:
        return Case(name, False, expected, plain(got), write + ".")
    values = got.detach().to(torch.float64)
    if torch.equal(values, want):
        return Case(name, True)
    xs = setting.tensor(torch.float64)
    t = setting.threshold
    if torch.equal(values, (xs > t).double()):
        fix = words.STRICT.format(t=t)
    elif torch.equal(values, (xs >= 0).double()) or torch.equal(values, (xs > 0).double()):
        fix = words.AT_ZERO.format(t=t)
    elif setting is MOVED and torch.equal(values, (xs >= THRESHOLD).double()):
        fix = words.STEP_STAYED.format(t=t, main=THRESHOLD)
    else:
        fix = words.STEP_OTHERWISE
    return Case(name, False, expected, plain(got), fix + write + ".")


def _whole_step(run: Run) -> Case | None:
    """The kind case, failed, when forward gave back the step's values as whole numbers or
    True and False (autograd cannot follow those); None otherwise."""
    output = run.output
    failed = run.failure
    if failed is None or failed.kind != "NoGraph" or not isinstance(output, torch.Tensor):
        return None
    if output.is_floating_point() or output.shape != MAIN.step().shape:
        return None
    if not torch.equal(output.to(torch.float64), MAIN.step()):
        return None
    got = untracked(output)
    return Case(words.KIND, False, words.KIND_EXPECTED, got, words.KIND_WHOLE)


def _kind_case(single: Run, double: Run) -> Case:
    """float32 in, float32 out; float64 in, float64 out."""
    if _raised(double, "forward") and not _raised(single, "forward"):
        failed = double.failure
        fix = _where(failed) + _kind_fix(failed, torch.float32)
        return Case(words.KIND, False, words.KIND_EXPECTED, _stopped(failed, torch.float64), fix)
    for run, dtype in ((single, torch.float32), (double, torch.float64)):
        output = run.output
        stopped = run.failure is not None and run.failure.stage == "forward"
        if stopped or not isinstance(output, torch.Tensor):
            return Case.not_checked(words.KIND)
        if output.dtype != dtype:
            got = words.KIND_GOT.format(got=output.dtype, x_kind=dtype)
            same = single.output.dtype == output.dtype
            fix = words.KIND_FIX.format(got=output.dtype) if same else words.KIND_OTHER
            return Case(words.KIND, False, words.KIND_EXPECTED, got, fix)
    return Case(words.KIND, True)


def _three_case(run: Run, x: torch.Tensor, double: Run) -> Case:
    """What backward gave back on float32 x; then that it ran on float64 x too (`double`)."""
    name, expected = words.THREE, words.THREE_EXPECTED
    failed = run.failure
    if failed is not None:
        unseen = [
            number
            for number in ("threshold", "width")
            if failed.kind == "NameError" and f"'{number}'" in failed.message
        ]
        if unseen:
            fix = words.FORWARD_NAME.format(name=unseen[0])
        elif double.failure is None:  # the same numbers in float64 went through backward
            fix = _where(failed) + _kind_fix(failed, torch.float64)
            return Case(name, False, expected, _stopped(failed, torch.float32), fix)
        else:
            fix = _where(failed) + words.BACKWARD_ERROR
        return Case(name, False, expected, _stopped(failed), fix)
    grads = run.grads
    if len(grads) == 1 and isinstance(grads[0], list):
        got = f"a list of {len(grads[0])} things: " + ", ".join(plain(g) for g in grads[0])
        return Case(name, False, expected, got, words.LIST)
    if len(grads) == 1 and grads[0] is None:
        return Case(name, False, expected, "None", words.GAVE_NONE)
    if len(grads) != 3:
        things = ", ".join(plain(g) for g in grads)
        got = f"{len(grads)} thing{'s' if len(grads) != 1 else ''}: {things}"
        return Case(name, False, expected, got, words.COUNT)
    first = grads[0]
    if not isinstance(first, torch.Tensor) or first.shape != x.shape:
        return Case(name, False, expected, plain(grads), words.FIRST_NOT_TENSOR)
    for which, grad in (("threshold", grads[1]), ("width", grads[2])):
        if grad is not None:
            fix = words.NOT_NONE.format(what=plain(grad), which=which)
            return Case(name, False, expected, plain(grads), fix)
    if _raised(double, "backward"):  # fine on float32 x, raised on the same numbers in float64
        wide = double.failure
        fix = _where(wide) + _kind_fix(wide, torch.float32)
        return Case(name, False, expected, _stopped(wide, torch.float64), fix)
    return Case(name, True)


def _centred_case(got: torch.Tensor, setting: Setting) -> Case:
    """With grad_out all ones, backward's gradient for x is the bump's height at each x."""
    name = words.CENTRED
    want = setting.bump()
    x = setting.tensor()
    expected = words.CENTRED_EXPECTED.format(
        want=plain(want.float()), x=plain(x), t=setting.threshold, w=setting.width
    )
    values = got.double()
    if _close(values, want):
        return Case(name, True)
    if not values.any():
        fix = words.ZEROS
    elif torch.allclose(values, torch.ones_like(values)):
        fix = words.ONES
    elif _close(values, setting.bump(threshold=0.0)):
        fix = words.CENTRED_AT_ZERO.format(t=setting.threshold)
    elif _close(values, setting.bump(width=1.0)):
        fix = words.WIDTH_ONE.format(w=setting.width)
    elif setting is MOVED and _close(values, setting.bump(THRESHOLD, WIDTH)):
        fix = words.BUMP_STAYED.format(settings=setting.words, main=MAIN.words)
    elif setting is MOVED and _close(values, setting.bump(width=WIDTH)):
        fix = words.WIDTH_STAYED.format(settings=setting.words, w=WIDTH)
    elif setting is MOVED and _close(values, setting.bump(threshold=THRESHOLD)):
        fix = words.THRESHOLD_STAYED.format(settings=setting.words, t=THRESHOLD)
    else:
        fix = words.BUMP_OTHERWISE
    read = words.READ_TRUE_GRADIENT if fix == words.ZEROS else words.READ_BUMP
    return Case(name, False, expected, plain(got), (words.WITH_ONES + fix).rstrip(), read)


def _moved_centred_case(moved: torch.Tensor | None, main: torch.Tensor) -> Case:
    """The bump follows the threshold and width forward receives: the second setting."""
    if moved is None:  # it worked at the first setting, and failed at this one
        expected = plain(MOVED.bump().float())
        got = f"with {MOVED.words}, backward gave back no tensor shaped like x"
        return Case(words.CENTRED, False, expected, got, words.BUMP_OTHERWISE)
    return _centred_case(moved, MOVED)


def _close(values: torch.Tensor, want: torch.Tensor) -> bool:
    return torch.allclose(values, want, rtol=1e-4, atol=1e-6)


def _scales_case(ones: torch.Tensor, run: Run, x: torch.Tensor) -> Case:
    """backward's result for an uneven grad_out is that grad_out times its result for ones."""
    name = words.SCALES
    grad_out = torch.tensor(SPIKE_GRAD_OUT, dtype=torch.float64)
    g = plain(torch.tensor(SPIKE_GRAD_OUT))
    want = grad_out * ones.double()
    expected = words.SCALES_EXPECTED.format(want=plain(want.to(ones.dtype)), g=g)
    scaled = _first_gradient(run, x)
    failed = run.failure
    if scaled is None and failed is not None and failed.stage == "backward":
        got = words.SCALES_STOPPED.format(g=g, kind=failed.kind, message=failed.message)
        return Case(name, False, expected, got, _where(failed) + words.ONLY_GRAD_OUT)
    if scaled is None and failed is None:  # it ran, and gave back no gradient shaped like x
        got = words.SCALES_NO_GRADIENT.format(g=g, got=plain(run.grads))
        return Case(name, False, expected, got, words.ONLY_GRAD_OUT)
    if scaled is None:  # forward stopped on this run only: backward was never called
        why = words.SCALES_FORWARD_STOPPED.format(g=g, error=f"{failed.kind}: {failed.message}")
        return Case.not_checked(name, why)
    values = scaled.double()
    if _close(values, want):
        return Case(name, True)
    if _close(values, ones.double()):
        fix = words.IGNORES.format(g=g)
    elif _close(values, grad_out.clamp(-1, 1) * ones.double()):
        fix = words.CLAMPED
    elif _close(values, grad_out.abs() * ones.double()):
        fix = words.SIGN_LOST
    else:
        fix = words.SCALES_OTHERWISE
    return Case(name, False, expected, plain(scaled), fix)
