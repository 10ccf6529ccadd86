"""The attempts for Part 1 (check_edge_test) and Part 2 (check_my_checks): mutants of the
bases (one mutation, then pairs), lambdas, and wrong arguments; deduplicated by behaviour
signature (clamp_facts.signature), in a fixed order, so the same attempts come every run.

Part 2's checks run hypothesis property tests on 14 Clamp01s, about 1.5 s a call with the
answer's 50 examples and 10-40 ms without a property test. So its mutants with a property
test are drawn, seeded, to a quota, with 20 examples (still above the 10 distinct inputs the
property case asks for); every other mutant is kept.
"""

import ast
import contextlib
import difflib
import functools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hypothesis import Phase

from tests.exercises.attempts.clamp_arguments import WrongArgument, wrong_arguments
from tests.exercises.attempts.clamp_bases import edge_bases, suite_bases
from tests.exercises.attempts.clamp_facts import Facts, facts_of, hypothesis_profile, signature
from tests.exercises.attempts.clamp_modules import load_function, load_module
from tests.exercises.attempts.clamp_mutate import mutants, one_mutant

PAIRS = {1: 820, 2: 90}  # two-mutation attempts tried per part, before deduplication
PROPERTY_QUOTA = 3  # Part 2 mutants whose property test runs, per base that has one
EXAMPLES = 15  # hypothesis examples per property test of a mutant (not shrunk)
# Part 2's single mutants kept per base (drawn, seeded), the cheapest bases in full: a run of
# the answer's core (gradcheck included) on 14 Clamp01s costs about 0.1 s.
QUOTA = {
    "answer reference_checks": 80,
    "notebook two_points_and_forward": 80,
    "notebook sum_at_the_edges": 110,
}


@dataclass
class Attempt:
    """One thing passed to a check: a mutated test (with its diff) or a wrong argument."""

    part: int
    label: str
    value: object
    diff: str = ""
    wrong: WrongArgument | None = None
    facts: Facts | None = None
    signature: tuple = field(default=(), repr=False)

    def shown(self) -> str:
        """What an assertion message shows of the attempt."""
        if self.wrong is not None:
            return f"argument: {self.wrong.label}"
        return f"attempt: {self.label}\n{self.diff}"


def hypothesis_examples(n: int = EXAMPLES) -> contextlib.AbstractContextManager[None]:
    """Property tests without @settings of their own draw `n` examples."""
    return hypothesis_profile(
        "clamp-attempts",
        max_examples=n,
        deadline=None,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),  # no shrinking: seconds a failure
    )


def _diff(before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "course", "attempt", n=1, lineterm=""
    )
    return "\n".join(list(lines)[2:])


def _runs_property_test(source: str) -> bool:
    return "given(" in source


def without_property_tests(source: str) -> str:
    """`source` with its @given functions and their calls left out."""
    tree = ast.parse(source)
    given = {
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef)
        and any("given" in ast.unparse(d) for d in n.decorator_list)
    }

    class Strip(ast.NodeTransformer):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST | None:
            if node.name in given:
                return None
            self.generic_visit(node)
            return node

        def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
            called = isinstance(node.value, ast.Call) and ast.unparse(node.value.func) in given
            return None if called else node

    return ast.unparse(ast.fix_missing_locations(Strip().visit(tree)))


def _fewer_examples(source: str) -> str:
    return source.replace("max_examples=50", f"max_examples={EXAMPLES}")


def _candidates(part: int) -> Iterator[tuple[str, str, str, str]]:
    """(label, name, course source, attempt source) of every mutant, in a fixed order."""
    bases = edge_bases() if part == 1 else suite_bases()
    singles: list[tuple[str, str, str, str]] = []
    for base in bases:
        course = ast.unparse(ast.parse(base.source))
        yield base.origin, base.name, course, course
        variants = [(base.origin, course)]
        if part == 2 and _runs_property_test(course):
            cheap = without_property_tests(course)
            yield f"{base.origin}, without its property test", base.name, course, cheap
            variants = [(f"{base.origin}, without its property test", cheap)]
            costly = [
                (f"{base.origin}: {d}", base.name, course, _fewer_examples(s))
                for d, s in mutants(course)
                if _runs_property_test(s)
            ]
            singles += random.Random(base.origin).sample(costly, min(PROPERTY_QUOTA, len(costly)))
        for origin, source in variants:
            found = [(f"{origin}: {d}", base.name, course, s) for d, s in mutants(source)]
            quota = QUOTA.get(base.origin, len(found)) if part == 2 else len(found)
            kept = sorted(random.Random(origin).sample(range(len(found)), min(quota, len(found))))
            singles += [found[i] for i in kept]
    yield from singles
    rng = random.Random(f"pairs-{part}")
    cheap_singles = [s for s in singles if not _runs_property_test(s[3])]
    for _ in range(PAIRS[part]):
        label, name, course, source = rng.choice(cheap_singles)
        second = one_mutant(source, rng)
        if second is not None:
            yield f"{label}; then {second[0]}", name, course, second[1]


LAMBDAS = {
    "lambda_true": "lambda_true = lambda Clamp01Candidate: True",
    "lambda_false": "lambda_false = lambda Clamp01Candidate: False",
    "lambda_none": "lambda_none = lambda Clamp01Candidate: None",
    "lambda_no_parameter": "lambda_no_parameter = lambda: True",
    "lambda_two_parameters": "lambda_two_parameters = lambda a, b: True",
    "lambda_apply": "lambda_apply = lambda C: C.apply(torch.tensor([0.5]))",
}


@functools.cache
def candidates(part: int) -> tuple[tuple[str, str, str, str], ...]:
    """_candidates(part), made once: generate reads it, and a test compares a second run."""
    return tuple(_candidates(part))


def generate(part: int) -> list[Attempt]:
    """Every attempt for the part, before deduplication."""
    attempts = []
    for label, name, course, source in candidates(part):
        try:
            function = load_function(source, name)
        except Exception:  # a mutant that fails at definition time: nothing to pass
            continue
        attempts.append(Attempt(part, label, function, _diff(course, source)))
    for name, source in LAMBDAS.items():
        attempts.append(Attempt(part, name, getattr(load_module(source), name), source))
    return attempts


def distinct(attempts: list[Attempt], run: Callable = facts_of) -> list[Attempt]:
    """The first attempt of each behaviour signature, in order; wrong arguments after."""
    seen: set[tuple] = set()
    kept = []
    for attempt in attempts:
        attempt.facts = run(attempt.value)
        attempt.signature = signature(attempt.facts)
        if attempt.signature not in seen:
            seen.add(attempt.signature)
            kept.append(attempt)
    return kept


def with_wrong_arguments(part: int, attempts: list[Attempt]) -> list[Attempt]:
    return attempts + [
        Attempt(part, f"argument {w.label}", w.value, wrong=w) for w in wrong_arguments()
    ]
