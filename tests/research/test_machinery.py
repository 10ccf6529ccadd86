"""The machinery the researcher track builds on, against gradcheck and torch's own ops."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.autograd import gradcheck, gradgradcheck

from lessons_lib.functions import Cube
from lessons_lib.research import (
    CubeDetachedBackward,
    CubeOnceDifferentiable,
    HardGate,
    Linear,
    Sort,
    vjp_error,
)
from tests.research.samples import F64, sample

# --- the machinery -------------------------------------------------------------------


def test_linear_passes_gradcheck_and_gradgradcheck():
    inputs = (sample(3, 5), sample(4, 5, seed=1), sample(4, seed=2))
    assert gradcheck(Linear.apply, inputs)
    assert gradgradcheck(Linear.apply, inputs)


def test_linear_matches_torch_linear():
    x, w, b = sample(3, 5), sample(4, 5, seed=1), sample(4, seed=2)
    torch.testing.assert_close(Linear.apply(x, w, b), torch.nn.functional.linear(x, w, b))


def test_linear_computes_only_the_gradients_asked_for():
    x, w, b = sample(3, 5), sample(4, 5, seed=1, requires_grad=False), sample(4, seed=2)
    Linear.computed.clear()
    Linear.apply(x, w, b).sum().backward()
    assert dict(Linear.computed) == {"x": 1, "bias": 1}
    assert w.grad is None


def test_sort_values_and_indices_match_torch_sort():
    x = sample(4, 6)
    values, indices = Sort.apply(x)
    expected = torch.sort(x, dim=-1)
    torch.testing.assert_close(values, expected.values)
    assert torch.equal(indices, expected.indices)


def test_sort_marks_indices_non_differentiable_and_values_differentiable():
    values, indices = Sort.apply(sample(5))
    assert not indices.requires_grad and indices.grad_fn is None
    assert values.grad_fn is not None


def test_sort_gradient_is_the_permutation_and_passes_gradgradcheck():
    x = sample(3, 5)
    assert gradcheck(lambda t: Sort.apply(t)[0], (x,))
    assert gradgradcheck(lambda t: Sort.apply(t)[0], (x,))


@given(st.lists(st.floats(-100, 100, allow_nan=False), min_size=1, max_size=12, unique=True))
def test_sort_vjp_matches_torch_func_on_any_distinct_values(values):
    x = torch.tensor(values, dtype=F64)
    error = vjp_error(lambda t: Sort.apply(t)[0], lambda t: torch.sort(t).values, x)
    assert error < 1e-12


def test_vjp_error_notices_a_wrong_backward():
    error = vjp_error(CubeOnceDifferentiable.apply, lambda t: 2 * t**3, sample(4))
    assert error > 0.1


def test_hard_gate_matches_autograd_of_the_mask_and_gives_scores_no_gradient():
    x, scores = sample(6), sample(6, seed=1)
    y = HardGate.apply(x, scores)
    torch.testing.assert_close(y, x * (scores > 0))
    grad_out = sample(6, seed=2, requires_grad=False)
    (gx,) = torch.autograd.grad(y, x, grad_out, retain_graph=True)
    torch.testing.assert_close(gx, grad_out * (scores > 0))
    (gs,) = torch.autograd.grad(y, scores, grad_out, allow_unused=True, materialize_grads=True)
    assert torch.equal(gs, torch.zeros_like(scores))


@pytest.mark.parametrize("materialize", [True, False])
def test_a_single_output_function_gets_no_grad_out_when_the_step_after_returns_none(materialize):
    """The researcher track: zeros by default, None with set_materialize_grads(False)."""
    received = []

    class Reporting(Cube):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return Cube.forward(ctx, x)

        @staticmethod
        def backward(ctx, grad_out):
            received.append(grad_out)
            return None if grad_out is None else Cube.backward(ctx, grad_out)

    s, x = sample(3), sample(3, seed=1)
    HardGate.apply(x, Reporting.apply(s)).sum().backward()
    (grad_out,) = received
    if materialize:
        assert torch.equal(grad_out, torch.zeros(3, dtype=F64))
        assert torch.equal(s.grad, torch.zeros(3, dtype=F64))
    else:
        assert grad_out is None and s.grad is None


def test_detached_backward_is_right_once_and_silently_wrong_twice():
    x = torch.tensor([2.0], dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad((CubeDetachedBackward.apply(x) ** 2).sum(), x, create_graph=True)
    assert g.item() == pytest.approx(192.0)  # d(x^6)/dx = 6x^5
    (gg,) = torch.autograd.grad(g, x)
    assert gg.item() == pytest.approx(288.0)  # not 30x^4 = 480: wrong, and no error


def test_once_differentiable_refuses_double_backward_with_an_error():
    x = torch.tensor([2.0], dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad((CubeOnceDifferentiable.apply(x) ** 2).sum(), x, create_graph=True)
    assert g.item() == pytest.approx(192.0)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.backward()


def test_once_differentiable_is_silently_zero_when_grad_out_carries_no_graph():
    """d/dx of (y.sum() + x^2) with y = x^3 is 3x^2 + 2x; its derivative 6x + 2 = 14 at x = 2."""
    x = torch.tensor([2.0], dtype=F64, requires_grad=True)
    loss = CubeOnceDifferentiable.apply(x).sum() + (x**2).sum()
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    assert g.item() == pytest.approx(16.0)
    (gg,) = torch.autograd.grad(g, x)  # no error...
    assert gg.item() == pytest.approx(2.0)  # ...and the Cube's share, 6x = 12, is missing
