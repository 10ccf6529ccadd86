"""Claim-checkers: each finds one kind of sentence about what the learner's code did (a regex
over the verdict's text) and checks it against the facts we recorded by running the attempt
(clamp_facts), independently of the lessons_lib code that wrote the sentence.

A claim-checker gives back the false claims it found, each as one line saying what the
verdict said and what the attempt in fact did. UNVERIFIED lists the claim kinds the checks
print that no checker verifies, and why.
"""

import ast
import functools
import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import torch

from tests.exercises.attempts.clamp_attempts import Attempt
from tests.exercises.attempts.clamp_facts import BROKEN, CORRECT, Run
from tests.exercises.attempts.clamp_oracles import CORRECT_WORDS, EDGE_BUG_WORDS
from tests.exercises.attempts.clamp_verdict import Verdict, sentences
from tests.exercises.attempts.distinct import MISSING


@dataclass(frozen=True)
class Context:
    """What a claim-checker reads: the attempt (its facts), the verdict, the run the first
    problem is about (the Clamp01 its case names), and the attempt's source tree."""

    attempt: Attempt
    verdict: Verdict
    run: Run | None
    tree: ast.AST | None


Checker = Callable[[Context], list[str]]


def relevant_clamp(case: str) -> str:
    """The Clamp01 a case line is about: a correct one, a broken one, or the course's."""
    if case.startswith("passes "):
        return next((c for w, c in CORRECT_WORDS.items() if w in case), "course_clamp01")
    if case.startswith("catches "):
        key = re.match(r"catches ([a-z-]+):", case)
        if key and key.group(1) in BROKEN:
            return key.group(1)
        return next((b for w, b in EDGE_BUG_WORDS.items() if w in case), "course_clamp01")
    return "course_clamp01"


def context(attempt: Attempt, verdict: Verdict) -> Context:
    run = None
    if attempt.facts is not None:
        run = attempt.facts.runs[relevant_clamp(verdict.first_problem)]
    tree = None
    if attempt.wrong is None:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(attempt.value)))
        except (OSError, TypeError, SyntaxError):
            tree = None
    return Context(attempt, verdict, run, tree)


def numbers(t: torch.Tensor | None) -> str:
    """A tensor's numbers as the verdicts quote them, [a, b, c] with :g (our own writing)."""
    if t is None:
        return "nothing"
    values = t.flatten().tolist()
    text = ", ".join(f"{v:g}" for v in values[:8])
    return f"[{text}{', ...' if len(values) > 8 else ''}]"


def _value_words(value: object) -> list[str]:
    """Ways a verdict may fairly name a returned value."""
    if isinstance(value, torch.Tensor):
        text = " ".join(repr(value.detach()).split())
        return [text[:60], numbers(value), "a tensor"]
    return [" ".join(repr(value).split())[:60], type(value).__name__]


def _plain(text: str) -> str:
    """Text with spaces and a tensor's dtype left out, to compare two writings of a value."""
    return re.sub(r",\s*dtype=torch\.\w+", "", "".join(text.split()))


def _named(said: str, value: object) -> bool:
    said = _plain(said)
    return any(w and (_plain(w) in said or said in _plain(w)) for w in _value_words(value))


# --- the checkers -----------------------------------------------------------------------


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
        elif not _named(said, run.returned):
            false.append(f"said it gave back {said}, but it gave back {run.returned!r}"[:200])
    if ctx.verdict.first_problem.endswith("gives back True or False"):
        got = re.search(r"^  got: +(.*)$", block, re.M)
        run = ctx.attempt.facts.course
        if got and "raised" not in got[1] and "error" not in got[1]:
            if run.error is not None:
                false.append(f"said it gave back {got[1]}, but it raised {run.error_type}")
            elif not _named(got[1].removeprefix("a tensor, "), run.returned):
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


def _formatted_grad_outs(run: Run) -> set[str]:
    return {numbers(b.grad_out) for b in run.backwards}


def quoted_numbers(ctx: Context) -> list[str]:
    """Numbers quoted as x, grad_out or x.grad are ones the attempt sent or got back."""
    if ctx.run is None:
        return []
    false = []
    text = ctx.verdict.problem_block
    runs = [ctx.run, ctx.attempt.facts.runs["abs-grad-out"]]
    grad_outs = set().union(*(_formatted_grad_outs(r) for r in runs))
    points = {numbers(a.x) for r in runs for a in r.applied}
    grads = {numbers(b.grad) for r in runs for b in r.backwards}
    for said in re.findall(r"grad_out = (\[[^\]]*\])", text):
        if said not in grad_outs:
            false.append(
                f"quoted grad_out = {said}, but the grad_outs sent were {sorted(grad_outs)}"
            )
    for said in re.findall(r"\bx = (\[[^\]]*\])", text):
        if said not in points:
            false.append(f"quoted x = {said}, but the points sent were {sorted(points)}")
    for said in re.findall(r"(?:x\.grad = |gave back )(\[[^\]]*\])", text):
        if said not in grads:
            false.append(f"quoted a gradient {said}, but backward gave back {sorted(grads)}")
    return false


def repeated_grad_out(ctx: Context) -> list[str]:
    """ "grad_out = [..], one number repeated / a single number / in which v (and w) are
    repeated" describes that grad_out: the numbers named are exactly those it repeats."""
    false = []
    for said, kind, named in re.findall(
        r"grad_out = (\[[^\]]*\]), (one number repeated|a single number|in which (.+?) (?:is|are) "
        r"repeated)",
        ctx.verdict.problem_block,
    ):
        values = said.strip("[]").split(", ")
        if kind == "a single number" and len(values) != 1:
            false.append(f"called {said} a single number")
        if kind == "one number repeated" and (len(values) < 2 or len(set(values)) != 1):
            false.append(f"called {said} one number repeated")
        twice = {v for v in values if values.count(v) > 1}
        if named and set(re.split(r", | and ", named)) != twice:
            false.append(f"said {named} repeated in {said}")
    return false


def every_grad_out_repeated(ctx: Context) -> list[str]:
    """ "every grad_out my_checks sent held one value repeated (v, ...)" is true of the suite's
    own grad_outs on the course's Clamp01."""
    said = re.search(
        r"every grad_out \w+ sent held one value repeated \(([^)]*)\)", ctx.verdict.text
    )
    if not said or ctx.attempt.facts is None:
        return []
    sent = [b.grad_out for b in ctx.attempt.facts.course.own_grad_outs()]
    if not sent or any(len(set(g.flatten().tolist())) > 1 and g.numel() > 1 for g in sent):
        return [
            f"said every grad_out held one value repeated, but it sent {[numbers(g) for g in sent]}"[
                :300
            ]
        ]
    return []


def backward_never_ran(ctx: Context) -> list[str]:
    """ "backward never ran" / "backward ran only inside gradcheck" are true."""
    false = []
    text = ctx.verdict.problem_block
    course = ctx.attempt.facts.course if ctx.attempt.facts else None
    if course is None:
        return []
    if "the Clamp01's backward never ran" in text and course.backwards:
        false.append(f"said backward never ran, but it ran {len(course.backwards)} time(s)")
    only_inside = course.own_grad_outs() or not course.backwards
    if "backward ran only inside gradcheck" in text and only_inside:
        false.append(
            f"said backward ran only inside gradcheck, but it ran {len(course.own_grad_outs())} "
            f"time(s) outside and {len(course.backwards) - len(course.own_grad_outs())} inside"
        )
    return false


def never_applied(ctx: Context) -> list[str]:
    """ "never called Clamp01Candidate.apply" and "called ... forward by hand N time(s)"."""
    false = []
    text = ctx.verdict.problem_block
    if ctx.run is None:
        return []
    if "never called Clamp01Candidate.apply" in text and ctx.run.applied:
        false.append(
            f"said apply was never called, but it was called {len(ctx.run.applied)} time(s)"
        )
    for n in re.findall(r"called Clamp01Candidate\.forward by hand (\d+) time", text):
        if int(n) != ctx.run.forward_direct:
            false.append(
                f"said forward was called by hand {n} time(s), but it was {ctx.run.forward_direct}"
            )
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


@functools.cache
def _at_edges(clamp: str) -> str:
    """What a correct Clamp01 gives back at exactly 0 and 1, found by running it."""
    cls = CORRECT[clamp]()
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    cls.apply(x).backward(torch.tensor([3.0, 3.0]))
    return (
        "0"
        if x.grad.tolist() == [0.0, 0.0]
        else "grad_out"
        if x.grad.tolist() == [3.0, 3.0]
        else "other"
    )


def correct_clamp(ctx: Context) -> list[str]:
    """ "This Clamp01 is correct", "at exactly 0 and 1 it gives back X", "your test passes
    another correct one that gives back Y there" are true."""
    text, false = ctx.verdict.problem_block, []
    clamp = relevant_clamp(ctx.verdict.first_problem)
    if "This Clamp01 is correct" in text and clamp not in CORRECT:
        false.append(f"said the Clamp01 is correct, but the first problem is about {clamp}")
    if ctx.attempt.facts is None:
        if "This Clamp01 is correct" in text or "a check that fails it" in text:
            false.append(
                f"spoke of a check failing a correct Clamp01, but {ctx.attempt.wrong.label} was passed, no check"
            )
        return false
    said = re.search(r"At exactly 0 and 1 it gives (?:back )?(0|grad_out)", text, re.I)
    if said and clamp in CORRECT and said[1] != _at_edges(clamp):
        false.append(
            f"said this Clamp01 gives {said[1]} at 0 and 1, but it gives {_at_edges(clamp)}"
        )
    other = re.search(r"pass(?:es)? another correct one that gives (?:back )?(0|grad_out)", text)
    if other:
        passing = [
            c for c in CORRECT if not ctx.attempt.facts.runs[c].fails and _at_edges(c) == other[1]
        ]
        if not passing:
            false.append(
                f"said the test passes another correct Clamp01 giving {other[1]} at the edges, but it passes none"
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


def _given_functions(tree: ast.AST | None) -> tuple[list[str], set[str]]:
    if tree is None:
        return [], set()
    given = [
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef)
        and any("given" in ast.unparse(d) for d in n.decorator_list)
    ]
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    return given, called


def property_claims(ctx: Context) -> list[str]:
    """What the verdict says of the property test: how many drawn inputs reached apply,
    "defined but never called", "has no property test", "never received what hypothesis
    drew", whether backward ran in it, NaN and infinity drawn."""
    if ctx.attempt.facts is None:
        return []
    text, false = ctx.verdict.text, []
    course = ctx.attempt.facts.course
    drawn = len(course.drawn_inputs())
    given, called = _given_functions(ctx.tree)
    for n in re.findall(r"ran on (\d+) drawn inputs", text) + re.findall(
        r"only (\d+) different input\(s\) reached", text
    ):
        if int(n) != drawn:
            false.append(f"said {n} drawn inputs reached apply, but {drawn} did")
    for name in set(re.findall(r"(\w+) is defined but never called", text)):
        if name not in given or name in called:
            false.append(
                f"said {name} is defined but never called, but its source {'calls it' if name in called else 'has no such property test'}"
            )
    if "has no property test" in text and (given or drawn):
        false.append(
            f"said there is no property test, but the source has {given} and {drawn} drawn inputs"
        )
    if "never received what hypothesis drew" in text and drawn:
        false.append(
            f"said apply never received what hypothesis drew, but {drawn} drawn inputs reached it"
        )
    probe = ctx.attempt.facts.runs.get("wrong-while-hypothesis-draws")
    if (
        probe is not None
        and "(backward never ran in it)" in text
        and any(b.drawn for b in probe.backwards)
    ):
        false.append("said backward never ran in the property test, but it did")
    if (
        probe is not None
        and "(backward ran in it)" in text
        and not any(b.drawn for b in probe.backwards)
    ):
        false.append("said backward ran in the property test, but it never did")
    said = re.search(r"Your property test drew (nan and inf|nan|inf)", text)
    if said and ctx.run is not None:
        seen = {
            kind
            for a in ctx.run.applied
            if a.drawn
            for kind, bad in (("nan", a.x.isnan().any()), ("inf", a.x.isinf().any()))
            if bad
        }
        seen |= {
            kind
            for b in ctx.run.backwards
            if b.drawn
            for kind, bad in (("nan", b.grad_out.isnan().any()), ("inf", b.grad_out.isinf().any()))
            if bad
        }
        if not set(said[1].split(" and ")) <= seen:
            false.append(
                f"said the property test drew {said[1]}, but it drew {sorted(seen) or 'only finite numbers'}"
            )
    return false


def gradcheck_claims(ctx: Context) -> list[str]:
    """gradcheck's result dropped with raise_exception=False, gradcheck run in float32, or
    at a kink (a point within eps of 0 or 1): each as the attempt in fact did."""
    text, false = ctx.verdict.text, []
    if "drops that result" in text:
        dropped = ctx.tree is not None and any(
            isinstance(n, ast.Expr)
            and isinstance(n.value, ast.Call)
            and any(k.arg == "raise_exception" for k in n.value.keywords)
            for n in ast.walk(ctx.tree)
        )
        if not dropped:
            false.append(
                "said a gradcheck(..., raise_exception=False) result is dropped, but none is"
            )
    if ctx.run is None:
        return false
    in_gradcheck = [a.x for a in ctx.run.applied if a.in_gradcheck]
    if (
        "gradcheck ran in float32" in text
        and in_gradcheck
        and not any(x.dtype == torch.float32 for x in in_gradcheck)
    ):
        false.append(
            f"said gradcheck ran in float32, but its inputs were {sorted({str(x.dtype) for x in in_gradcheck})}"
        )
    if "gradcheck met a kink" in text and in_gradcheck:  # unseen when gradcheck ran on no apply
        near = any(
            ((x - 0).abs() <= 1e-5).any() or ((x - 1).abs() <= 1e-5).any()
            for x in in_gradcheck
            if x.is_floating_point()
        )
        if not near:
            false.append(
                "said gradcheck met a kink, but no point it ran on was within eps of 0 or 1"
            )
    if "gradcheck failed on correct code" in text and ctx.run.error_type != "GradcheckError":
        false.append(
            f"said gradcheck failed, but the attempt raised {ctx.run.error_type or 'nothing'}"
        )
    return false


def abs_grad_out_claims(ctx: Context) -> list[str]:
    """ "every grad_out my_checks sent was 0 or more" is true of the abs-grad-out run."""
    if (
        ctx.attempt.facts is None
        or "every grad_out my_checks sent was 0 or more" not in ctx.verdict.text
    ):
        return []
    run = ctx.attempt.facts.runs["abs-grad-out"]
    negative = [numbers(b.grad_out) for b in run.own_grad_outs() if (b.grad_out < 0).any()]
    return [f"said every grad_out was 0 or more, but it sent {negative}"[:300]] if negative else []


def headline(ctx: Context) -> list[str]:
    """The headline's counts are the case lines' marks: P ✓ of N, K ○."""
    v = ctx.verdict
    if not v.cases:
        return []
    from tests.exercises.attempts.clamp_verdict import HEADLINE

    m = HEADLINE.match(v.headline)
    if m is None:
        return [f"headline not in the format: {v.headline!r}"]
    marks = [c.mark for c in v.cases]
    if m["all"]:
        ok = int(m["all"]) == len(marks) and set(marks) == {"✓"}
    else:
        ok = (int(m["passed"]), int(m["total"]), int(m["open"] or 0)) == (
            marks.count("✓"),
            len(marks),
            marks.count("○"),
        )
    return [] if ok else [f"headline {v.headline!r} does not count the marks {''.join(marks)}"]


MIN_WORDS = 6  # a repeated sentence this long is a repeated cause, not a stock phrase


def repeated_sentences(ctx: Context) -> list[str]:
    """A cause is stated once in a verdict: no sentence of MIN_WORDS words or more twice."""
    seen: dict[str, int] = {}
    for s in sentences(ctx.verdict.text):
        if len(s.split()) >= MIN_WORDS and not re.match(r"^[✓✗○] ", s):
            seen[s] = seen.get(s, 0) + 1
    return [f"said {n} times: {s[:160]}" for s, n in seen.items() if n > 1]


CHECKERS: dict[str, Checker] = {
    "you passed <what>": you_passed,
    "returned False": returned_false,
    "found nothing wrong": found_nothing_wrong,
    "gave back <value>": gave_back,
    "raised <Error> at <line>": raised,
    "numbers quoted as x, grad_out, x.grad": quoted_numbers,
    "grad_out one number repeated / a single number": repeated_grad_out,
    "every grad_out held one value repeated": every_grad_out_repeated,
    "backward never ran / only inside gradcheck": backward_never_ran,
    "apply never called / forward by hand": never_applied,
    "the error's cause": error_causes,
    "this Clamp01 is correct / its value at the edges": correct_clamp,
    "your own raise": own_raise,
    "the property test": property_claims,
    "gradcheck dropped / float32 / at a kink": gradcheck_claims,
    "every grad_out was 0 or more": abs_grad_out_claims,
    "headline counts": headline,
    "a cause stated twice": repeated_sentences,
}

FACTLESS = (you_passed, correct_clamp, headline, repeated_sentences)

UNVERIFIED = [
    (
        "the negative values of my_checks's grad_outs all reached points where the gradient is 0",
        "needs each grad_out paired with the points it was sent with; backward sees only grad_out",
    ),
    (
        "so a test suite built from it would pass this bug / this broken Clamp01 would get through",
        "a consequence of the returned value (verified as 'found nothing wrong' / 'gave back'), not a separate fact",
    ),
    (
        "gradcheck cannot see this one / every grad_out gradcheck sends is 0 or more",
        "facts about gradcheck and the broken Clamp01, not about the learner's code (tests/exercises/clamp cover them)",
    ),
    (
        "multiplied the slope by <number> / the sum of grad_out",
        "no sentence of this kind is printed by check_edge_test or check_my_checks",
    ),
]


def false_claims(attempt: Attempt, verdict: Verdict) -> dict[str, list[str]]:
    """Every false claim in one verdict, by kind."""
    ctx = context(attempt, verdict)
    # A wrong argument was never run: only what needs no run's facts is checked.
    checkers = (
        CHECKERS
        if attempt.facts is not None
        else {k: c for k, c in CHECKERS.items() if c in FACTLESS}
    )
    found = {kind: check(ctx) for kind, check in checkers.items()}
    return {kind: claims for kind, claims in found.items() if claims}


def is_missing(attempt: Attempt) -> bool:
    return attempt.value is MISSING
