"""The researcher track's Functions against gradcheck, torch's own ops and unrolled autograd."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.autograd import gradcheck, gradgradcheck
from torch.func import grad, jacrev, vmap

from lessons_lib.functions import SigmoidSpike
from lessons_lib.research import (
    CubeDetachedBackward,
    CubeOnceDifferentiable,
    Exp,
    FixedPointTanh,
    Heaviside,
    Linear,
    NumpyConvolve,
    Sort,
    StableSoftplus,
    TanhStackRecompute,
    TanhStackSaved,
    fixed_point_unrolled,
    tanh_stack,
    train_spiking_layer,
    vjp_error,
)

F64 = torch.float64


def sample(*shape, seed=0, requires_grad=True):
    """A seeded float64 tensor, a leaf that requires grad."""
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=F64).requires_grad_(requires_grad)


def contraction(n, norm=0.5, seed=1):
    """A random n x n float64 matrix with spectral norm `norm` < 1."""
    a = sample(n, n, seed=seed, requires_grad=False)
    return (norm * a / torch.linalg.matrix_norm(a, 2)).requires_grad_(True)


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


# --- reason 1: foreign compute -----------------------------------------------------------


def test_numpy_convolve_passes_gradcheck_in_both_inputs():
    assert gradcheck(NumpyConvolve.apply, (sample(7), sample(3, seed=1)))


@given(st.integers(1, 9), st.integers(1, 9))
def test_numpy_convolve_matches_torch_conv1d(n, m):
    x, k = sample(n, requires_grad=False), sample(m, seed=1, requires_grad=False)
    # conv1d correlates, so flip the kernel; pad so every overlap is kept ("full").
    expected = torch.nn.functional.conv1d(x.view(1, 1, -1), k.flip(0).view(1, 1, -1), padding=m - 1)
    torch.testing.assert_close(NumpyConvolve.apply(x, k), expected.view(-1))


def test_numpy_convolve_keeps_float32_and_skips_a_frozen_kernel():
    x = torch.randn(6, requires_grad=True)
    kernel = torch.randn(3)
    y = NumpyConvolve.apply(x, kernel)
    assert y.dtype == torch.float32
    y.sum().backward()
    assert x.grad.shape == x.shape and kernel.grad is None


# --- reason 2: surrogate gradients ----------------------------------------------------------


def test_heaviside_is_a_step_with_zero_gradient():
    x = torch.tensor([-1.0, 0.0, 0.5], requires_grad=True)
    y = Heaviside.apply(x)
    y.sum().backward()
    assert y.tolist() == [0.0, 0.0, 1.0]
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_spiking_layer_learns_with_the_surrogate_and_not_with_the_true_gradient():
    true = train_spiking_layer(Heaviside.apply)
    surrogate = train_spiking_layer(lambda v: SigmoidSpike.apply(v, 5.0))
    assert true[0] == surrogate[0]  # same start: same seed, same forward
    assert len(set(true)) == 1  # zero gradient: the weights never move
    assert surrogate[-1] < 0.5 * surrogate[0]


# --- reason 3: a numerically superior derivative -----------------------------------------------


def test_stable_softplus_passes_gradcheck_and_gradgradcheck():
    x = sample(10) * 10
    assert gradcheck(StableSoftplus.apply, (x,))
    assert gradgradcheck(StableSoftplus.apply, (x,))


@given(st.floats(-1e4, 1e4, allow_nan=False))
def test_stable_softplus_matches_logaddexp_and_stays_finite(value):
    x = torch.tensor([value], dtype=F64, requires_grad=True)
    y = StableSoftplus.apply(x)
    y.backward()
    torch.testing.assert_close(y, torch.logaddexp(x, torch.zeros_like(x)))
    torch.testing.assert_close(x.grad, torch.sigmoid(x.detach()))


def test_stable_softplus_works_under_torch_func():
    x = torch.linspace(-50, 50, 7, dtype=F64)
    torch.testing.assert_close(vmap(grad(StableSoftplus.apply))(x), torch.sigmoid(x))
    torch.testing.assert_close(jacrev(StableSoftplus.apply)(x), torch.diag(torch.sigmoid(x)))


# --- reason 4: memory control --------------------------------------------------------------------


@pytest.mark.parametrize("fn", [TanhStackSaved, TanhStackRecompute], ids=lambda f: f.__name__)
def test_tanh_stacks_pass_gradcheck_and_match_autograd(fn):
    x = sample(6)
    assert gradcheck(lambda t: fn.apply(t, 4), (x,))
    (ours,) = torch.autograd.grad(fn.apply(x, 4).sum(), x)
    (expected,) = torch.autograd.grad(tanh_stack(x, 4).sum(), x)
    torch.testing.assert_close(fn.apply(x, 4), tanh_stack(x, 4))
    torch.testing.assert_close(ours, expected)


# --- reason 5: implicit differentiation -------------------------------------------------------------


def test_fixed_point_is_a_fixed_point():
    x, w = sample(4, 6), contraction(6)
    z = FixedPointTanh.apply(x, w, 1e-13, 500)
    torch.testing.assert_close(z, torch.tanh(z @ w.T + x), rtol=0, atol=1e-12)


def test_fixed_point_passes_gradcheck_in_x_and_weight():
    x, w = sample(3, 5), contraction(5)
    assert gradcheck(lambda a, b: FixedPointTanh.apply(a, b, 1e-14, 1000), (x, w))


def test_fixed_point_gradient_agrees_with_unrolled_autograd():
    x, w = sample(8, 6), contraction(6)
    grad_out = sample(8, 6, seed=3, requires_grad=False)
    implicit = torch.autograd.grad(FixedPointTanh.apply(x, w, 1e-13, 500), (x, w), grad_out)
    unrolled = torch.autograd.grad(fixed_point_unrolled(x, w, 100), (x, w), grad_out)
    for a, b in zip(implicit, unrolled, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-10)


# --- cost framing ----------------------------------------------------------------------------------


def test_exp_matches_torch_exp_and_passes_gradgradcheck():
    x = sample(5)
    torch.testing.assert_close(Exp.apply(x), torch.exp(x))
    assert gradcheck(Exp.apply, (x,))
    assert gradgradcheck(Exp.apply, (x,))
