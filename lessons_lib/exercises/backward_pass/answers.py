"""The course's reference answer to "Your own backward pass": cube_grad, the one the
exercise's hint shows and its check compares with.
"""

import torch

from lessons_lib.functions import Cube


def cube_grad(x: torch.Tensor) -> torch.Tensor:
    """Return d/dx of Cube.apply(x).sum(): 3 * x**2, same shape and dtype as x.

    The caller's tensor is left alone: its .grad, requires_grad and graph are untouched.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"cube_grad needs a torch.Tensor, got {type(x).__name__}.")
    if not x.is_floating_point():
        raise TypeError(
            f"cube_grad needs a floating-point tensor (float32 or float64), got {x.dtype}: "
            "PyTorch computes no gradient for integers. Try cube_grad(x.float())."
        )
    # A fresh leaf that shares x's values but none of its autograd state.
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():  # recording on, also inside a caller's torch.no_grad()
        (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
