"""non_finite: backward re-run under a watch names the operation that made NaN or inf."""

import math

import pytest
import torch

from lessons_lib.doctor.non_finite import trace_non_finite

X = torch.tensor([-1.5, 0.0, 2.0], dtype=torch.float64)


class CubeFromOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x**3
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        (y,) = ctx.saved_tensors
        return 3 * y ** (2 / 3) * grad_out


class NaiveSigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * torch.exp(-x) / (1 + torch.exp(-x)) ** 2


def test_trace_non_finite_finds_the_operation_that_made_nan_at_that_element():
    (step,) = trace_non_finite(CubeFromOutput, (X,), lambda out, k: torch.ones_like(out), 0, (0,))
    assert step.op == "pow" and step.args[0] == -3.375 and step.args[1] == pytest.approx(2 / 3)
    assert math.isnan(step.result)
    assert (
        trace_non_finite(CubeFromOutput, (X,), lambda out, k: torch.ones_like(out), 0, (2,)) == []
    )


def test_trace_non_finite_follows_an_overflow_to_the_nan_it_turned_into():
    x = torch.tensor([-1000.0, 1.0], dtype=torch.float64)
    overflow, nan = trace_non_finite(
        NaiveSigmoid, (x,), lambda out, k: torch.ones_like(out), 0, (0,)
    )
    assert (overflow.op, overflow.args, overflow.result) == ("exp", (1000.0,), math.inf)
    assert nan.op == "div" and nan.args == (math.inf, math.inf) and math.isnan(nan.result)
    assert torch.is_grad_enabled()
