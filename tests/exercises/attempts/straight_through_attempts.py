"""Attempts at check_straight_through: the lesson's starter MyRound (backward `return ...`)
with each of many forward and backward lines a learner writes, some in a notebook where an
earlier cell left an x; mutants of the hint's answer; and the wrong arguments."""

import functools

import torch

from lessons_lib.exercises.straight_through_words import HINTS
from tests.exercises.attempts import operators as op
from tests.exercises.attempts.arguments import wrong_arguments
from tests.exercises.attempts.distinct import Attempt, distinct
from tests.exercises.attempts.function_operators import notepad, rewrite_return
from tests.exercises.attempts.loading import load_source
from tests.exercises.attempts.mutate import Mutant, mutants, parse, unparse
from tests.exercises.attempts.sources import answer_step, fill_todo, starter
from tests.exercises.attempts.straight_through_facts import round_facts, round_signature

PREAMBLE = "import torch\n\n"
NOTEBOOK_X = "x = torch.tensor([0.5, 1.5, 2.5])  # an earlier cell's x\n\n"

FORWARDS = [
    "return torch.round(x)",
    "return x",
    "return torch.floor(x + 0.5)",
    "return torch.floor(x)",
    "return torch.ceil(x)",
    "return x.round()",
    "return torch.round(x).int()",
    "return torch.round(x).tolist()",
    "return round(x)",
    "return torch.trunc(x)",
    "return None",
    "return x.round_()",
    "ctx.save_for_backward(x)\nreturn torch.round(x)",
    "ctx.x = x\nreturn torch.round(x)",
    "return torch.round(x).double()",
    "return torch.round(x * 2) / 2",
]
BACKWARDS = [
    "return grad_out",
    "return grad_out * 2",
    "return -grad_out",
    "return torch.ones_like(grad_out)",
    "return torch.zeros_like(grad_out)",
    "return x",
    "return torch.round(x)",
    "return grad_out.sum()",
    "return grad_out, None",
    "return (grad_out,)",
    "return [grad_out]",
    "return None",
    "return grad_out.long()",
    "return grad_out.double()",
    "return grad_out[0]",
    "return 1",
    "return grad_out.item()",
    "return grad_out.tolist()",
    "return torch.round(grad_out)",
    "return ...",
    "return grad_out.numpy()",
    "return grad_out.reshape(-1, 1)",
    "grad_out *= 2\nreturn grad_out",
    "return grad_out + 1",
    "return grad_out / 2",
    "return grad_out ** 2",
    "(x,) = ctx.saved_tensors\nreturn grad_out * x",
    "return grad_out * ctx.x",
    "return grad_out * 3 * x**2",
    "return grad_out * 0.5",
    "return grad_out.clone()",
    "return grad_out * y",
    "return grad_out * 1.5",
    "return grad_out - 1",
    "return torch.sign(grad_out)",
    "return grad_out.abs()",
    "return grad_out.unsqueeze(0)",
    "return grad_out.flip(0)",
    "return grad_out.mean()",
]


def bases() -> dict[str, str]:
    notebook = starter("01-custom-function/1-beginner.ipynb", "class MyRound(", "TODO")
    return {
        "starter": PREAMBLE + notebook,
        "answer": PREAMBLE + fill_todo(notebook, answer_step(HINTS)),
    }


def _lines(base: str) -> list[Mutant]:
    """Every forward line with every backward line, in a fresh kernel and after an x."""
    found = []
    for f in FORWARDS:
        once = rewrite_return(["forward"], [f])
        for forward in [m for _, m in once(parse(base))]:
            for b in BACKWARDS:
                twice = rewrite_return(["backward"], [b])
                for _, both in twice(forward):
                    text = unparse(both)
                    label = f"forward {f!r}, backward {b!r}"
                    found.append(Mutant(label, text))
                    if "x" in b.replace("ctx.x", ""):
                        found.append(
                            Mutant(
                                label + " after a cell's x",
                                text.replace("class MyRound", NOTEBOOK_X + "class MyRound", 1),
                            )
                        )
    return found


OPERATORS = [
    op.change_constant(["forward", "backward"], [0, 1, 2, -1, 0.5, 3]),
    op.wrap_returned(["backward"], ["{}.sum()", "-{}", "{}.detach()", "{}.mean()", "2 * {}"]),
    op.delete_statement(["forward", "backward"]),
    notepad(),
]


@functools.cache
def straight_through_attempts() -> tuple[list[Attempt], int]:
    """(the distinct attempts, how many were generated)."""
    base = bases()
    every = [Mutant("starter: unchanged", base["starter"])]
    every += [Mutant(f"answer: {m.label}", m.source) for m in mutants(base["answer"], OPERATORS)]
    every += _lines(base["answer"])
    made, seen = [], set()
    normal = unparse(parse(base["starter"]))
    for m in every:
        if m.source in seen:
            continue
        seen.add(m.source)
        cls = getattr(load_source(m.source, "myround"), "MyRound", None)
        if cls is not None:
            made.append(Attempt("check_straight_through", m.label, cls, m.source, normal))
    right = load_source(base["answer"], "myround").MyRound
    made += wrong_arguments(
        "check_straight_through", right, lambda: right.apply(torch.tensor([1.4]))
    )
    for a in made:
        a.facts = None if a.argument else round_facts(a.learner)
    return distinct(made, round_signature), len(made)
