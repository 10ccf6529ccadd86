"""The course's answers to "Check your Clamp01": edge_test (Part 1) and reference_checks
(Part 2), the ones the hints show and the checks are tested against.

What is correct, everywhere: forward is torch.clamp(x, 0, 1); the gradient is grad_out where
0 < x < 1 and 0 where x < 0 or x > 1; at exactly 0 and 1 the slope jumps (from 0 to 1, and
from 1 to 0), so any value between 0 and grad_out is right there.
"""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd import Function


def edge_test(Clamp01Candidate: type[Function]) -> bool:
    """Part 1's answer: True when Clamp01Candidate's gradient is right on both sides of 0 and 1."""
    # One point on each side of each edge: below 0, just above 0, just below 1, above 1.
    x = torch.tensor([-0.5, 0.001, 0.999, 1.5], requires_grad=True)
    # A different upstream gradient for each point, so each can be told apart in x.grad.
    grad_out = torch.tensor([10.0, 20.0, 30.0, 40.0])
    Clamp01Candidate.apply(x).backward(grad_out)
    # A correct Clamp01 passes grad_out on between 0 and 1, and gives back 0 outside.
    expected = torch.tensor([0.0, 20.0, 30.0, 0.0])
    return torch.equal(x.grad, expected)


def reference_checks(Clamp01Candidate: type[Function]) -> None:
    """Part 2's answer: raise an error when Clamp01Candidate is not a correct Clamp01."""
    clamp = Clamp01Candidate.apply

    def follows_the_rule(x, grad_out, grad):
        """Where grad is right: grad_out inside (0, 1), 0 outside [0, 1], and at exactly 0
        and 1, where the slope jumps, anything between 0 and grad_out."""
        inside, edge = (x > 0) & (x < 1), (x == 0) | (x == 1)
        between = (grad_out.clamp(max=0) <= grad) & (grad <= grad_out.clamp(min=0))
        return torch.where(edge, between, grad == grad_out * inside)

    # 1. Forward is torch.clamp: on both sides, inside, and exactly on the edges.
    x = torch.tensor([-1.5, -0.5, 0.0, 0.25, 0.75, 1.0, 1.5], dtype=torch.float64)
    assert torch.equal(clamp(x), x.clamp(0, 1)), f"forward gave {clamp(x).tolist()}"

    # 2. gradcheck in float64 at points well away from the kinks at 0 and 1: several at
    #    once, in every stretch of the line (below -1, between -1 and 0, inside, above 1).
    away = torch.tensor([-1.5, -0.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(clamp, (away,))  # raises GradcheckError on a mismatch

    # 3. The edges, with an uneven grad_out that must come back unchanged: just outside 0
    #    and 1 the gradient is 0, just inside it is grad_out, and on them anything between
    #    (torch 2.13's clamp(0, 1) passes grad_out there; 2.14.1's, and a strict mask, 0).
    edges = torch.tensor(
        [-0.001, 0.0, 0.001, 0.999, 1.0, 1.001], dtype=torch.float64, requires_grad=True
    )
    grad_out = torch.tensor([0.5, 2.0, -1.0, 3.0, 0.25, 4.0], dtype=torch.float64)
    sent = grad_out.clone()
    (grad,) = torch.autograd.grad(clamp(edges), edges, grad_out)
    assert torch.equal(grad_out, sent), "backward changed grad_out in place"
    assert follows_the_rule(edges, grad_out, grad).all(), f"gradient {grad.tolist()}"

    # 4. A property, on random inputs and random grad_outs, bounded: forward is
    #    torch.clamp, and the gradient follows the rule.
    @settings(max_examples=50, deadline=None, database=None)
    @given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-2, 2)), min_size=2, max_size=20))
    def random_inputs(pairs):
        values, upstream = zip(*pairs, strict=True)
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        g = torch.tensor(upstream, dtype=torch.float64)
        y = clamp(x)
        assert torch.equal(y, x.detach().clamp(0, 1))
        (grad,) = torch.autograd.grad(y, x, g)
        assert follows_the_rule(x.detach(), g, grad).all()

    random_inputs()
