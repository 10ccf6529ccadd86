"""Mistake 7: a grad_out that is not contiguous, and FlatCube, which takes any layout."""

import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck

from lessons_lib import Cube
from lessons_lib.functions import FlatCube
from tests.functions.inputs import leaf

# What the steps after a Function do to the grad_out it receives (x is 2 x 3).
DOWNSTREAM = {
    "sum": lambda y: y.sum(),  # one value expanded: strides (0, 0)
    "transposed": lambda y: (y.t() * torch.arange(6.0, dtype=y.dtype).view(3, 2)).sum(),
    "expanded": lambda y: (y.sum(0) * torch.arange(3.0, dtype=y.dtype)).sum(),  # (0, 1)
}


class ViewCube(torch.autograd.Function):
    """The developer track's Mistake 7: FlatCube with view in place of reshape."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x.reshape(-1) ** 3).reshape(x.shape)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return (grad_out.view(-1) * 3 * x.reshape(-1) ** 2).view(x.shape)


@pytest.mark.parametrize("after", DOWNSTREAM.values(), ids=DOWNSTREAM.keys())
def test_flat_cube_matches_cube_whatever_grad_out_layout_the_next_steps_send(after):
    x, x_ref = (
        leaf([[1.0, -2.0, 0.5], [3.0, 0.0, -1.5]]),
        leaf([[1.0, -2.0, 0.5], [3.0, 0.0, -1.5]]),
    )
    after(FlatCube.apply(x)).backward()
    after(Cube.apply(x_ref)).backward()
    torch.testing.assert_close(x.grad, x_ref.grad)


def test_a_backward_that_views_grad_out_passes_sum_and_fails_transposed_or_expanded():
    """The lesson's claim, on this torch: the quick test passes, real training raises."""
    x = leaf([[1.0, -2.0, 0.5], [3.0, 0.0, -1.5]])
    DOWNSTREAM["sum"](ViewCube.apply(x)).backward()
    for name in ("transposed", "expanded"):
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            DOWNSTREAM[name](ViewCube.apply(x)).backward()


def test_flat_cube_passes_gradcheck_and_gradgradcheck_on_a_transposed_input():
    x = leaf([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]]).t()
    assert gradcheck(FlatCube.apply, (x,)) and gradgradcheck(FlatCube.apply, (x,))
