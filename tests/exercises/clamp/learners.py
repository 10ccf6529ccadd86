"""What the tests of "Check your Clamp01" share: the suites and edge tests learners really
write, and ways to read a verdict."""

import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons_lib.broken_clamps import CORRECT, EXERCISE_BUGS
from lessons_lib.exercises.base import ExerciseCheck

KEYS = [bug.key for bug in EXERCISE_BUGS]

CORRECT_NAMES = [f"passes {c.label}" for c in CORRECT]


def case(check: ExerciseCheck, name: str):
    """The verdict's case of that name."""
    return next(c for c in check.cases if c.name == name)


# --- learners' suites, as they really write them ---------------------------------------


def forward_only(Clamp01Candidate):
    """The exercise's starter: forward values on three points, nothing else."""
    clamp = Clamp01Candidate.apply
    x = torch.tensor([-0.5, 0.3, 1.7], dtype=torch.float64)
    assert torch.equal(clamp(x), torch.tensor([0.0, 0.3, 1.0], dtype=torch.float64))


def random_points_through_gradcheck(Clamp01Candidate):
    @given(st.lists(st.floats(-2, 2), min_size=2, max_size=5))
    def passes_gradcheck(values):
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        torch.autograd.gradcheck(Clamp01Candidate.apply, (x,))

    passes_gradcheck()


def gradcheck_inside_and_sum_at_the_edges(Clamp01Candidate):
    """Three kinds of check asked, one given honestly: gradcheck only inside (0, 1), the
    edges through .sum().backward() (a grad_out of ones), and no property test."""
    clamp = Clamp01Candidate.apply
    x = torch.tensor([-1.5, -0.5, 0.0, 0.25, 0.75, 1.0, 1.5], dtype=torch.float64)
    assert torch.equal(clamp(x), x.clamp(0, 1))
    inside = torch.tensor([0.25, 0.75], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(clamp, (inside,))
    edges = torch.tensor([-1.5, -0.5, -0.001, 0.001, 0.999, 1.001, 1.5], requires_grad=True)
    clamp(edges).sum().backward()
    assert edges.grad.tolist() == [0, 0, 0, 1, 1, 0, 0]


def edge_starter(Clamp01Candidate):
    """Part 1's starter, as the notebook gives it."""
    x = torch.tensor([0.5], requires_grad=True)
    grad_out = torch.tensor([1.0])
    Clamp01Candidate.apply(x).backward(grad_out)
    expected = torch.tensor([1.0])
    return torch.equal(x.grad, expected)
