"""Frozen inputs: each input's gradient must not depend on which other inputs require grad.

Lesson 2's developer track shows `LinearSwappedNeeds`, whose backward reads the wrong index
of ctx.needs_input_grad, and tests a Function under every pattern of frozen inputs with
`gradcheck_each_pattern`; tests/test_frozen_inputs.py holds both to gradcheck.
"""

import itertools
import re

import torch
from torch.autograd import Function, gradcheck


class LinearSwappedNeeds(Function):
    """y = x Wᵀ + b, with the gradients of x and weight under each other's index: a mistake."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        grad_x = grad_out @ weight if ctx.needs_input_grad[1] else None  # should be [0]
        grad_weight = grad_out.T @ x if ctx.needs_input_grad[0] else None  # should be [1]
        grad_bias = grad_out.sum(0) if ctx.needs_input_grad[2] else None
        return grad_x, grad_weight, grad_bias


def requires_grad_patterns(count: int) -> list[tuple[bool, ...]]:
    """Every way `count` inputs can require grad, at least one of them: all first, 2**count - 1."""
    patterns = itertools.product((True, False), repeat=count)
    return [pattern for pattern in patterns if any(pattern)]


def gradcheck_each_pattern(
    fn: type[Function], inputs: tuple[torch.Tensor, ...], names: tuple[str, ...]
) -> list[tuple[str, str]]:
    """gradcheck of fn under every pattern of requires_grad: (which inputs require grad, outcome).

    The outcome is "passes", or "fails: " and the first line of gradcheck's message, with
    "input k" (gradcheck counts only the inputs that require grad) replaced by its name.
    """
    outcomes = []
    for pattern in requires_grad_patterns(len(inputs)):
        args = tuple(
            x.detach().clone().requires_grad_(wanted)
            for x, wanted in zip(inputs, pattern, strict=True)
        )
        requiring = [name for name, wanted in zip(names, pattern, strict=True) if wanted]
        try:
            gradcheck(fn.apply, args)
            outcome = "passes"
        except Exception as error:  # GradcheckError, or backward's own error
            first_line = str(error).splitlines()[0].rstrip(",")
            named = re.sub(r"input (\d+)", lambda m, names=requiring: names[int(m[1])], first_line)
            outcome = f"fails: {named}"
        outcomes.append((", ".join(requiring), outcome))
    return outcomes
