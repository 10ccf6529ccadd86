"""Reason 1: NumPy and C code as Functions and custom operators, against torch's own ops."""

import numpy as np
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
    fullgraph_outcome,
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


NUMPY_CALLS = {  # the developer and researcher tracks' six, and what torch 2.13 does
    np.convolve: (lambda a: np.convolve(a, [1.0, -1.0]), True),
    np.sort: (np.sort, True),
    np.fft.fft: (np.fft.fft, True),
    np.linalg.norm: (np.linalg.norm, True),
    np.interp: (lambda a: np.interp(a, [0.0, 1.0, 2.0], [0.0, 10.0, 20.0]), False),
    np.polyval: (lambda a: np.polyval([1.0, 2.0, 3.0], a), False),
}


@pytest.mark.parametrize("function", NUMPY_CALLS, ids=lambda f: f.__name__)
def test_dynamo_translates_some_numpy_calls_and_raises_on_others_under_fullgraph(function):
    call, translated = NUMPY_CALLS[function]
    signal = torch.tensor([0.5, 1.5, 0.25], dtype=torch.float64)

    def through_numpy(t, call):
        return torch.as_tensor(call(t.numpy()))

    untranslated = "raises Unsupported (attempted to trace numpy function unsupported by PyTorch)"
    assert fullgraph_outcome(through_numpy, signal, call) == (
        "compiles" if translated else untranslated
    )
    torch._dynamo.reset()  # and without fullgraph=True, a graph break: NumPy runs eagerly
    compiled = torch.compile(through_numpy, backend="eager")(signal, call)
    torch.testing.assert_close(compiled, through_numpy(signal, call))


def test_fullgraph_outcome_names_a_c_call_unsupported_too():
    outcome = fullgraph_outcome(CubeInC.apply, sample(3))
    assert outcome.startswith("raises Unsupported (") and outcome.endswith(")")
    assert fullgraph_outcome(cube_in_c, sample(3)) == "compiles"


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
