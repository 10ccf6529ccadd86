"""What the installed torch does where releases differ, so tests can say which they expect.

torch.clamp's gradient at exactly a bound (a kink, where any value between 0 and grad_out
is a valid subgradient) changed between the two releases the course is tested on: 2.13.0
passes grad_out there, 2.14.1 passes 0 (benchmarks/other_torch.py found it). The course's
Clamp01 and Clamp keep grad_out on every release; the notebooks say so.
"""

import torch

CLAMP_AT_A_BOUND = {"2.13": "grad_out", "2.14": "0"}


def torch_clamp_at_a_bound() -> str:
    """'grad_out' or '0': what this torch's clamp passes back at exactly a bound."""
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(x.clamp(0, 1), x, torch.tensor([2.0, 3.0], dtype=x.dtype))
    return {(2.0, 3.0): "grad_out", (0.0, 0.0): "0"}[tuple(grad.tolist())]
