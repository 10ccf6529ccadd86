"""What the installed torch does where releases differ, so tests can say which they expect.

At exactly a bound of a clamp (a kink, where any value between 0 and grad_out is a valid
subgradient) torch's overloads pass back different shares of grad_out, by release:

- number bounds, `clamp(0, 1)`, `clip(0, 1)`, `clamp(min=0)` and `clamp(max=1)`: grad_out
  on 2.13.0; 0 on 2.14.1, at the bound each touches;
- tensor bounds, `torch.clamp(x, lo, hi)` with lo and hi tensors: grad_out on 2.13.0; half
  of grad_out on 2.14.1 (5 and 15 for grad_outs 10 and 30);
- `hardtanh(x, 0, 1)`: 0 on both.

2.13.0's row is what this file measures on it; 2.14.1's is what benchmarks/other_torch.py
measured there. The course's Clamp01 and Clamp keep grad_out on every release; the notebooks
say so.
"""

from collections.abc import Callable

import torch
import torch.nn.functional as F

# Each overload, and which points of x = [0, 1] sit on a bound it has (clamp(min=0) has
# none at 1, clamp(max=1) none at 0: there x is inside its range).
OVERLOADS: dict[str, tuple[Callable[[torch.Tensor], torch.Tensor], tuple[int, ...]]] = {
    "clamp(0, 1)": (lambda x: x.clamp(0, 1), (0, 1)),
    "clip(0, 1)": (lambda x: x.clip(0, 1), (0, 1)),
    "clamp(min=0)": (lambda x: x.clamp(min=0), (0,)),
    "clamp(max=1)": (lambda x: x.clamp(max=1), (1,)),
    "clamp, tensor bounds": (
        lambda x: torch.clamp(x, x.new_tensor(0.0), x.new_tensor(1.0)),
        (0, 1),
    ),
    "hardtanh(0, 1)": (lambda x: F.hardtanh(x, 0.0, 1.0), (0, 1)),
}

NUMBER_BOUNDS = ("clamp(0, 1)", "clip(0, 1)", "clamp(min=0)", "clamp(max=1)")
CLAMP_AT_A_BOUND = {
    "2.13": {
        **dict.fromkeys(NUMBER_BOUNDS, "grad_out"),
        "clamp, tensor bounds": "grad_out",
        "hardtanh(0, 1)": "0",
    },
    "2.14": {
        **dict.fromkeys(NUMBER_BOUNDS, "0"),
        "clamp, tensor bounds": "half",
        "hardtanh(0, 1)": "0",
    },
}


def torch_clamp_at_a_bound(overload: str = "clamp(0, 1)") -> str:
    """'grad_out', 'half' or '0': what this torch's overload passes back at exactly a bound."""
    step, on_a_bound = OVERLOADS[overload]
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    grad_out = torch.tensor([10.0, 30.0], dtype=x.dtype)
    (grad,) = torch.autograd.grad(step(x), x, grad_out)
    (share,) = {grad[i].item() / grad_out[i].item() for i in on_a_bound}  # one for every bound
    return {1.0: "grad_out", 0.5: "half", 0.0: "0"}[share]
