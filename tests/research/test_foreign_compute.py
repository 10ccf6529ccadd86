"""Reason 1: NumPy and C code as Functions and custom operators, against torch's own ops."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.autograd import gradcheck

from lessons_lib.functions import Cube
from lessons_lib.research import (
    CubeInC,
    NumpyConvolve,
    compiled_ops,
    cube_in_c,
    numpy_convolve,
    numpy_convolve_no_backward,
    numpy_correlate,
)
from tests.research.samples import sample

# --- reason 1: foreign compute -----------------------------------------------------------


def test_numpy_convolve_passes_gradcheck_in_both_inputs():
    assert gradcheck(NumpyConvolve.apply, (sample(7), sample(3, seed=1)))


@given(st.integers(1, 9), st.integers(1, 9))
def test_numpy_convolve_matches_torch_conv1d(n, m):
    x, k = sample(n, requires_grad=False), sample(m, seed=1, requires_grad=False)
    # conv1d correlates, so flip the kernel; pad so every overlap is kept ("full").
    expected = torch.nn.functional.conv1d(x.view(1, 1, -1), k.flip(0).view(1, 1, -1), padding=m - 1)
    torch.testing.assert_close(NumpyConvolve.apply(x, k), expected.view(-1))


@given(st.integers(1, 9), st.integers(1, 9))
def test_numpy_convolve_custom_op_matches_the_function_forward_and_backward(n, m):
    x, k = sample(n), sample(m, seed=1)
    grad_out = sample(n + m - 1, seed=2, requires_grad=False)
    ours, theirs = numpy_convolve(x, k), NumpyConvolve.apply(x, k)
    torch.testing.assert_close(ours, theirs)
    grads = torch.autograd.grad(ours, (x, k), grad_out)
    expected = torch.autograd.grad(theirs, (x, k), grad_out)
    for a, b in zip(grads, expected, strict=True):
        torch.testing.assert_close(a, b)


def test_numpy_convolve_custom_op_passes_gradcheck_and_opcheck():
    x, k = sample(7), sample(3, seed=1)
    assert gradcheck(numpy_convolve, (x, k))
    results = torch.library.opcheck(numpy_convolve, (x, k))
    assert set(results.values()) == {"SUCCESS"}, results
    assert set(torch.library.opcheck(numpy_correlate, (x.detach(), k.detach())).values()) == {
        "SUCCESS"
    }


def test_opcheck_autograd_registration_passes_an_operator_with_no_backward():
    """The researcher track: only test_aot_dispatch_dynamic notices the missing backward."""
    x, k = sample(5), sample(2, seed=1)
    results = torch.library.opcheck(numpy_convolve_no_backward, (x, k), raise_exception=False)
    assert results["test_autograd_registration"] == "SUCCESS"
    assert results["test_schema"] == results["test_faketensor"] == "SUCCESS"
    assert "no autograd formula" in str(results["test_aot_dispatch_dynamic"])
    with pytest.raises(RuntimeError, match="no autograd formula was registered"):
        numpy_convolve_no_backward(x, k).sum().backward()


def test_numpy_convolve_custom_op_refuses_double_backward_with_an_error():
    x, k = sample(5), sample(2, seed=1)
    (g,) = torch.autograd.grad((numpy_convolve(x, k) ** 2).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="numpy_correlate"):
        g.sum().backward()


def test_numpy_convolve_custom_op_skips_a_frozen_kernel():
    x, k = sample(6), sample(3, seed=1, requires_grad=False)
    numpy_convolve(x, k).sum().backward()
    assert x.grad.shape == x.shape and k.grad is None


def test_compiled_graphs_hold_the_function_traced_numpy_translated_and_the_op_opaque():
    """aot_eager graphs: Cube's own ops; NumPy turned into torch ops; the custom op as one node."""
    x, k = sample(5), sample(2, seed=1)
    cube = compiled_ops(Cube.apply, x)
    assert cube["forward"] == ["aten.pow"] and "aten.mul" in cube["backward"]
    function = compiled_ops(NumpyConvolve.apply, x, k)
    assert "aten.convolution" in function["forward"] and "aten.convolution" in function["backward"]
    custom = compiled_ops(numpy_convolve, x, k)
    assert custom == {
        "forward": ["lessons.numpy_convolve"],
        "backward": ["lessons.numpy_correlate", "lessons.numpy_correlate"],
    }


def test_numpy_convolve_custom_op_gives_the_eager_result_and_gradient_under_torch_compile():
    x, k = sample(6), sample(3, seed=1)

    def loss(a, b):
        return (numpy_convolve(a, b) ** 2).sum()

    compiled = torch.compile(loss, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(x, k), loss(x, k))
    for a, b in zip(
        torch.autograd.grad(compiled(x, k), (x, k)),
        torch.autograd.grad(loss(x, k), (x, k)),
        strict=True,
    ):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("fn", [CubeInC.apply, cube_in_c], ids=["Function", "custom op"])
def test_cube_in_c_matches_cube_and_passes_gradcheck(fn):
    x = sample(2, 3)
    torch.testing.assert_close(fn(x), Cube.apply(x))
    assert gradcheck(fn, (sample(4),))


def test_cube_in_c_is_a_graph_break_as_a_function_and_one_opaque_node_as_a_custom_op():
    """The developer track: Dynamo cannot trace the C call; a custom op is never traced."""
    x = sample(3)
    with pytest.raises(torch._dynamo.exc.Unsupported, match="_FuncPtr"):
        compiled_ops(CubeInC.apply, x)
    assert compiled_ops(cube_in_c, x)["forward"] == ["lessons.cube_in_c"]
    assert set(torch.library.opcheck(cube_in_c, (x,)).values()) == {"SUCCESS"}


def test_numpy_convolve_keeps_float32_and_skips_a_frozen_kernel():
    x = torch.randn(6, requires_grad=True)
    kernel = torch.randn(3)
    y = NumpyConvolve.apply(x, kernel)
    assert y.dtype == torch.float32
    y.sum().backward()
    assert x.grad.shape == x.shape and kernel.grad is None
