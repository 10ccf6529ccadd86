"""What the tests of "Your own backward pass" share: learners' code run as a notebook cell runs
it, the starter Cube and first drafts learners write, check_cube_grad's case names, and the
words Part 1 never taught."""

import itertools
import linecache
import textwrap

import torch

from lessons_lib import Cube
from lessons_lib.exercises.backward_pass.cube_grad import check_cube_grad

CASE_NAMES = [
    "1-d values",
    "your Cube's backward did the work",
    "your Cube's backward multiplies by grad_out",
    "a 0-d tensor (a single number)",
    "an empty tensor",
    "a 2-d tensor",
    "a float32 tensor",
    "a float64 tensor",
    "a tensor that requires grad is left alone",
    "a non-leaf (the result of other steps)",
    "an integer tensor is refused with a clear error",
    "works inside the caller's torch.no_grad()",
]

NO_GRAD = CASE_NAMES[-1]

_cells = itertools.count()


def cell(source, **names):
    """Run source as a notebook cell does: in its own namespace (with torch and the course's
    Cube unless given), its source readable by inspect through linecache, as IPython does."""
    source, filename = textwrap.dedent(source), f"<test-cell-{next(_cells)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"torch": torch, "Cube": Cube, **names}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def learner(source, **names):
    """The cube_grad a learner wrote in `source`."""
    return cell(source, **names)["cube_grad"]


def failed(check):
    return [c.name for c in check.cases if not c.passed]


def problem(source, **names):
    """The first problem check_cube_grad finds in a learner's cube_grad (there must be one)."""
    check = check_cube_grad(learner(source, **names))
    assert not check.ok
    return check.first_failure


FLOATS_ONLY = "if not x.is_floating_point(): raise TypeError('cube_grad needs floats')"

STARTER_CUBE = """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 3 * x**2  # TODO: this line forgets grad_out
"""


def first_draft(x):
    """The classic first attempt: differentiate the caller's own tensor."""
    x.requires_grad_(True)
    Cube.apply(x).sum().backward()
    return x.grad


PART_1_UNTAUGHT = [
    "∂",
    "Jacobian",
    "version",
    "leaf",
    "gradcheck",
    "float64",
    "in place",
    "chain rule",
]


def beginners_cube(last_line, saved="(x,) = ctx.saved_tensors", forward="ctx.save_for_backward(x)"):
    """The starter Cube with backward's last line (and optionally the notepad lines) replaced."""
    source = (
        STARTER_CUBE.replace("return 3 * x**2  # TODO: this line forgets grad_out", last_line)
        .replace("(x,) = ctx.saved_tensors", saved)
        .replace("ctx.save_for_backward(x)", forward)
    )
    return cell(source)["Cube"]
