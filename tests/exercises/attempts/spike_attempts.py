"""Attempts at check_spike: the exercise's starter MySpike; the answer with each of many
forward lines, and with each slope line and each backward return a learner writes; mutants
of the answer; and the wrong arguments."""

import functools

import torch

from lessons_lib.exercises.spike_words import ANSWER
from tests.exercises.attempts import operators as op
from tests.exercises.attempts.arguments import wrong_arguments
from tests.exercises.attempts.distinct import Attempt, distinct
from tests.exercises.attempts.function_operators import notepad
from tests.exercises.attempts.loading import load_source
from tests.exercises.attempts.mutate import Mutant, mutants, parse, unparse
from tests.exercises.attempts.sources import starter
from tests.exercises.attempts.spike_facts import spike_facts, spike_signature

PREAMBLE = "import torch\n\nfrom lessons_lib.surrogate_gradients import surrogate_slope\n\n"
FORWARD = "return (x >= threshold).to(x.dtype)  # the step, in x's kind of numbers"
SLOPE = 'slope = surrogate_slope(x, "fast-sigmoid", ctx.threshold, ctx.width)'
RETURN = "return grad_out * slope, None, None  # None: no gradient for the two numbers"

FORWARDS = [
    "return (x >= threshold).to(x.dtype)",
    "return (x >= threshold).float()",
    "return (x >= threshold).double()",
    "return (x > threshold).to(x.dtype)",
    "return (x >= 0).to(x.dtype)",
    "return (x > 0).to(x.dtype)",
    "return (x >= 1.0).to(x.dtype)",
    "return x >= threshold",
    "return (x >= threshold).long()",
    "return (x >= threshold).to(x.dtype).detach()",
    "return torch.heaviside(x - threshold, torch.ones_like(x))",
    "return torch.where(x >= threshold, 1.0, 0.0)",
    "return torch.where(x >= threshold, torch.ones_like(x), torch.zeros_like(x))",
    "return (x - threshold >= 0).to(x.dtype)",
    "return (x <= threshold).to(x.dtype)",
    "return torch.sigmoid((x - threshold) / width)",
    "return x",
    "return ...",
    "return None",
    "return float(x[0] >= threshold)",
    "return (x >= threshold).to(x.dtype).tolist()",
    "return (x >= threshold * width).to(x.dtype)",
    # Lines that raise in one kind of numbers only: float64 x, then float32 x.
    "return torch.heaviside(x - threshold, torch.tensor(1.0))",
    "return torch.heaviside(x - threshold, torch.tensor(1.0, dtype=torch.float64))",
    "assert x.dtype == torch.float32\n        return (x >= threshold).to(x.dtype)",
]
SLOPES = [
    SLOPE,
    'slope = surrogate_slope(x, "fast-sigmoid", 0.0, ctx.width)',
    'slope = surrogate_slope(x, "fast-sigmoid", ctx.threshold)',
    'slope = surrogate_slope(x, "fast-sigmoid", 1.0, 0.5)',
    'slope = surrogate_slope(x, "fast-sigmoid", ctx.threshold, 0.5)',
    'slope = surrogate_slope(x, "fast-sigmoid", 1.0, ctx.width)',
    'slope = surrogate_slope(x, "fast-sigmoid", ctx.width, ctx.threshold)',
    'slope = surrogate_slope(x, "sigmoid", ctx.threshold, ctx.width)',
    'slope = surrogate_slope(x, "arctan", ctx.threshold, ctx.width)',
    'slope = surrogate_slope(x, "triangle", ctx.threshold, ctx.width)',
    'slope = surrogate_slope(x, "straight-through", ctx.threshold, ctx.width)',
    "slope = 1 / (2 * ctx.width * (1 + (x - ctx.threshold).abs() / ctx.width) ** 2)",
    "slope = 1 / (2 * ctx.width * (1 + x.abs() / ctx.width) ** 2)",
    "slope = 1 / (2 * ctx.width * (1 + (x - ctx.threshold) / ctx.width) ** 2)",
    "slope = 1 / (1 + (x - ctx.threshold).abs() / ctx.width) ** 2",
    "slope = 0.5 / (1 + (x - ctx.threshold).abs()) ** 2",
    "slope = torch.zeros_like(x)",
    "slope = torch.ones_like(x)",
    "slope = ...",
    "slope = x",
]
RETURNS = [
    RETURN,
    "return grad_out * slope",
    "return grad_out * slope, None",
    "return (grad_out * slope, None, None)",
    "return slope, None, None",
    "return grad_out.clamp(-1, 1) * slope, None, None",
    "return grad_out.abs() * slope, None, None",
    "return -grad_out * slope, None, None",
    "return grad_out * slope, -grad_out * slope, None",
    "return grad_out * slope, None, 0.0",
    "return grad_out * slope, 0, 0",
    "return grad_out, None, None",
    "return grad_out + slope, None, None",
    "return (grad_out * slope).sum(), None, None",
    "return [grad_out * slope, None, None]",
    "return None, None, None",
    "return ...",
    "return grad_out * slope.detach(), None, None",
    "return (grad_out * slope).double(), None, None",
    "return grad_out * slope * 2, None, None",
    "return torch.sign(grad_out) * slope, None, None",
    "return grad_out * slope, None, None, None",
    "return grad_out * slope @ torch.eye(len(x)), None, None",
    # A backward that works for grad_out all ones only: it raises, or gives back None.
    "assert (grad_out == 1).all()\n        return grad_out * slope, None, None",
    "return (grad_out * slope if bool((grad_out == 1).all()) else None), None, None",
    "return grad_out * slope @ torch.eye(len(x), dtype=torch.float64), None, None",
]


def bases() -> dict[str, str]:
    notebook = starter("exercises/choose-your-surrogate.ipynb", "class MySpike(", "TODO")
    return {"starter": PREAMBLE + notebook, "answer": PREAMBLE + ANSWER}


def _with(base: str, forward: str = FORWARD, slope: str = SLOPE, back: str = RETURN) -> str:
    for old, new in ((FORWARD, forward), (SLOPE, slope), (RETURN, back)):
        assert old in base, old
        base = base.replace(old, new)
    return base


def _lines(base: str) -> list[Mutant]:
    """Each forward line with the answer's backward; each slope with each return."""
    found = [Mutant(f"forward {f!r}", _with(base, forward=f)) for f in FORWARDS]
    for s in SLOPES:
        for r in RETURNS:
            found.append(Mutant(f"slope {s!r}, backward {r!r}", _with(base, slope=s, back=r)))
    for f in FORWARDS[1:8]:  # two mistakes at once: a wrong forward with a wrong backward
        for s in SLOPES[1:8]:
            found.append(Mutant(f"forward {f!r}, slope {s!r}", _with(base, forward=f, slope=s)))
        for r in RETURNS[1:12]:
            found.append(Mutant(f"forward {f!r}, backward {r!r}", _with(base, forward=f, back=r)))
    return found


OPERATORS = [
    op.change_constant(["forward", "backward"], [0, 1, 2, -1, 0.5]),
    op.wrap_returned(["forward", "backward"], ["{}.sum()", "-{}", "{}.detach()", "2 * {}"]),
    op.delete_statement(["forward", "backward"]),
    op.swap_operands(["forward", "backward"]),
    op.replace_operator(["forward", "backward"]),
    notepad(),
]


@functools.cache
def spike_attempts() -> tuple[list[Attempt], int]:
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
        try:
            cls = getattr(load_source(m.source, "myspike"), "MySpike", None)
        except Exception:  # a mutant that does not even define the class
            continue
        if cls is not None:
            made.append(Attempt("check_spike", m.label, cls, m.source, normal))
    right = load_source(base["answer"], "myspike").MySpike
    made += wrong_arguments(
        "check_spike", right, lambda: right.apply(torch.tensor([1.4]), 1.0, 0.5)
    )
    for a in made:
        a.facts = None if a.argument else spike_facts(a.learner)
    return distinct(made, spike_signature), len(made)
