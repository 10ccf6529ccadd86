"""Custom Functions under autocast: MatMul and MatMulFloat32, and custom_bwd."""

import pytest
import torch
from torch.amp import custom_bwd
from torch.autograd import gradcheck, gradgradcheck

from lessons_lib.functions import MatMul, MatMulFloat32


def autocast_run(fn, report=None):
    """fn(h, w) under CPU bfloat16 autocast, h from a linear layer (so bfloat16); backward after."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(5, 4, generator=generator, requires_grad=True)
    layer_w = torch.randn(3, 4, generator=generator, requires_grad=True)
    w = torch.randn(3, 2, generator=generator, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = x @ layer_w.T  # autocast runs matmuls in bfloat16
        y = fn(h, w)
    saw = [t.dtype for t in y.grad_fn.saved_tensors]  # what forward saw, read off its notepad
    y.float().sum().backward()
    return h, w, y, saw, x.grad, w.grad


def float32_grads():
    """The same computation in float32 throughout: the reference gradients for x and w."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(5, 4, generator=generator, requires_grad=True)
    layer_w = torch.randn(3, 4, generator=generator, requires_grad=True)
    w = torch.randn(3, 2, generator=generator, requires_grad=True)
    ((x @ layer_w.T) @ w).sum().backward()
    return x.grad, w.grad


@pytest.mark.parametrize("fn", [MatMul, MatMulFloat32], ids=lambda f: f.__name__)
def test_matmuls_pass_gradcheck_and_gradgradcheck_outside_autocast(fn):
    a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 2, dtype=torch.float64, requires_grad=True)
    assert gradcheck(fn.apply, (a, b)) and gradgradcheck(fn.apply, (a, b))
    torch.testing.assert_close(fn.apply(a, b), a @ b)


def test_without_custom_bwd_the_backward_of_an_autocast_forward_raises():
    """The developer track's 'what not to do': backward runs with autocast off."""

    class PlainMatMul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a @ b

        @staticmethod
        def backward(ctx, grad_out):
            a, b = ctx.saved_tensors
            return grad_out @ b.T, a.T @ grad_out

    with pytest.raises(RuntimeError, match="same dtype"):
        autocast_run(PlainMatMul.apply)


def test_matmul_runs_in_bfloat16_under_autocast_and_its_backward_works():
    h, w, y, saw, x_grad, w_grad = autocast_run(MatMul.apply)
    assert (h.dtype, w.dtype, y.dtype) == (torch.bfloat16, torch.float32, torch.bfloat16)
    assert saw == [torch.bfloat16, torch.float32]  # the inputs as they arrived
    for got, want in zip((x_grad, w_grad), float32_grads(), strict=True):
        assert got.dtype == torch.float32
        torch.testing.assert_close(got, want, rtol=0.05, atol=0.1)  # bfloat16: ~3 digits


def test_matmul_float32_casts_its_inputs_up_and_runs_with_autocast_off():
    h, _, y, saw, x_grad, w_grad = autocast_run(MatMulFloat32.apply)
    assert h.dtype == torch.bfloat16 and y.dtype == torch.float32
    assert saw == [torch.float32, torch.float32]
    for got, want in zip((x_grad, w_grad), float32_grads(), strict=True):
        torch.testing.assert_close(got, want, rtol=0.05, atol=0.1)


def matmul_float32(a_dtype, b_dtype, under_autocast):
    """MatMulFloat32 on ones of these dtypes, with autocast on or off: its output's dtype."""
    a, b = torch.ones(2, 3, dtype=a_dtype), torch.ones(3, 2, dtype=b_dtype)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=under_autocast):
        return MatMulFloat32.apply(a, b).dtype


def test_matmul_float32_casts_only_under_autocast_and_leaves_float64_alone():
    """The developer track's cases: cast_inputs skips float64, and does nothing outside."""
    assert matmul_float32(torch.bfloat16, torch.float32, True) == torch.float32
    assert matmul_float32(torch.float16, torch.bfloat16, True) == torch.float32
    assert matmul_float32(torch.float64, torch.float64, True) == torch.float64
    with pytest.raises(RuntimeError, match=r"same dtype, but got: float != double"):
        matmul_float32(torch.bfloat16, torch.float64, True)  # bfloat16 cast up, float64 not
    assert matmul_float32(torch.bfloat16, torch.bfloat16, False) == torch.bfloat16


@pytest.mark.parametrize(("fn", "computed_in"), [(MatMul, torch.bfloat16), (MatMulFloat32, None)])
def test_w_grad_is_float32_and_matmuls_is_computed_in_bfloat16(fn, computed_in):
    returned = []

    class Reporting(fn):
        @staticmethod
        def backward(ctx, grad_out):
            grads = fn.backward(ctx, grad_out)  # under fn's own custom_bwd
            returned.extend(g.dtype for g in grads)
            return grads

    _, _, _, _, x_grad, w_grad = autocast_run(Reporting.apply)
    assert x_grad.dtype == w_grad.dtype == torch.float32  # autograd casts to each input's
    assert returned == [computed_in or torch.float32] * 2
    as_bfloat16 = torch.equal(w_grad, w_grad.bfloat16().float())  # every value a bfloat16 one
    assert as_bfloat16 == (computed_in == torch.bfloat16)


@pytest.mark.parametrize(("fn", "on"), [(MatMul, True), (MatMulFloat32, False)])
def test_custom_bwd_runs_backward_in_the_autocast_state_forward_ran_in(fn, on):
    seen = []

    class Reporting(fn):
        @staticmethod
        @custom_bwd(device_type="cpu")
        def backward(ctx, grad_out):
            seen.append(torch.is_autocast_enabled("cpu"))
            return fn.backward(ctx, grad_out)

    autocast_run(Reporting.apply)
    assert seen == [on]
    assert not torch.is_autocast_enabled("cpu")  # and nothing leaks out of backward
