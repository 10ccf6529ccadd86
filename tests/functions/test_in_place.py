"""An in-place Function: ReLUInPlace and ctx.mark_dirty."""

import pytest
import torch
from hypothesis import given
from torch.autograd import gradcheck, gradgradcheck

from lessons_lib import ReLUInPlace
from tests.functions.inputs import leaf, values


@given(values)
def test_relu_in_place_equals_torch_relu_in_place_in_value_and_gradient(data):
    """Against torch's own in-place op: the same values, the same gradient (0 at x = 0)."""
    ours, theirs = leaf(data), leaf(data)
    upstream = torch.linspace(-2, 3, len(data), dtype=torch.float64)
    y = ReLUInPlace.apply(ours.clone())
    torch.testing.assert_close(y, torch.relu(ours.detach()), rtol=0, atol=0)
    y.backward(upstream)
    torch.relu_(theirs.clone()).backward(upstream)
    torch.testing.assert_close(ours.grad, theirs.grad, rtol=0, atol=0)


def test_relu_in_place_passes_gradcheck_and_gradgradcheck():
    """Samples avoid the kink at 0; the clone gives the Function a tensor it may change."""
    x = leaf([[-1.7, -0.3, 0.2], [0.6, 1.4, -3.1]])
    assert gradcheck(lambda t: ReLUInPlace.apply(t.clone()), (x,))
    assert gradgradcheck(lambda t: ReLUInPlace.apply(t.clone()), (x,))


def test_relu_in_place_returns_its_input_and_moves_its_history_onto_the_node():
    """mark_dirty: later uses of x differentiate through the ReLU, as after torch.relu_."""
    a = leaf([-1.0, 2.0])
    x = a.clone()
    assert ReLUInPlace.apply(x) is x
    assert type(x.grad_fn).__name__ == "ReLUInPlaceBackward"
    (3 * x).sum().backward()
    assert a.grad.tolist() == [0.0, 3.0]


def test_without_mark_dirty_the_change_is_silent_and_the_gradient_skips_the_relu():
    """What the notebook shows: torch does not raise; x keeps its old history."""

    class Forgetful(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.clamp_(min=0)
            return x

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out

    a = leaf([-1.0, 2.0])
    x = a.clone()
    Forgetful.apply(x)
    assert x.tolist() == [0.0, 2.0]
    assert type(x.grad_fn).__name__ == "CloneBackward0"
    (3 * x).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_a_leaf_that_requires_grad_is_refused_by_relu_before_and_by_the_function_after():
    """As the notebook says: torch.relu_ checks first; a Function only after forward ran."""
    for op, after in [(torch.relu_, [-1.0, 2.0]), (ReLUInPlace.apply, [0.0, 2.0])]:
        a = leaf([-1.0, 2.0])
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            op(a)
        assert a.tolist() == after


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_relu_in_place_saves_its_output_through_save_for_backward(dtype):
    a = leaf([-0.5, 0.5, 1.5], dtype=dtype)
    y = ReLUInPlace.apply(a.clone())
    assert not [k for k, v in vars(y.grad_fn).items() if isinstance(v, torch.Tensor)]
    (saved,) = y.grad_fn.saved_tensors
    assert saved.data_ptr() == y.data_ptr()
    y.sum().backward()
    assert y.dtype == a.grad.dtype == dtype
