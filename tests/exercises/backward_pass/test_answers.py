"""The course's reference answer to "Your own backward pass", cube_grad, against autograd of
x**3 (the answers to "Check your Clamp01" are tested in clamp/test_answers.py)."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons_lib import cube_grad


@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), max_size=30))
def test_cube_grad_is_three_x_squared_as_autograd_of_x_cubed_says(data):
    x = torch.tensor(data, dtype=torch.float64)
    leaf = x.clone().requires_grad_(True)
    (autograd,) = torch.autograd.grad((leaf**3).sum(), leaf)
    torch.testing.assert_close(cube_grad(x), autograd)
    torch.testing.assert_close(cube_grad(x), 3 * x**2)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 4), (1, 2, 3, 2)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cube_grad_keeps_shape_and_dtype(shape, dtype):
    x = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(0))
    g = cube_grad(x)
    assert g.shape == x.shape and g.dtype == dtype
    torch.testing.assert_close(g, 3 * x**2)


def test_cube_grad_leaves_a_leaf_that_requires_grad_alone():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    cube_grad(x)
    cube_grad(x)
    assert x.grad is None
    assert x.requires_grad and x.is_leaf


def test_cube_grad_leaves_a_plain_tensor_without_requires_grad():
    x = torch.tensor([1.0, -2.0])
    assert cube_grad(x).tolist() == [3.0, 12.0]
    assert not x.requires_grad and x.grad is None


def test_cube_grad_works_on_a_non_leaf_without_touching_its_graph():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = w * 2  # non-leaf: part of the caller's graph
    assert cube_grad(x).tolist() == [12.0, 48.0]
    assert w.grad is None
    x.sum().backward()  # the caller's graph still works afterwards
    assert w.grad.tolist() == [2.0, 2.0]


def test_cube_grad_works_inside_no_grad():
    with torch.no_grad():
        assert cube_grad(torch.tensor([2.0])).tolist() == [12.0]
    assert torch.is_grad_enabled()


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
def test_cube_grad_refuses_integer_tensors_with_a_clear_message(dtype):
    with pytest.raises(TypeError, match=r"floating-point tensor.*x\.float\(\)"):
        cube_grad(torch.tensor([1, 2], dtype=dtype))


def test_cube_grad_refuses_non_tensors():
    with pytest.raises(TypeError, match=r"needs a torch\.Tensor, got list"):
        cube_grad([1.0, 2.0])
