"""Attempts at check_cube (and at the gradient doctor on the same Cubes): mutants of the
notebook's starter Cube, of the starter with the hint ladder's answer line, and of
lessons_lib's own Cube; plus the wrong arguments."""

import functools
import inspect

import torch

from lessons_lib.exercises.backward_pass.cube_words import CUBE_HINTS
from lessons_lib.functions import Cube as CourseCube
from tests.exercises.attempts import operators as op
from tests.exercises.attempts.arguments import wrong_arguments
from tests.exercises.attempts.cube_facts import cube_facts, cube_signature
from tests.exercises.attempts.distinct import Attempt, distinct
from tests.exercises.attempts.function_operators import notepad, rewrite_return, stray_call
from tests.exercises.attempts.loading import load_source
from tests.exercises.attempts.mutate import Mutant, mutants, parse, second_order, unparse
from tests.exercises.attempts.sources import answer_step, fill_todo, starter

PREAMBLE = "import torch\nfrom torch.autograd import Function\n\n"
BOTH = ("forward", "backward")


def bases() -> dict[str, str]:
    """The sources attempts start from, by name."""
    notebook = starter("exercises/your-own-backward-pass.ipynb", "class Cube(", "TODO")
    return {
        "starter": PREAMBLE + notebook,
        "answer": PREAMBLE + fill_todo(notebook, answer_step(CUBE_HINTS)),
        "lessons_lib": PREAMBLE + inspect.getsource(CourseCube),
    }


FIRST = [
    op.delete_statement(BOTH),
    op.change_constant(BOTH, [0, 1, 2, 4, 6, -3, 0.5, 2.5, 11.5]),
    op.swap_operands(BOTH),
    op.replace_operator(BOTH),
    op.wrap_returned(
        ["backward"],
        [
            "({},)",
            "[{}]",
            "{}.sum()",
            "{}.mean()",
            "{}.item()",
            "{}.detach()",
            "{}.numpy()",
            "{}.long()",
            "{}.double()",
            "{}[0]",
            "{}.reshape(-1, 1)",
            "-{}",
            "None",
            "({0}, {0})",
            "5",
            "2.5",
            "{}.tolist()",
            "float({}.sum())",
            "torch.tensor({}.tolist())",
        ],
    ),
    op.wrap_returned(
        ["forward"],
        ["{}.int()", "{}.double()", "{}.sum()", "{}.tolist()", "x", "None", "{}.item()", "[{}]"],
    ),
    op.rename(["backward"], ["grad_out"], ["{}.sum()", "{}.mean()", "{}**2", "1", "{}[0]", "x"]),
    op.rename(["backward"], ["x"], ["grad_out", "x.sum()", "torch.ones_like(x)"]),
    stray_call(BOTH, ["x", "grad_out"], [".detach()", ".item()", ".numpy()", ".long()"]),
    notepad(),
    op.insert_before_return(
        ["backward"], ["grad_out.mul_(2)", "grad_out.zero_()", "x.mul_(2)", "x.pow_(2)"]
    ),
    op.insert_before_return(["forward"], ["x.mul_(2)", "x.add_(1)"]),
    rewrite_return(
        ["backward"],
        [
            "grad_out *= 3 * x**2\nreturn grad_out",
            "x.pow_(2)\nreturn grad_out * 3 * x",
            "x **= 2\nreturn grad_out * 3 * x",
            "return 3 * x * x * grad_out",
            "return (grad_out * 3 * x**2,)",
            "return grad_out * 3 * x.detach() ** 2",
            "return grad_out * 3 * x * 2",
            "return grad_out + 3 * x**2",
            "return grad_out * x**3",
            "return grad_out * 3 * x**2, None",
            "return torch.mul(grad_out, 3 * x**2)",
        ],
    ),
]
SECOND = [
    op.change_constant(["backward"], [2, 4]),
    op.replace_operator(["backward"], ["+", "-"]),
    op.wrap_returned(["backward"], ["({},)", "{}.sum()", "{}.double()"]),
    notepad(),
]


@functools.cache
def cube_attempts() -> tuple[list[Attempt], int]:
    """(the distinct attempts, how many were generated before deduplication)."""
    made: list[Attempt] = []
    seen: set[str] = set()  # the same source from two mutations is one attempt
    for name, base in bases().items():
        # lessons_lib's Cube is the answer with comments: only itself, as a right attempt.
        firsts = mutants(base, FIRST) if name != "lessons_lib" else []
        # The second order from the answer only: the starter differs from it by one line.
        seconds = second_order(firsts, SECOND, every=7) if name == "answer" else []
        every = [Mutant("unchanged", base), *firsts, *seconds]
        made += [_loaded(name, base, m) for m in every if m.source not in seen]
        seen.update(m.source for m in every)
    made = [a for a in made if a is not None]
    reference = load_source(bases()["answer"], "cube").Cube
    made += wrong_arguments("check_cube", reference, lambda: reference.apply(torch.tensor(2.0)))
    for a in made:
        a.facts = cube_facts(a.learner) if not a.argument else None
    return distinct(made, cube_signature), len(made)


def _loaded(name: str, base: str, mutant: Mutant) -> Attempt | None:
    module = load_source(mutant.source, "cube")
    cube = getattr(module, "Cube", None)
    if cube is None:
        return None
    return Attempt(
        "check_cube", f"{name}: {mutant.label}", cube, mutant.source, unparse(parse(base))
    )
