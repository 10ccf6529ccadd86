"""Lesson 3's beginner task ("Choose your surrogate", Part 1): a spike Function, checked.

The learner writes MySpike: forward the step at a threshold, backward grad_out times the
fast-sigmoid bump centred there; the threshold and width are plain numbers whose gradients
are None. check_spike says what is right or wrong with it and never raises; every sentence
about the learner's code is read off what a run recorded (lessons_lib.running).
"""

import torch

from lessons_lib.exercises import spike_words as words
from lessons_lib.exercises.base import Case, ExerciseCheck, contained, refused
from lessons_lib.running import Run, as_function, plain, run_function
from lessons_lib.running.arguments import MISSING
from lessons_lib.running.words import untracked
from lessons_lib.surrogate_gradients import surrogate_slope

THRESHOLD, WIDTH = 1.0, 0.5
# x exactly at the threshold (the step gives 1 there), near it and far on both sides.
SPIKE_X = (1.0, 0.25, 1.5, 2.75, -1.0)
# Uneven, signed and beyond ±1: a backward that ignores or clips grad_out cannot match it.
SPIKE_GRAD_OUT = (2.0, -1.5, 3.0, 0.5, -4.0)


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


def _run(fn: type, dtype: torch.dtype, grad_out: tuple | None) -> Run:
    x = torch.tensor(SPIKE_X, dtype=dtype)
    sent = torch.ones_like(x) if grad_out is None else torch.tensor(grad_out, dtype=dtype)
    return run_function(fn, (x, THRESHOLD, WIDTH), lambda output, index: sent.clone())


def spike_cases(fn: type) -> list[Case]:
    """The five cases, in order; a later one is "not checked yet" when an earlier one stops it."""
    x = torch.tensor(SPIKE_X)
    ones = _run(fn, torch.float32, None)
    step_case = _step_case(ones, x)
    if ones.failure is not None and ones.failure.stage == "forward":
        later = (words.KIND, words.THREE, words.CENTRED, words.SCALES)
        return [step_case, *(Case.not_checked(n) for n in later)]
    kind_case = _kind_case(_run(fn, torch.float64, None))
    three_case = _three_case(ones, x)
    first = _first_gradient(ones, x)
    if first is None:
        why = "backward gave back no gradient for x to check"
        return [
            step_case,
            kind_case,
            three_case,
            *(Case.not_checked(n, why) for n in (words.CENTRED, words.SCALES)),
        ]
    scaled = _first_gradient(_run(fn, torch.float32, SPIKE_GRAD_OUT), x)
    return [step_case, kind_case, three_case, _centred_case(first, x), _scales_case(first, scaled)]


def _first_gradient(run: Run, x: torch.Tensor) -> torch.Tensor | None:
    """backward's gradient for x, when it gave back a tensor shaped like x first."""
    if run.failure is not None or not run.grads:
        return None
    grad = run.grads[0]
    if not isinstance(grad, torch.Tensor) or grad.shape != x.shape:
        return None
    return grad.detach() if grad.is_floating_point() else None


def _step_case(run: Run, x: torch.Tensor) -> Case:
    name = words.STEP
    want = (x >= THRESHOLD).to(x.dtype)
    expected = f"{plain(want)}  (for x = {plain(x)}, threshold {THRESHOLD:g})"
    write = words.WRITE_STEP
    failed = run.failure
    if failed is not None and failed.stage == "forward":
        if failed.kind == "NoGraph" and run.output is Ellipsis:
            got, fix = "... (the placeholder)", words.PLACEHOLDER + write + "."
            return Case(name, False, expected, got, fix)
        if failed.kind == "NoGraph":  # not a tensor, or one autograd cannot follow
            return Case(name, False, expected, untracked(run.output), write + ".")
        got = f"forward stopped with an error: {failed.kind}: {failed.message}"
        return Case(name, False, expected, got, "Read the error, fix that line. " + write + ".")
    got = run.output
    if got is Ellipsis:
        return Case(name, False, expected, "... (the placeholder)", words.PLACEHOLDER + write + ".")
    if not isinstance(got, torch.Tensor) or got.shape != want.shape:
        return Case(name, False, expected, plain(got), write + ".")
    values = got.detach().to(torch.float64)
    if torch.equal(values, want.double()):
        return Case(name, True)
    if torch.equal(values, (x > THRESHOLD).double()):
        fix = words.STRICT.format(t=THRESHOLD)
    elif torch.equal(values, (x >= 0).double()) or torch.equal(values, (x > 0).double()):
        fix = words.AT_ZERO.format(t=THRESHOLD)
    else:
        fix = words.STEP_OTHERWISE
    return Case(name, False, expected, plain(got), fix + write + ".")


def _kind_case(run: Run) -> Case:
    """float64 in, float64 out: the check's second run, in float64."""
    output = run.output
    stopped = run.failure is not None and run.failure.stage == "forward"
    if stopped or not isinstance(output, torch.Tensor):
        return Case.not_checked(words.KIND)
    if output.dtype == torch.float64:
        return Case(words.KIND, True)
    got = words.KIND_GOT.format(got=output.dtype, x_kind="torch.float64")
    return Case(
        words.KIND, False, words.KIND_EXPECTED, got, words.KIND_FIX.format(got=output.dtype)
    )


def _three_case(run: Run, x: torch.Tensor) -> Case:
    name, expected = words.THREE, words.THREE_EXPECTED
    failed = run.failure
    if failed is not None:
        got = f"backward stopped with an error: {failed.kind}: {failed.message}"
        return Case(name, False, expected, got, words.BACKWARD_ERROR)
    grads = run.grads
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
    return Case(name, True)


def _centred_case(got: torch.Tensor, x: torch.Tensor) -> Case:
    """With grad_out all ones, backward's gradient for x is the bump's height at each x."""
    name = words.CENTRED
    want = surrogate_slope(x.double(), "fast-sigmoid", THRESHOLD, WIDTH)
    shown = want.to(x.dtype)
    expected = words.CENTRED_EXPECTED.format(want=plain(shown), x=plain(x), t=THRESHOLD, w=WIDTH)
    values = got.double()
    if torch.allclose(values, want, rtol=1e-4, atol=1e-6):
        return Case(name, True)
    at_zero = surrogate_slope(x.double(), "fast-sigmoid", 0.0, WIDTH)
    one_wide = surrogate_slope(x.double(), "fast-sigmoid", THRESHOLD, 1.0)
    if not values.any():
        fix = words.ZEROS
    elif torch.allclose(values, torch.ones_like(values)):
        fix = words.ONES
    elif torch.allclose(values, at_zero, rtol=1e-4, atol=1e-6):
        fix = words.CENTRED_AT_ZERO.format(t=THRESHOLD)
    elif torch.allclose(values, one_wide, rtol=1e-4, atol=1e-6):
        fix = words.WIDTH_ONE.format(w=WIDTH)
    else:
        fix = words.BUMP_OTHERWISE
    return Case(name, False, expected, plain(got), words.WITH_ONES + fix)


def _scales_case(ones: torch.Tensor, scaled: torch.Tensor | None) -> Case:
    """backward's result for an uneven grad_out is that grad_out times its result for ones."""
    name = words.SCALES
    grad_out = torch.tensor(SPIKE_GRAD_OUT, dtype=torch.float64)
    g = plain(torch.tensor(SPIKE_GRAD_OUT))
    if scaled is None:
        return Case.not_checked(name, f"backward gave back no gradient for x with grad_out = {g}")
    want = grad_out * ones.double()
    expected = words.SCALES_EXPECTED.format(want=plain(want.to(ones.dtype)), g=g)
    values = scaled.double()
    if torch.allclose(values, want, rtol=1e-4, atol=1e-6):
        return Case(name, True)
    if torch.allclose(values, ones.double(), rtol=1e-4, atol=1e-6):
        fix = words.IGNORES.format(g=g)
    elif torch.allclose(values, grad_out.clamp(-1, 1) * ones.double(), rtol=1e-4, atol=1e-6):
        fix = words.CLAMPED
    elif torch.allclose(values, grad_out.abs() * ones.double(), rtol=1e-4, atol=1e-6):
        fix = words.SIGN_LOST
    else:
        fix = words.SCALES_OTHERWISE
    return Case(name, False, expected, plain(scaled), fix)
