"""What a test file for a custom Function looks like: lessons_lib's Clamp, checked with pytest.

Lesson 2's developer track shows this file and runs it. Each test's name says what it pins;
the bounds are parametrised, and hypothesis draws the random inputs.
"""

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch.autograd import gradcheck, gradgradcheck

from lessons_lib import Clamp

BOUNDS = [(0.0, 1.0), (-1.0, 1.0), (-2.0, 0.5)]  # (lo, hi): where the clamp has its kinks
MARGIN = 1e-3  # gradcheck's points stay this far from a kink, far beyond its eps of 1e-6


def clamp_between(lo, hi):
    """Clamp as a function of x alone, the form gradcheck differentiates."""
    return lambda x: Clamp.apply(x, lo, hi)


@pytest.mark.parametrize(("lo", "hi"), BOUNDS)
def test_forward_is_torch_clamp_everywhere_including_the_bounds(lo, hi):
    x = torch.linspace(-3, 3, 25, dtype=torch.float64)  # steps of 0.25: every bound is a point
    assert torch.equal(Clamp.apply(x, lo, hi), x.clamp(lo, hi))


@pytest.mark.parametrize(("lo", "hi"), BOUNDS)
def test_gradcheck_and_gradgradcheck_pass_on_every_side_of_both_kinks(lo, hi):
    points = [lo - 1, lo - 0.25, lo + 0.25, hi - 0.25, hi + 0.25, hi + 1]
    x = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    assert gradcheck(clamp_between(lo, hi), (x,))
    assert gradgradcheck(clamp_between(lo, hi), (x,))


@pytest.mark.parametrize(("lo", "hi"), BOUNDS)
def test_at_the_bounds_the_whole_upstream_gradient_passes(lo, hi):
    # The slope jumps at a bound, so any gradient between 0 and grad_out is valid there:
    # this pins Clamp's own choice, grad_out. Not "as torch.clamp does": torch 2.13's clamp
    # passes grad_out there; 2.14.1's passes 0 with number bounds, as here (half of grad_out
    # with tensor bounds), so that comparison would pin a torch release.
    x = torch.tensor([lo, hi], dtype=torch.float64, requires_grad=True)
    grad_out = torch.tensor([0.5, 3.0], dtype=torch.float64)
    (grad,) = torch.autograd.grad(Clamp.apply(x, lo, hi), x, grad_out)
    assert grad.tolist() == [0.5, 3.0]


@pytest.mark.parametrize(("lo", "hi"), BOUNDS)
@settings(max_examples=25, deadline=None)  # per bounds: enough for a wrong region; no time limit
@given(values=st.lists(st.floats(-5, 5), min_size=1, max_size=30))
def test_random_inputs_get_grad_out_inside_the_bounds_and_zero_outside(lo, hi, values):
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    grad_out = torch.linspace(0.5, 2.0, len(values), dtype=torch.float64)  # uneven on purpose
    (grad,) = torch.autograd.grad(Clamp.apply(x, lo, hi), x, grad_out)
    inside, kink = (x > lo) & (x < hi), (x == lo) | (x == hi)
    between = (grad >= 0) & (grad <= grad_out)  # on a kink: anything from 0 to grad_out
    assert torch.where(kink, between, grad == grad_out * inside).all()


@pytest.mark.parametrize(("lo", "hi"), BOUNDS)
@settings(max_examples=25, deadline=None)  # a busy machine (Binder) may pause for seconds
@given(values=st.lists(st.floats(-5, 5), min_size=1, max_size=10))
def test_gradcheck_passes_at_random_points_away_from_the_kinks(lo, hi, values):
    away = [v for v in values if min(abs(v - lo), abs(v - hi)) > MARGIN]
    assume(away)  # hypothesis draws again when every point was too close to a kink
    x = torch.tensor(away, dtype=torch.float64, requires_grad=True)
    assert gradcheck(clamp_between(lo, hi), (x,))
