"""Claim-checkers for what the learner's test did when run: what was passed to it, what it
returned or gave back, what it raised and why, and whose raise it was."""

import re

from tests.exercises.attempts.clamp_claim_context import Context, names_the_value


def you_passed(ctx: Context) -> list[str]:
    """ "you passed <what>" names the argument actually passed."""
    false = []
    for what in re.findall(r"[Yy]ou passed (.+?)(?:;|, not |: pass|$)", ctx.verdict.text, re.M):
        if what.startswith("the string 'yes'"):  # the hint level, checked on its own
            continue
        wrong = ctx.attempt.wrong
        if wrong is None:
            name = getattr(ctx.attempt.value, "__name__", "")
            fair = {f"the function {name}", "a lambda function" if name == "<lambda>" else ""}
            if what not in fair:
                false.append(f"said 'you passed {what}', but a test function {name} was passed")
        elif what != wrong.what:
            false.append(
                f"said 'you passed {what}', but {wrong.label} was passed (want '{wrong.what}')"
            )
    return false


def returned_false(ctx: Context) -> list[str]:
    """ "<test> returned False" is what the test did on the first problem's Clamp01."""
    if ctx.run is None or not re.search(r"\b\w+ returned False\b", ctx.verdict.problem_block):
        return []
    if ctx.run.error is None and ctx.run.returned is False:
        return []
    did = f"raised {ctx.run.error_type}" if ctx.run.error else f"returned {ctx.run.returned!r}"[:80]
    return [f"said it returned False, but it {did}"]


def found_nothing_wrong(ctx: Context) -> list[str]:
    """ "found nothing wrong" is true of the first problem's Clamp01 run."""
    block = ctx.verdict.problem_block.split("\n  how to fix it:")[0]
    if ctx.run is None or "found nothing wrong" not in block:
        return []
    # Said of the abs-grad-out run, in the uneven case, not of the first problem's run.
    run = ctx.attempt.facts.runs["abs-grad-out"] if "abs-grad-out" in block else ctx.run
    if not run.fails:
        return []
    did = f"raised {run.error_type}" if run.error else "returned False"
    return [f"said it found nothing wrong, but it {did}"]


def gave_back(ctx: Context) -> list[str]:
    """ "my_edge_test gave back <value>" and the "got:" of "gives back True or False" name
    what the test gave back (and it did give something back: it did not raise)."""
    false = []
    block = ctx.verdict.problem_block
    for said in re.findall(r"\w+ gave back (.+?), so this broken Clamp01", block):
        run = ctx.run
        if run.error is not None:
            false.append(f"said it gave back {said}, but it raised {run.error_type}")
        elif not names_the_value(said, run.returned):
            false.append(f"said it gave back {said}, but it gave back {run.returned!r}"[:200])
    if ctx.verdict.first_problem.endswith("gives back True or False"):
        got = re.search(r"^  got: +(.*)$", block, re.M)
        run = ctx.attempt.facts.course
        if got and "raised" not in got[1] and "error" not in got[1]:
            if run.error is not None:
                false.append(f"said it gave back {got[1]}, but it raised {run.error_type}")
            elif not names_the_value(got[1].removeprefix("a tensor, "), run.returned):
                false.append(f"said it gave back {got[1]}, but it gave back {run.returned!r}"[:200])
    return false


def raised(ctx: Context) -> list[str]:
    """ "<test> raised <Error>: <message>, at the line `<line>`" matches the exception the
    attempt raised on the first problem's Clamp01, and the attempt's own line."""
    false = []
    pattern = r"\b\w+ raised (\w+)(?:: (.*?))?(?:, at the line `(.*?)`)?(?: \(|$)"
    for kind, _message, line in re.findall(pattern, ctx.verdict.problem_block, re.M):
        run = ctx.run
        if run is None:
            false.append(f"said it raised {kind}, but nothing was run")
        elif run.error is None:
            false.append(f"said it raised {kind}, but it returned {run.returned!r}"[:200])
        elif kind != run.error_type:
            false.append(f"said it raised {kind}, but it raised {run.error_type}")
        elif line and line != run.error_line:
            false.append(f"said the error came at `{line}`, but it came at `{run.error_line}`")
    return false


def error_causes(ctx: Context) -> list[str]:
    """A fix that names a cause (whole-number points, no requires_grad, a grad_out of the
    wrong shape, an `if` on a tensor, backward() without grad_out, a missing name, the wrong
    number of arguments) names the error the attempt in fact raised."""
    if ctx.run is None:
        return []
    text = ctx.verdict.problem_block
    error, message = ctx.run.error, str(ctx.run.error or "")
    applied = ctx.run.applied
    causes = {
        "Your points are whole numbers": "floating point" in message
        or any(not a.x.is_floating_point() for a in applied),
        "Make the input with requires_grad=True": "does not require grad" in message
        or any(not a.requires_grad for a in applied if not a.drawn),
        "grad_out needs exactly one number for each number of x": "shape" in message,
        "met a tensor of several values": "Boolean value of Tensor" in message,
        "backward() without an argument needs one number": "scalar outputs" in message,
        "must take exactly one argument": isinstance(error, TypeError) and "argument" in message,
    }
    false = [
        f"said '{cause}...', but it raised {ctx.run.error_type or 'nothing'}: {message[:100]}"
        for cause, true in causes.items()
        if cause in text and not true
    ]
    for name in re.findall(r"(\w+) does not exist where", text):
        if not (isinstance(error, NameError) and error.name == name):
            false.append(
                f"said {name} does not exist, but it raised {ctx.run.error_type or 'nothing'}: {message[:100]}"
            )
    return false


def own_raise(ctx: Context) -> list[str]:
    """A raise of the learner's own is named as theirs, and nothing else is called theirs."""
    text = ctx.verdict.problem_block
    says = re.search(
        r"your own (?:`?raise`?|error|exception)|you raised|your raise|raise statement|raised it yourself",
        text,
        re.I,
    )
    if ctx.run is None:
        return []
    if says and not ctx.run.own_raise:
        return [
            f"said the error was the learner's own raise, but it came from `{ctx.run.error_line or 'library code'}`"
        ]
    if not says and ctx.run.own_raise and ctx.verdict.first_problem.startswith("passes "):
        return [f"did not say the error was the learner's own raise, at `{ctx.run.error_line}`"]
    return []
