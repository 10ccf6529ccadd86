"""engine: a run through autograd's engine, with what backward did to saved tensors and grad_outs."""

import pytest
import torch

from lessons_lib import Cube
from lessons_lib.doctor.samples import non_contiguous
from lessons_lib.running import engine_run
from tests.learner_functions import cube, function, save_and, saved

X = torch.tensor([-1.5, 0.0, 2.0], dtype=torch.float64)


# backward squares its saved x in place
SquaresSavedX = function("SquaresSavedX", save_and(cube), lambda ctx, g: 3 * saved(ctx).pow_(2) * g)


class ZeroesSavedOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x**3
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        x, y = ctx.saved_tensors
        y.data.zero_()  # behind the version counter
        return grad_out * 3 * x**2


def test_engine_run_finds_the_saved_tensors_backward_changed_and_what_they_were():
    run = engine_run(SquaresSavedX, (X,))
    (change,) = run.mutated_saved
    assert change.role == ("input", 0) and change.counted and change.position == 0
    assert change.before.tolist() == X.tolist() and change.after.tolist() == (X**2).tolist()
    # backward is still called raw (on a fresh forward), and the engine's gradient kept
    assert run.failure is None and run.raw[0].tolist() == (3 * X**2).tolist()
    assert run.scaled[0].tolist() == (-6 * X**2).tolist()
    assert run.grads[0].tolist() == (3 * X**2).tolist()
    assert engine_run(Cube, (X,)).mutated_saved == []


def test_a_saved_output_changed_behind_the_version_counter_is_found_and_outputs_kept_as_made():
    run = engine_run(ZeroesSavedOutput, (X,))
    (change,) = run.mutated_saved
    assert change.role == ("output", 0) and not change.counted and change.position == 1
    assert run.outputs[0].tolist() == (X**3).tolist()  # what forward returned, not the zeros


def _through_a_view(ctx, grad_out):
    x = saved(ctx)
    return (grad_out.view(-1) * 3 * x.reshape(-1) ** 2).view(x.shape)


ViewsGradOut = function("ViewsGradOut", save_and(cube), _through_a_view)


GRID = torch.arange(12, dtype=torch.float64).reshape(3, 4)


def test_non_contiguous_keeps_the_values_transposes_a_grid_and_strides_a_line():
    grid, line = non_contiguous(GRID), non_contiguous(X)
    assert torch.equal(grid, GRID) and grid.stride() == (1, 3)
    assert torch.equal(line, X) and line.stride() == (2,)
    assert non_contiguous(torch.ones(1)) is None and non_contiguous(torch.ones(())) is None
    assert non_contiguous(torch.ones(3, 1)).stride() == (2, 2)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        grid.view(-1)


def test_engine_run_calls_backward_again_with_the_relaid_grad_out_and_keeps_its_error():
    run = engine_run(ViewsGradOut, (GRID,), relayout=non_contiguous)
    assert run.failure is None and run.rearranged is None
    assert run.rearranged_failure.kind == "RuntimeError"
    assert "view size is not compatible" in run.rearranged_failure.message
    fine = engine_run(Cube, (GRID,), relayout=non_contiguous)
    assert torch.equal(fine.rearranged[0], fine.raw[0]) and fine.rearranged_failure is None
    assert engine_run(Cube, (GRID,)).rearranged is None  # only when asked


class PositiveGradOutOnly(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_out):
        if (grad_out < 0).any():
            raise ValueError("negative")
        return 2 * grad_out


def test_a_backward_raising_for_the_scaled_grad_out_is_recorded_not_swallowed():
    run = engine_run(PositiveGradOutOnly, (X,))
    assert run.failure is None and run.scaled is None
    assert str(run.scaled_failure) == "backward raised ValueError: negative"


class LazyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)  # backward now receives None for an undefined gradient
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * 3 * ctx.saved_tensors[0] ** 2


class LazyPair(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, a, b):
        return None if a is None and b is None else 2 * a + 3 * b


def test_undefined_runs_send_undefined_grad_outs_as_gradcheck_does_and_keep_the_error():
    (lazy,) = engine_run(LazyCube, (X,), undefined=True).undefined
    assert lazy.output is None and lazy.failure.kind == "TypeError" and lazy.nonzero == []
    (materialized,) = engine_run(Cube, (X,), undefined=True).undefined
    assert materialized.failure is None and materialized.nonzero == []  # zeros in, zeros out
    assert engine_run(Cube, (X,)).undefined == []  # only when asked


def test_with_several_outputs_each_grad_out_is_also_undefined_in_turn():
    every, first, second = engine_run(LazyPair, (X,), undefined=True).undefined
    assert (every.output, every.failure) == (None, None)
    assert (first.output, first.failure.kind) == (0, "TypeError")
    assert (second.output, second.failure.kind) == (1, "TypeError")
