"""Attempts at check_cube_grad: a learner's cube_grad, beside their Cube from Part 1, built
from the pieces learners write (a dtype guard, a copy of x, a way to differentiate, what
is returned), mutants of the course's answer and the notebook's draft and shortcut; and
the wrong arguments."""

import functools
import inspect
import textwrap

import torch

from lessons_lib.exercises.backward_pass import answers
from tests.exercises.attempts import operators as op
from tests.exercises.attempts.arguments import should_refuse, wrong_arguments
from tests.exercises.attempts.cube_attempts import bases as cube_bases
from tests.exercises.attempts.cube_grad_facts import cube_grad_facts, cube_grad_signature
from tests.exercises.attempts.distinct import Attempt, distinct
from tests.exercises.attempts.loading import load_source
from tests.exercises.attempts.mutate import Mutant, mutants
from tests.exercises.attempts.sources import starter

NOTEBOOK = "exercises/your-own-backward-pass.ipynb"

GUARDS = [
    "",
    "if not x.is_floating_point():\n    raise TypeError('cube_grad needs a floating-point tensor')",
    "if not x.is_floating_point():\n    raise ValueError('please pass floats')",
    "assert x.is_floating_point(), 'float tensors only'",
    "if not x.is_floating_point():\n    raise TypeError('wrong kind of tensor')",
    "if x.dtype == int:\n    raise TypeError('cube_grad needs a float tensor')",
    "if isinstance(x, int):\n    raise TypeError('cube_grad needs a float tensor')",
    "if x.dtype == torch.int:\n    raise TypeError('cube_grad needs a float tensor')",
]
COPIES = [
    "c = x.detach().requires_grad_(True)",
    "c = x.clone().requires_grad_(True)",
    "c = x.requires_grad_(True)",
    "c = x",
    "c = x.detach()",
    "x = x.clone().requires_grad_(True)\nc = x",
    "c = x.float().detach().requires_grad_(True)",
    "c = torch.tensor(x, requires_grad=True)",
]
DIFFS = [
    ("Cube.apply(c).sum().backward()", "c.grad"),
    ("(g,) = torch.autograd.grad(Cube.apply(c).sum(), c)", "g"),
    ("g = torch.autograd.grad(Cube.apply(c).sum(), c)", "g"),
    ("Cube.apply(c).backward()", "c.grad"),
    ("Cube.apply(c).mean().backward()", "c.grad"),
    ("Cube.apply(c).sum().backward()", "x.grad"),
    ("g = 3 * c ** 2", "g"),
    ("y = Cube.forward(None, c)\ny.sum().backward()", "c.grad"),
    ("(g,) = torch.autograd.grad(Cube.apply(c).sum(), x)", "g"),
    ("Cube.apply(c).sum().backward()", "c.grad.item()"),
    ("(g,) = torch.autograd.grad(Cube.apply(c).sum(), c)", "g.numpy()"),
    ("y = Cube.apply(c)\ny.sum().backward()\ny.sum().backward()", "c.grad"),
    ("(g,) = torch.autograd.grad(Cube.apply(c), c)", "g"),
    ("(g,) = torch.autograd.grad(Cube.apply(c).sum(), c)", "(g,)"),
    ("Cube.apply(c).sum().backward()", ""),
    ("Cube.apply(c).pow(2).sum().backward()", "c.grad"),
    ("Cube.apply(c.detach()).sum().backward()", "c.grad"),
]


def _cube_grad(guard: str, copy: str, diff: str, returned: str, enable_grad: bool) -> str:
    body = [guard, copy]
    if enable_grad:
        body.append("with torch.enable_grad():\n" + textwrap.indent(diff, "    "))
    else:
        body.append(diff)
    body.append(f"return {returned}" if returned else "pass")
    lines = "\n".join(b for b in body if b)
    return "def cube_grad(x):\n" + textwrap.indent(lines, "    ") + "\n"


def cubes() -> dict[str, str]:
    """The Cube beside cube_grad: the fixed one, the starter's (no grad_out), or none."""
    fixed, starter_cube = cube_bases()["answer"], cube_bases()["starter"]
    return {"fixed Cube": fixed, "starter's Cube": starter_cube, "no Cube": "import torch\n"}


def pieces() -> list[Mutant]:
    """cube_grads built from pieces: the guards that fire (or none) with every copy and
    every way to differentiate; the guards that never fire with the usual copy only."""
    found = []
    for g, guard in enumerate(GUARDS):
        for c, copy in enumerate(COPIES):
            if g >= 5 and c:
                continue  # a guard that never fires behaves as no guard
            if g in (2, 4) and c >= 4:
                continue  # these guards differ from the first only for integers
            for d, (diff, returned) in enumerate(DIFFS):
                wrap = (g + c + d) % 3 == 0
                label = f"guard {g}, copy {c}, diff {d}{', enable_grad' if wrap else ''}"
                found.append(Mutant(label, _cube_grad(guard, copy, diff, returned, wrap)))
    return found


OPERATORS = [
    op.delete_statement(["cube_grad"]),
    op.change_constant(["cube_grad"], [False, 2]),
    op.wrap_returned(["cube_grad"], ["{}.sum()", "{}.float()", "{}.detach()", "({},)", "None"]),
    op.rename(["cube_grad"], ["leaf", "x"], ["x", "leaf", "x.detach()"]),
]


@functools.cache
def cube_grad_attempts() -> tuple[list[Attempt], int]:
    """(the distinct attempts, how many were generated)."""
    answer = inspect.getsource(answers.cube_grad)
    draft = starter(NOTEBOOK, "def cube_grad(")
    shortcut = starter(NOTEBOOK, "def shortcut(").split("\n\n\n")[0] + "\n"
    fixed = cubes()["fixed Cube"]
    every = [Mutant("answer: unchanged", answer), Mutant("draft: unchanged", draft)]
    every += [Mutant("shortcut", shortcut.replace("def shortcut", "def cube_grad"))]
    every += [Mutant(f"answer: {m.label}", m.source) for m in mutants(answer, OPERATORS)]
    every += [Mutant(f"draft: {m.label}", m.source) for m in mutants(draft, OPERATORS)]
    every += pieces()
    made, seen = [], set()
    for cube_name, cube in cubes().items():
        for m in every if cube_name == "fixed Cube" else every[:3]:
            source = cube + "\n\n" + m.source
            if source in seen:
                continue
            seen.add(source)
            fn = getattr(load_source(source, "cube_grad"), "cube_grad", None)
            label = f"{cube_name}; {m.label}"
            origin = draft if m.label.startswith("draft") else answer  # what the diff shows
            made.append(Attempt("check_cube_grad", label, fn, source, fixed + "\n\n" + origin))
    right = load_source(fixed + "\n\n" + answer, "cube_grad").cube_grad
    made += wrong_arguments("check_cube_grad", right, lambda: right(torch.tensor([1.0, 2.0])))
    for a in made:
        if not (a.argument and should_refuse(a.learner, wants_class=False)):
            a.facts = cube_grad_facts(a.learner)
    return distinct(made, cube_grad_signature), len(made)
