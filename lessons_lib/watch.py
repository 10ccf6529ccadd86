"""Watch a learner's Function while other code runs: was it applied, was forward called
directly, did its backward run? The class is instrumented only inside the `with` block and
is restored exactly afterwards, whatever happens inside."""

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch.autograd import Function

_ABSENT = object()  # the class had no attribute of its own under that name


@dataclass
class Usage:
    """What a Function did while it was watched."""

    # One entry per Cube.apply call: "recorded", "no requires_grad" or "recording off".
    applies: list[str] = field(default_factory=list)
    forward_direct: int = 0  # forward called by hand, outside apply
    backward: int = 0  # times autograd ran its backward (or vjp)

    @property
    def recorded(self) -> bool:
        """True when some apply call put the Function into a graph autograd can follow."""
        return "recorded" in self.applies


def _apply_state(args: tuple) -> str:
    if not torch.is_grad_enabled():
        return "recording off"
    if any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
        return "recorded"
    return "no requires_grad"


@contextmanager
def watching(fn: type[Function]) -> Iterator[Usage]:
    """Count fn's apply calls, direct forward calls and backward runs inside the block."""
    usage = Usage()
    # The rule autograd calls: backward, or vjp when only that one was written.
    rule = "vjp" if fn.backward is Function.backward and fn.vjp is not Function.vjp else "backward"
    apply, forward, backward = fn.apply, fn.forward, getattr(fn, rule)
    inside_apply = 0

    def counted_apply(cls: type, *args: object, **kwargs: object) -> object:
        nonlocal inside_apply
        usage.applies.append(_apply_state(args))
        inside_apply += 1
        try:
            return apply(*args, **kwargs)
        finally:
            inside_apply -= 1

    @functools.wraps(forward)  # apply reads forward's signature when setup_context is used
    def counted_forward(*args: object, **kwargs: object) -> object:
        if not inside_apply:
            usage.forward_direct += 1
        return forward(*args, **kwargs)

    @functools.wraps(backward)
    def counted_backward(*args: object, **kwargs: object) -> object:
        usage.backward += 1
        return backward(*args, **kwargs)

    with patched(
        fn,
        apply=classmethod(counted_apply),
        forward=staticmethod(counted_forward),
        **{rule: staticmethod(counted_backward)},
    ):
        yield usage


@contextmanager
def patched(fn: type, **attributes: object) -> Iterator[None]:
    """Set fn's attributes inside the block; afterwards fn is exactly as it was."""
    own = {name: fn.__dict__.get(name, _ABSENT) for name in attributes}
    try:
        for name, value in attributes.items():
            setattr(fn, name, value)
        yield
    finally:
        for name, value in own.items():
            if value is _ABSENT:
                if name in fn.__dict__:
                    delattr(fn, name)
            else:
                setattr(fn, name, value)
