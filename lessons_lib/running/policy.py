"""What counts as a Function: one policy for the doctor, both explorers and every check.

A learner may pass the class (`Cube`) or the method they call (`Cube.apply`); both name the
same Function, so both are accepted. Anything else gets one sentence on what was passed
(running.arguments).
"""

import torch


def is_function(fn: object) -> bool:
    """True for a subclass of torch.autograd.Function (the class, not an instance)."""
    return (
        isinstance(fn, type)
        and issubclass(fn, torch.autograd.Function)
        and fn is not torch.autograd.Function
    )


def as_function(fn: object) -> type | None:
    """The Function subclass meant by `Cube` or `Cube.apply`; None for anything else."""
    if is_function(fn):
        return fn
    owner = getattr(fn, "__self__", None)
    if is_function(owner) and getattr(fn, "__name__", None) == "apply":
        return owner
    return None
