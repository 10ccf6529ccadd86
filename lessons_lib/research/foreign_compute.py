"""Reason 1, foreign compute: NumPy and C code made differentiable, as a Function and as a custom operator.

Importing this module registers four custom operators, ``lessons::numpy_convolve``,
``lessons::numpy_correlate``, ``lessons::numpy_convolve_no_backward`` and
``lessons::cube_in_c``, once: an operator's name is its identity in the process."""

import ctypes
import ctypes.util
import sys

import numpy as np
import torch
import torch.utils.checkpoint
from torch.autograd import Function
from torch.autograd.function import once_differentiable

__all__ = [
    "CubeInC",
    "NumpyConvolve",
    "c_cube",
    "cube_in_c",
    "numpy_convolve",
    "numpy_convolve_no_backward",
    "numpy_correlate",
]

# --- reason 1: foreign compute -------------------------------------------------------


class NumpyConvolve(Function):
    """Full 1-D convolution computed by NumPy, made differentiable in x and the kernel."""

    @staticmethod
    def forward(ctx, x, kernel):
        ctx.save_for_backward(x, kernel)
        y = np.convolve(x.detach().cpu().numpy(), kernel.detach().cpu().numpy(), mode="full")
        return torch.from_numpy(y).to(x)  # back to torch: same dtype and device as x

    @staticmethod
    @once_differentiable  # NumPy is invisible to autograd: refuse double backward honestly
    def backward(ctx, grad_out):
        x, kernel = (t.cpu().numpy() for t in ctx.saved_tensors)
        g = grad_out.cpu().numpy()
        grad_x = grad_kernel = None
        # y[n] = sum_k x[k] kernel[n - k], so each VJP is a correlation with the other input.
        if ctx.needs_input_grad[0]:
            grad_x = torch.from_numpy(np.correlate(g, kernel, mode="valid")).to(grad_out)
        if ctx.needs_input_grad[1]:
            grad_kernel = torch.from_numpy(np.correlate(g, x, mode="valid")).to(grad_out)
        return grad_x, grad_kernel


# --- reason 1, the recommended way: a custom operator ------------------------------------


@torch.library.custom_op("lessons::numpy_correlate", mutates_args=())
def numpy_correlate(signal: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """Valid 1-D correlation computed by NumPy: the VJPs of numpy_convolve, an op of its own."""
    out = np.correlate(signal.cpu().numpy(), kernel.cpu().numpy(), mode="valid")
    return torch.from_numpy(out).to(signal)


@numpy_correlate.register_fake  # shapes only: how torch.compile traces it without running it
def _numpy_correlate_fake(signal, kernel):
    return signal.new_empty(signal.shape[0] - kernel.shape[0] + 1)


@torch.library.custom_op("lessons::numpy_convolve", mutates_args=())
def numpy_convolve(x: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """Full 1-D convolution computed by NumPy, as a custom operator with a backward."""
    y = np.convolve(x.cpu().numpy(), kernel.cpu().numpy(), mode="full")
    return torch.from_numpy(y).to(x)


@numpy_convolve.register_fake
def _numpy_convolve_fake(x, kernel):
    return x.new_empty(x.shape[0] + kernel.shape[0] - 1)


def _numpy_convolve_setup_context(ctx, inputs, output):
    ctx.save_for_backward(*inputs)  # x and kernel


def _numpy_convolve_backward(ctx, grad_out):
    x, kernel = ctx.saved_tensors
    # The same two correlations as NumpyConvolve.backward, each a call of an operator, so
    # torch.compile can trace the backward too.
    grad_x = numpy_correlate(grad_out, kernel) if ctx.needs_input_grad[0] else None
    grad_kernel = numpy_correlate(grad_out, x) if ctx.needs_input_grad[1] else None
    return grad_x, grad_kernel


numpy_convolve.register_autograd(
    _numpy_convolve_backward, setup_context=_numpy_convolve_setup_context
)


@torch.library.custom_op("lessons::numpy_convolve_no_backward", mutates_args=())
def numpy_convolve_no_backward(x: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """numpy_convolve without register_autograd: a backward raises, yet some checks pass."""
    y = np.convolve(x.cpu().numpy(), kernel.cpu().numpy(), mode="full")
    return torch.from_numpy(y).to(x)


@numpy_convolve_no_backward.register_fake
def _numpy_convolve_no_backward_fake(x, kernel):
    return x.new_empty(x.shape[0] + kernel.shape[0] - 1)


# --- reason 1, code torch.compile cannot read: a C library ---------------------------------

# The C maths library, opened through ctypes: libm (None, the running process, if it is
# not found by name), or Windows' C runtime. A stand-in for a C library of your own.
_C_MATHS = ctypes.CDLL("ucrtbase" if sys.platform == "win32" else ctypes.util.find_library("m"))
_C_MATHS.pow.restype, _C_MATHS.pow.argtypes = ctypes.c_double, (ctypes.c_double, ctypes.c_double)


def c_cube(x: torch.Tensor) -> torch.Tensor:
    """x ** 3, one element at a time, by the C maths library's pow."""
    values = x.detach().cpu().numpy().ravel()
    cubes = [_C_MATHS.pow(float(v), 3.0) for v in values]  # a C call Dynamo cannot trace
    return torch.tensor(cubes, dtype=x.dtype, device=x.device).reshape(x.shape)


class CubeInC(Function):
    """Cube whose forward calls C: fine in eager mode, a graph break for torch.compile."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return c_cube(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x**2


@torch.library.custom_op("lessons::cube_in_c", mutates_args=())
def cube_in_c(x: torch.Tensor) -> torch.Tensor:
    """The same C call as a custom operator: torch.compile calls it, never reads it."""
    return c_cube(x)


@cube_in_c.register_fake  # shapes only: the compiler never runs the C code while tracing
def _cube_in_c_fake(x):
    return torch.empty_like(x)


def _cube_in_c_setup_context(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _cube_in_c_backward(ctx, grad_out):
    (x,) = ctx.saved_tensors
    return grad_out * 3 * x**2


cube_in_c.register_autograd(_cube_in_c_backward, setup_context=_cube_in_c_setup_context)
