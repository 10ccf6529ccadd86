"""The course's first Functions (Square, Cube and its setup_context form, RoundSTE, Clamp01,
Clamp) against torch's own ops, gradcheck and the seed's printed outputs, and the house rules
the lesson teaches."""

from types import SimpleNamespace

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.autograd import gradcheck, gradgradcheck
from torch.func import grad, hessian, jacfwd, jacrev, vmap

from lessons_lib import Clamp, Clamp01, Cube, CubeWithSetupContext, ReLUInPlace, RoundSTE, Square
from lessons_lib.functions import FlatCube, MatMul, MatMulFloat32
from tests.functions.inputs import grad_of, leaf, values
from tests.torch_conventions import CLAMP_AT_A_BOUND, OVERLOADS, torch_clamp_at_a_bound

# --- the seed's printed outputs, character for character -------------------------


def test_cube_prints_exactly_as_the_seed():
    x = torch.tensor([2.0], requires_grad=True)
    y = Cube.apply(x)
    y.backward()
    assert str(y) == "tensor([8.], grad_fn=<CubeBackward>)"
    assert str(x.grad) == "tensor([12.])"


def test_round_ste_prints_exactly_as_the_seed():
    x = torch.tensor([0.4, 1.6, 2.5], requires_grad=True)
    y = RoundSTE.apply(x)
    y.sum().backward()
    assert str(y) == "tensor([0., 2., 2.], grad_fn=<RoundSTEBackward>)"
    assert str(x.grad) == "tensor([1., 1., 1.])"


# --- every differentiable Function agrees with finite differences ---------------

SMOOTH_SAMPLE = [[-1.7, -0.3, 0.2, 0.6, 1.4, 3.1], [[0.25, -2.0], [0.75, 1.5]]]


@pytest.mark.parametrize("data", SMOOTH_SAMPLE)
@pytest.mark.parametrize(
    "fn", [Square, Cube, CubeWithSetupContext, Clamp01], ids=lambda f: f.__name__
)
def test_backward_passes_gradcheck_and_gradgradcheck(fn, data):
    """Samples avoid clamp's kinks at 0 and 1, where finite differences are undefined."""
    x = leaf(data)
    assert gradcheck(fn.apply, (x,))
    assert gradgradcheck(fn.apply, (x,))


def test_clamp_with_range_passes_gradcheck_with_non_tensor_inputs():
    x = leaf([-2.2, -0.9, 0.1, 1.8, 2.6])
    assert gradcheck(lambda t: Clamp.apply(t, -1.0, 2.0), (x,))
    assert gradgradcheck(lambda t: Clamp.apply(t, -1.0, 2.0), (x,))


def test_setup_context_cube_forward_mode_matches_finite_differences():
    x = leaf([-1.5, 0.3, 2.0])
    assert gradcheck(CubeWithSetupContext.apply, (x,), check_forward_ad=True)


# --- the setup_context variant under torch.func ----------------------------------


def test_setup_context_cube_works_under_every_torch_func_transform():
    f = CubeWithSetupContext.apply
    x = torch.tensor([-2.0, 0.5, 3.0], dtype=torch.float64)
    expected_jacobian = torch.diag(3 * x**2)
    torch.testing.assert_close(vmap(grad(f))(x), 3 * x**2)
    torch.testing.assert_close(vmap(f)(x.reshape(3, 1)), x.reshape(3, 1) ** 3)
    torch.testing.assert_close(jacrev(f)(x), expected_jacobian)
    torch.testing.assert_close(jacfwd(f)(x), expected_jacobian)
    torch.testing.assert_close(hessian(lambda t: f(t).sum())(x), torch.diag(6 * x))


def test_classic_cube_is_refused_by_torch_func():
    """The reason the setup_context form exists: the classic form cannot be transformed."""
    with pytest.raises(RuntimeError, match="setup_context"):
        jacrev(Cube.apply)(torch.tensor([1.0, 2.0]))


# --- properties against torch's own ops -----------------------------------------


@given(values)
def test_cube_and_square_match_autograd_of_the_power(data):
    for fn, power in [(Cube, 3), (Square, 2)]:
        x = torch.tensor(data, dtype=torch.float64)
        torch.testing.assert_close(fn.apply(x), x**power)
        torch.testing.assert_close(grad_of(fn.apply, data), grad_of(lambda t, p=power: t**p, data))


@given(values)
def test_round_ste_rounds_half_to_even_and_passes_the_gradient_through(data):
    x = leaf(data)
    y = RoundSTE.apply(x)
    torch.testing.assert_close(y, torch.round(x), rtol=0, atol=0)
    upstream = torch.linspace(-2, 3, len(data), dtype=torch.float64)
    y.backward(upstream)
    torch.testing.assert_close(x.grad, upstream, rtol=0, atol=0)


def expected_clamp_grad(data, lo, hi):
    """torch.clamp's gradient of a sum, except at exactly a bound: grad_out, the course's choice
    there (torch 2.13's too; 2.14.1's number bounds pass 0: tests/torch_conventions.py)."""
    torchs = grad_of(lambda t: torch.clamp(t, lo, hi), data)
    x = torch.tensor(data, dtype=torch.float64)
    return torch.where((x == lo) | (x == hi), torch.ones_like(x), torchs)


@given(values)
def test_clamp01_equals_torch_clamp_in_value_and_gradient_and_passes_grad_out_at_the_bounds(data):
    x = torch.tensor(data, dtype=torch.float64)
    torch.testing.assert_close(Clamp01.apply(x), torch.clamp(x, 0, 1), rtol=0, atol=0)
    torch.testing.assert_close(
        grad_of(Clamp01.apply, data), expected_clamp_grad(data, 0, 1), rtol=0, atol=0
    )


@given(values, st.floats(-5, 5), st.floats(0, 5))
def test_clamp_with_range_equals_torch_clamp_and_passes_grad_out_at_the_bounds(data, lo, width):
    hi = lo + width
    x = torch.tensor(data, dtype=torch.float64)
    torch.testing.assert_close(Clamp.apply(x, lo, hi), torch.clamp(x, lo, hi), rtol=0, atol=0)
    torch.testing.assert_close(
        grad_of(lambda t: Clamp.apply(t, lo, hi), data),
        expected_clamp_grad(data, lo, hi),
        rtol=0,
        atol=0,
    )


@pytest.mark.parametrize("overload", OVERLOADS)
def test_torch_clamps_gradient_at_a_bound_is_what_the_course_says_for_this_release(overload):
    release = ".".join(torch.__version__.split(".")[:2])
    if release not in CLAMP_AT_A_BOUND:
        pytest.skip(f"torch {release}: the course has not looked at its clamp at a bound")
    assert torch_clamp_at_a_bound(overload) == CLAMP_AT_A_BOUND[release][overload]


def test_every_overload_has_an_expectation_on_both_releases():
    assert all(set(row) == set(OVERLOADS) for row in CLAMP_AT_A_BOUND.values())


def test_clamp01_saves_only_a_boolean_mask():
    x = leaf([-0.5, 0.0, 0.5, 1.0, 1.5])
    y = Clamp01.apply(x)
    (saved,) = y.grad_fn.saved_tensors
    assert saved.dtype == torch.bool
    assert saved.tolist() == [False, True, True, True, False]


# --- the house rules the lesson teaches, enforced on the zoo itself --------------


def test_clamp_returns_one_gradient_per_input_with_none_for_the_numbers():
    x = leaf([0.5, 3.0])
    ctx = Clamp.apply(x, 0.0, 1.0).grad_fn  # a classic Function's node is its ctx
    grad_x, grad_lo, grad_hi = Clamp.backward(ctx, torch.ones(2, dtype=torch.float64))
    assert grad_x.tolist() == [1.0, 0.0]
    assert grad_lo is None and grad_hi is None


def test_clamp_skips_the_gradient_nobody_asked_for():
    ctx = SimpleNamespace(needs_input_grad=(False, False, False), lo=0.0, hi=1.0)
    ctx.saved_tensors = (torch.tensor([0.5, 3.0]),)
    assert Clamp.backward(ctx, torch.ones(2)) == (None, None, None)


@pytest.mark.parametrize("fn", [Square, Cube, CubeWithSetupContext, Clamp01, Clamp])
def test_no_tensor_is_stashed_as_a_ctx_attribute(fn):
    """Tensors go through save_for_backward; only plain values may ride on ctx."""
    x = leaf([-0.5, 0.5, 1.5])
    args = (x, 0.0, 1.0) if fn is Clamp else (x,)
    node = fn.apply(*args).grad_fn
    stashed = [k for k, v in vars(node).items() if isinstance(v, torch.Tensor)]
    assert stashed == []


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("fn", [Square, Cube, CubeWithSetupContext, RoundSTE, Clamp01])
def test_dtype_is_preserved_forwards_and_backwards(fn, dtype):
    x = leaf([-0.5, 0.5, 1.5], dtype=dtype)
    y = fn.apply(x)
    y.sum().backward()
    assert y.dtype == x.grad.dtype == dtype


def test_every_function_has_a_one_line_docstring():
    for fn in [
        Square,
        Cube,
        CubeWithSetupContext,
        RoundSTE,
        Clamp01,
        Clamp,
        ReLUInPlace,
        FlatCube,
        MatMul,
        MatMulFloat32,
    ]:
        assert fn.__doc__ and "\n" not in fn.__doc__.strip(), fn.__name__
