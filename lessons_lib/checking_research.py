"""Lesson 2's researcher track: a Cube ready for complex inputs, and a call counter.

`ComplexCube` is shown in the notebook (``show_source(ComplexCube)``) and checked in
tests/test_checking_research.py with gradcheck on complex inputs, in both modes.
"""

from collections import Counter
from collections.abc import Callable

from torch import Tensor
from torch.autograd import Function


class ComplexCube(Function):
    """z**3 for real or complex z: backward conjugates the derivative, jvp does not."""

    @staticmethod
    def forward(z):
        return z**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (z,) = inputs
        ctx.save_for_backward(z)
        ctx.save_for_forward(z)

    @staticmethod
    def backward(ctx, grad_out):
        (z,) = ctx.saved_tensors
        # PyTorch's convention: grad_in = grad_out * conj(ds/dz) for a holomorphic s(z).
        # On real tensors .conj() changes nothing, so this is also the real Cube.
        return grad_out * (3 * z**2).conj()

    @staticmethod
    def jvp(ctx, z_tangent):
        # Forward mode pushes a tangent through ds = (ds/dz) dz: no conjugate here.
        (z,) = ctx.saved_tensors
        return 3 * z**2 * z_tangent


def counting(fn: Callable[..., Tensor]) -> tuple[Callable[..., Tensor], Counter]:
    """fn wrapped to tally its calls ("forward") and the backward passes reaching its output."""
    calls: Counter = Counter()

    def counted(*args: Tensor) -> Tensor:
        calls["forward"] += 1
        out = fn(*args)
        if out.requires_grad:  # one tally each time a gradient for this output is computed
            out.register_hook(lambda grad: calls.update(["backward"]))
        return out

    return counted, calls
