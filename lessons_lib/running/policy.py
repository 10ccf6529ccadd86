"""What counts as a Function: one policy for the doctor, both explorers and every check.

A learner may pass the class (`Cube`) or the method they call (`Cube.apply`); both name the
same Function, so both are accepted. Anything else gets one sentence on what was passed.
"""

import torch

from lessons_lib.running.words import a_or_an


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


def describe_non_function(fn: object, usage: str) -> str:
    """One sentence on what was passed instead of a Function subclass, and what to pass.

    `usage` shows the helper's right call with `{}` for the class, e.g. "explore({})".
    """
    if isinstance(fn, torch.autograd.Function):  # Cube()
        name = type(fn).__name__
        return (
            f"You passed an instance, {name}(); pass the class {name} itself: "
            f"{usage.format(name)}, not an instance {name}()."
        )
    if fn is torch.autograd.Function:
        return "You passed torch.autograd.Function itself; pass your subclass of it."
    if isinstance(fn, torch.nn.Module) or (
        isinstance(fn, type) and issubclass(fn, torch.nn.Module)
    ):
        return "You passed an nn.Module: it calls operations; a Function defines one."
    if callable(fn):
        return "You passed a plain Python function, not a torch.autograd.Function subclass."
    return f"You passed {a_or_an(type(fn).__name__)}, not a torch.autograd.Function subclass."
