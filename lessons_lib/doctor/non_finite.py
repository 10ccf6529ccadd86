"""Where a NaN or inf in backward's gradient came from: backward re-run under a watch."""

import math
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from lessons_lib.running import (
    Upstream,
    as_tuple,
    grads_for_every_output,
    leaves_and_args,
    preserved_global_state,
    tracked_outputs,
)


@dataclass(frozen=True)
class Step:
    """One operation backward ran, read at one element: its name, arguments and result."""

    op: str  # the ATen operation's name: "pow", "exp", "div", ...
    args: tuple  # each argument at that element (a number), or as given (an exponent, a dtype)
    result: float


_UNPLACED = object()  # an argument with no single value at the element watched


class _NonFiniteWatch(TorchDispatchMode):
    """Notes, at one element, the first operation that made NaN or inf from finite numbers,
    and (if that was inf) the first that then turned inf into NaN."""

    def __init__(self, shape: torch.Size, spot: tuple) -> None:
        super().__init__()
        self.shape, self.spot = shape, spot
        self.steps: list[Step] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if len(self.steps) < 2 and isinstance(out, torch.Tensor) and out.is_floating_point():
            with suppress(Exception):  # watching must never break the learner's backward
                self._look(func.overloadpacket.__name__, args, out)
        return out

    def _at(self, value: object) -> object:
        if isinstance(value, torch.Tensor):
            if value.shape == self.shape:
                return value[self.spot].item()
            return value.item() if value.numel() == 1 else _UNPLACED
        return value

    def _look(self, op: str, args: tuple, out: torch.Tensor) -> None:
        result = self._at(out)
        if not isinstance(result, float) or math.isfinite(result):
            return
        values = tuple(self._at(a) for a in args)
        if any(v is _UNPLACED for v in values):
            return
        numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        if not self.steps:
            made_here = all(math.isfinite(v) for v in numbers)  # not passed on from before
        else:  # after an inf: the first operation that turns it into NaN
            made_here = math.isinf(self.steps[0].result) and math.isnan(result)
            made_here &= not any(math.isnan(v) for v in numbers)
        if made_here:
            self.steps.append(Step(op, values, result))


def trace_non_finite(
    fn: type, inputs: Sequence, upstream: Upstream, at: int, spot: tuple
) -> list[Step]:
    """Where backward's NaN or inf at element `spot` of input `at`'s gradient came from.

    Runs forward and backward again, watching every torch operation backward calls at
    that element: the first that made NaN or inf from finite numbers, then (after an
    inf) the first that made NaN. Empty when no torch operation did (NumPy, say).
    """
    watch = _NonFiniteWatch(torch.Size(inputs[at].shape), spot)
    with preserved_global_state(), torch.enable_grad():
        _, args = leaves_and_args(inputs)
        try:
            outputs = as_tuple(fn.apply(*args))
            tracked = tracked_outputs(outputs)
            grad_outs = [upstream(outputs[k].detach(), k) for k in tracked]
            node = outputs[tracked[0]].grad_fn
            with torch.no_grad(), watch:
                node.apply(*grads_for_every_output(outputs, tracked, grad_outs))
        except Exception:
            pass  # what was seen before the failure still counts
    return watch.steps
