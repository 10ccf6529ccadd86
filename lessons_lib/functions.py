"""The Function zoo: every custom autograd Function the course teaches.

Each class is written the way a learner should write it, because the notebooks
show this source verbatim (``show_source(Cube)``). Keep them short and plain.
"""

import torch
from torch.amp import custom_bwd, custom_fwd
from torch.autograd import Function


class Square(Function):
    """The smallest complete Function: save the input, return grad_out * 2x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 2 * x


class Cube(Function):
    """The lesson's worked example: ctx as the notepad, the chain rule in backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)  # keep what backward will need
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x**2  # upstream gradient times the local derivative


class CubeWithSetupContext(Function):
    """Cube in the torch 2.x form: forward without ctx, so torch.func transforms work."""

    generate_vmap_rule = True  # forward is plain torch ops, so vmap can batch it for us

    @staticmethod
    def forward(x):
        return x**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)  # for backward (reverse mode)
        ctx.save_for_forward(x)  # for jvp (forward mode): a separate, explicit route

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        # Built from differentiable ops, so double backward and hessian work.
        return grad_out * 3 * x**2

    @staticmethod
    def jvp(ctx, x_tangent):
        # Forward mode (jacfwd, hessian) pushes a tangent through: d(x^3) = 3x^2 dx.
        (x,) = ctx.saved_tensors
        return 3 * x**2 * x_tangent


class ReLUInPlace(Function):
    """ReLU written into its input, as torch.relu_ does; ctx.mark_dirty tells autograd."""

    @staticmethod
    def forward(ctx, x):
        x.clamp_(min=0)  # overwrite x itself instead of making a new tensor
        ctx.mark_dirty(x)  # x has changed: its history must now go through this node
        ctx.save_for_backward(x)  # x now holds the output, the only copy there is
        return x  # an in-place Function returns the tensor it changed

    @staticmethod
    def backward(ctx, grad_out):
        (y,) = ctx.saved_tensors
        return grad_out * (y > 0)  # y > 0 exactly where the input was positive


class RoundSTE(Function):
    """The straight-through estimator: round forwards, pretend identity backwards."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x)  # nothing saved: backward needs nothing

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out  # the white lie: pass the gradient through unchanged


class Clamp01(Function):
    """Clamp to [0, 1]; a saved boolean mask lets the gradient through only inside."""

    @staticmethod
    def forward(ctx, x):
        inside = (x >= 0) & (x <= 1)  # closed: grad_out at 0 and 1, as torch 2.13's clamp
        ctx.save_for_backward(inside)
        return x.clamp(0, 1)

    @staticmethod
    def backward(ctx, grad_out):
        (inside,) = ctx.saved_tensors
        return grad_out * inside


class Clamp(Function):
    """Clamp to [lo, hi]: non-tensor inputs ride on ctx and get None as their gradient."""

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi  # plain numbers may be ctx attributes; tensors should not
        return x.clamp(lo, hi)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        grad_x = None
        if ctx.needs_input_grad[0]:  # did x require grad? frozen inputs skip the work
            grad_x = grad_out * ((x >= ctx.lo) & (x <= ctx.hi))
        return grad_x, None, None  # one per forward input: x, lo, hi


class ClippedSTE(Function):
    """BinaryNet's straight-through estimator: sign forwards, gradient only where |x| <= 1."""

    @staticmethod
    def forward(ctx, x):
        inside = x.abs() <= 1  # the gradient of hardtanh: pass through only here
        ctx.save_for_backward(inside)
        return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)  # sign, with 0 counted as +1

    @staticmethod
    def backward(ctx, grad_out):
        (inside,) = ctx.saved_tensors
        return grad_out * inside  # large inputs get no gradient, so weights cannot run away


class SigmoidSpike(Function):
    """A spiking neuron: fire (a step) forwards, a sigmoid's smooth slope backwards."""

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope  # a plain number: it may ride on ctx
        return (x > 0).to(x.dtype)  # 1 where the neuron fires, 0 elsewhere

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(ctx.slope * x)
        # The step's true gradient is zero almost everywhere; the derivative of
        # sigmoid(slope * x) is a bump around the threshold, steeper as slope grows.
        return grad_out * ctx.slope * s * (1 - s), None  # slope is a number: no gradient


class FlatCube(Function):
    """Cube through a flat buffer, as a 1-D kernel wants: reshape grad_out, never view it."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x.reshape(-1) ** 3).reshape(x.shape)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        # grad_out may be transposed or expanded by the steps after this one, so view(-1)
        # can fail; reshape returns a view when the layout allows it and copies when not.
        flat = grad_out.reshape(-1)
        return (flat * 3 * x.reshape(-1) ** 2).reshape(x.shape)


class MatMul(Function):
    """a @ b for mixed precision: under autocast, backward runs in forward's autocast state."""

    @staticmethod
    @custom_fwd(device_type="cpu")  # "cuda" for a model on the GPU
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b  # autocast may run this in bfloat16 while a and b stay as they came

    @staticmethod
    @custom_bwd(device_type="cpu")  # autocast back on if it was on in forward
    def backward(ctx, grad_out):
        a, b = ctx.saved_tensors
        # grad_out has the output's dtype, a and b their own: autocast reconciles them here
        # as it did in forward, so these products run in bfloat16 too (autograd then casts
        # each gradient to its input's dtype); with autocast off, bfloat16 @ float32 raises.
        return grad_out @ b.T, a.T @ grad_out


class MatMulFloat32(MatMul):
    """a @ b in float32 under autocast: float16, bfloat16 and float32 inputs are cast first."""

    @staticmethod
    @custom_fwd(device_type="cpu", cast_inputs=torch.float32)  # then autocast is off inside
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        # Under autocast, float32 @ float32, except that the cast skips float64: two float64
        # inputs stay float64, and float64 with any other dtype raises. Outside autocast
        # nothing is cast: bfloat16 @ bfloat16 gives bfloat16.
        return a @ b
