"""Attempts at check_nudge: mutants of the lesson's starter my_nudge and of the hint's answer
line, the usual slips written out, other first lines; and the wrong arguments."""

import functools

import torch

from lessons_lib.exercises.nudge_words import HINTS
from tests.exercises.attempts import operators as op
from tests.exercises.attempts.arguments import should_refuse, wrong_arguments
from tests.exercises.attempts.distinct import Attempt, distinct
from tests.exercises.attempts.function_operators import rewrite_return
from tests.exercises.attempts.loading import load_source
from tests.exercises.attempts.mutate import Mutant, mutants, parse, second_order, unparse
from tests.exercises.attempts.nudge_facts import nudge_facts, nudge_signature
from tests.exercises.attempts.sources import answer_step, fill_todo, starter

PREAMBLE = "import torch\n\n"
# What earlier cells of the lesson leave behind, for answers that use them.
NOTEBOOK = "up, down = 29.791, 24.389  # earlier cells' f(3.1) and f(2.9)\n\n"
INSIDE = ["my_nudge"]

SLIPS = [
    "return (f(x + h) - f(x)) / h",
    "return (f(x) - f(x - h)) / h",
    "return (f(x + h) - f(x - h)) / h",
    "return (f(x + h) - f(x - h)) / 2 * h",
    "return f(x + h) - f(x - h) / (2 * h)",
    "return f(x + h) - f(x - h) / 2 * h",
    "return f(x + h) - f(x - h)",
    "return (f(x + h) - f(x - h)) / 2",
    "return (f(x + h) - f(x - h)) * 2 * h",
    "return (f(x - h) - f(x + h)) / (2 * h)",
    "return (f(x) + h - f(x)) / h",
    "return 3 * x ** 2",
    "return 27.01",
    "return 27",
    "return (up - down) / (2 * h)",
    "return (f.apply(x + h) - f.apply(x - h)) / (2 * h)",
    "return (f(x + h) - f(x - h)) / (2 * 0.1)",
    "return (x + h) ** 3 - (x - h) ** 3",
    "return ((x + h) ** 3 - (x - h) ** 3) / (2 * h)",
    "return (f(x + 0.001) - f(x - 0.001)) / 0.002",
    "return (f(x + h) - f(x - h)) / (h - h)",
    "return ((f(x + h) - f(x - h)) / (2 * h),)",
    "return [(f(x + h) - f(x - h)) / (2 * h)]",
    "return (f(x + h), f(x - h))",
    "return f(x + h) - f(x - h), 2 * h",
    "return ((f(x + h) - f(x - h)) / (2 * h)).item()",
    "return float((f(x + h) - f(x - h)) / (2 * h))",
    "return str((f(x + h) - f(x - h)) / (2 * h))",
    "return (f(x + h) - f(x - h)) / (2 * h) > 0",
    "return torch.cat([f(x + h), f(x - h)])",
    "return ...",
    "return None",
    "print((f(x + h) - f(x - h)) / (2 * h))",
    "return (f(x + h) - f(x - h)) * (1 / (2 * h))",
    "return f(x + h) / (2 * h) - f(x - h) / (2 * h)",
]
FIRST_LINES = ["f, x", "f, x, h, k", "x, f, h", "f, h, x", "f, x, h=0.1", "*args", "f"]


def bases() -> dict[str, str]:
    notebook = starter("02-checking-gradients/1-beginner.ipynb", "def my_nudge(", "TODO")
    return {
        "starter": PREAMBLE + notebook,
        "answer": PREAMBLE + fill_todo(notebook, answer_step(HINTS)),
    }


OPERATORS = [
    op.change_constant(INSIDE, [0, 1, 3, 0.5, 4, -2, 1.5]),
    op.swap_operands(INSIDE),
    op.replace_operator(INSIDE),
    op.rename(INSIDE, ["f", "x", "h"], ["f", "x", "h", "0.1", "1", "(x + h)", "-{}"]),
    op.wrap_returned(INSIDE, ["({},)", "[{}]", "{}.item()", "{}.tolist()", "-{}", "2 * {}"]),
    op.delete_statement(INSIDE),
]
SECOND = [op.change_constant(INSIDE, [1, 3]), op.replace_operator(INSIDE, ["+", "*"])]


def _first_lines(source: str) -> list[Mutant]:
    return [
        Mutant(f"first line ({line})", source.replace("my_nudge(f, x, h)", f"my_nudge({line})"))
        for line in FIRST_LINES
    ]


@functools.cache
def nudge_attempts() -> tuple[list[Attempt], int]:
    """(the distinct attempts, how many were generated)."""
    base = bases()
    answer = base["answer"]
    firsts = mutants(answer, OPERATORS)
    slips = [
        Mutant(f"slip {s!r}", unparse(m))
        for s in SLIPS
        for _, m in rewrite_return(INSIDE, [s])(parse(answer))
    ]
    every = [Mutant("starter: unchanged", base["starter"]), Mutant("answer: unchanged", answer)]
    every += firsts + slips + second_order(slips, SECOND) + second_order(firsts, SECOND, every=2)
    every += [Mutant(m.label + " after earlier cells", NOTEBOOK + m.source) for m in slips]
    every += _first_lines(answer)
    made, seen, normal = [], set(), unparse(parse(base["starter"]))
    for m in every:
        if m.source not in seen:
            seen.add(m.source)
            fn = getattr(load_source(m.source, "nudge"), "my_nudge", None)
            made.append(Attempt("check_nudge", m.label, fn, m.source, normal))
    right = load_source(answer, "nudge").my_nudge
    made += wrong_arguments(
        "check_nudge", right, lambda: right(lambda t: t**3, torch.tensor([3.0]), 0.1)
    )
    for a in made:
        if not (a.argument and should_refuse(a.learner, wants_class=False)):
            a.facts = nudge_facts(a.learner)
    return distinct(made, nudge_signature), len(made)
