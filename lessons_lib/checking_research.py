"""Lesson 2's Functions and helpers: a complex-ready Cube, a call counter, fast mode's tolerance,
and vmap rules, right and wrong.

`ComplexCube` is shown in the researcher track (``show_source(ComplexCube)``) and checked in
tests/test_checking_research.py with gradcheck on complex inputs, in both modes. The
developer and researcher tracks both use `one_wrong_entry` to show how much a backward may
get wrong in one Jacobian entry and still pass fast mode; the researcher track reads fast
mode's vectors with `fast_mode_vectors` to check torch's tolerance rule. `CenterWrongVmap`
passes every gradcheck and disagrees with a loop under `torch.func.vmap`.
"""

from collections import Counter
from collections.abc import Callable

import torch
from torch import Tensor
from torch.autograd import Function, gradcheck


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


# --- a backward that is a finite difference --------------------------------------------


class CubeByFiniteDifference(Function):
    """x**3 whose backward nudges x and subtracts (a central difference) instead of using 3x²."""

    STEP = 1e-6  # gradcheck's own eps: made for float64

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        h = CubeByFiniteDifference.STEP
        slope = ((x + h) ** 3 - (x - h) ** 3) / (2 * h)
        return grad_out * slope


# --- fast mode's tolerance ----------------------------------------------------------


def cube_wrong_at(index: int, error: float) -> type[Function]:
    """A Cube on 1-D inputs whose backward is off by `error` in one Jacobian entry only."""

    class CubeWrongAt(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            slope = 3 * x**2
            slope[index] += error  # wrong: the entry (index, index) of the Jacobian is 3 x² too
            return grad_out * slope

    return CubeWrongAt


def wrong_entry_case(size: int, seed: int = 0) -> tuple[Tensor, int]:
    """A seeded float64 point of `size` entries in [0.5, 1.5] (requires grad) and an entry index."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.empty(size, dtype=torch.float64).uniform_(0.5, 1.5, generator=generator)
    index = int(torch.randint(size, (1,), generator=generator))
    return x.requires_grad_(True), index


def one_wrong_entry(size: int, error: float, seed: int = 0) -> tuple[bool, bool]:
    """Does gradcheck pass a Cube wrong by `error` in one entry? (slow mode, fast mode)."""
    x, index = wrong_entry_case(size, seed)
    fn = cube_wrong_at(index, error).apply
    slow = gradcheck(fn, (x,), raise_exception=False)
    fast = gradcheck(fn, (x,), fast_mode=True, raise_exception=False)
    return slow, fast


def fast_mode_vectors(x: Tensor) -> tuple[Tensor, Tensor]:
    """The unit vectors u and v fast gradcheck uses for a 1-D float64 x, read off its calls.

    A recording identity is checked at x: its forward sees x - eps u and x + eps u, its
    first backward receives v (for an output shaped like x).
    """
    inputs: list[Tensor] = []
    grads: list[Tensor] = []

    class Recorder(Function):
        @staticmethod
        def forward(ctx, t):
            inputs.append(t.detach().clone())  # gradcheck perturbs its input in place
            return t.clone()

        @staticmethod
        def backward(ctx, grad_out):
            grads.append(grad_out.clone())
            return grad_out

    point = x.detach().clone().requires_grad_(True)
    gradcheck(Recorder.apply, (point,), fast_mode=True)
    minus, plus = sorted((t for t in inputs if not torch.equal(t, x.detach())), key=torch.sum)
    u = plus - minus  # 2 eps u, rounded: normalising recovers u to about 1e-9
    return u / u.norm(), grads[0]


# --- vmap rules ----------------------------------------------------------------------


class Center(Function):
    """x minus its mean over dim 0, in the setup_context form, with no vmap rule."""

    @staticmethod
    def forward(x):
        return x - x.mean(dim=0, keepdim=True)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass  # the Jacobian, I - 1/n, does not depend on x: nothing to save

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out - grad_out.mean(dim=0, keepdim=True)  # the Jacobian is symmetric

    @staticmethod
    def jvp(ctx, x_tangent):
        return x_tangent - x_tangent.mean(dim=0, keepdim=True)


class CenterWithVmap(Center):
    """Center with a hand-written vmap rule: the batch dimension kept out of the mean."""

    @staticmethod
    def vmap(info, in_dims, x):
        (batch_dim,) = in_dims  # where vmap put the batch in x (never None: torch skips that)
        # Move the batch to dim 1: forward's mean over dim 0 then runs over each sample's data.
        return CenterWithVmap.apply(x.movedim(batch_dim, 1)), 1


class CenterWrongVmap(Center):
    """What not to do: a vmap rule that runs forward on the batch as it stands."""

    @staticmethod
    def vmap(info, in_dims, x):
        (batch_dim,) = in_dims
        # Wrong: with the batch at dim 0 (vmap's default), the mean runs over the samples.
        return CenterWrongVmap.apply(x), batch_dim
