"""probe: runs broken learner Functions without crashing and without side effects."""

import math

import pytest
import torch

from lessons_lib import Clamp, Cube, RoundSTE
from lessons_lib.doctor.samples import non_contiguous
from lessons_lib.running.probe import (
    describe_non_function,
    engine_run,
    is_function,
    preserved_global_state,
    run_function,
    trace_non_finite,
    vjp,
)

X = torch.tensor([-1.5, 0.0, 2.0], dtype=torch.float64)


class StashesOnCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        ctx.pair = [x, 1]
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * 3 * ctx.x**2


class MutatesInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        return x * 1

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out


class InPlaceMarkedDirty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * 2


class MessesWithGlobalState(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        torch.set_default_dtype(torch.float16)
        torch.set_grad_enabled(False)
        torch.rand(3)
        return x * 1

    @staticmethod
    def backward(ctx, grad_out):
        raise ValueError("boom\nsecond line of detail")


def test_is_function_accepts_only_function_subclasses():
    assert is_function(Cube)
    with pytest.warns(DeprecationWarning):  # torch itself discourages instances
        assert not is_function(Cube())
    assert not is_function(torch.autograd.Function)
    assert not is_function(lambda x: x)
    assert not is_function(torch.nn.Linear(1, 1))


def test_run_returns_forward_and_raw_backward_for_the_upstream_gradient():
    run = run_function(Cube, (X,), upstream=lambda out, k: 2 * torch.ones_like(out))
    assert run.failure is None
    assert run.output.tolist() == [-3.375, 0.0, 8.0]
    assert run.grads[0].tolist() == [13.5, 0.0, 24.0]


def test_run_reports_none_for_non_tensor_inputs_as_backward_returned_it():
    run = run_function(Clamp, (X, 0.0, 1.0))
    assert run.grads[1:] == (None, None)


def test_run_finds_tensors_stashed_on_ctx():
    assert run_function(StashesOnCtx, (X,)).ctx_tensors == ["x", "pair"]
    assert run_function(Cube, (X,)).ctx_tensors == []


def test_run_finds_inputs_changed_in_place_unless_marked_dirty():
    assert run_function(MutatesInput, (X,)).mutated_inputs == [0]
    assert run_function(InPlaceMarkedDirty, (X,)).mutated_inputs == []


def test_run_never_changes_the_callers_inputs():
    x = X.clone()
    run_function(MutatesInput, (x,))
    assert torch.equal(x, X) and not x.requires_grad


def test_errors_are_captured_as_one_plain_line_and_global_state_restored():
    torch.manual_seed(0)
    expected_next = torch.rand(1)
    torch.manual_seed(0)
    run = run_function(MessesWithGlobalState, (X,))
    assert str(run.failure) == "backward raised ValueError: boom"
    assert torch.get_default_dtype() == torch.float32
    assert torch.is_grad_enabled()
    assert torch.equal(torch.rand(1), expected_next)


def test_forward_errors_and_non_functions_are_captured():
    assert run_function(lambda x: x, (X,)).failure.stage == "forward"
    assert run_function(Cube, ("not a tensor",)).failure.stage == "forward"


def test_vjp_is_autograd_of_the_reference():
    run = vjp(lambda t: t**3, (X,), upstream=lambda out, k: 2 * torch.ones_like(out))
    assert run.grads[0].tolist() == [13.5, 0.0, 24.0]
    assert vjp(torch.round, (X,)).grads[0].tolist() == [0.0, 0.0, 0.0]
    assert vjp(lambda t, lo: t.clamp(lo, 1), (X, 0.0)).grads[1] is None


def test_vjp_of_a_constant_reference_is_zero_and_a_broken_one_is_captured():
    assert vjp(lambda t: torch.ones_like(t), (X,)).grads[0].tolist() == [0.0, 0.0, 0.0]
    assert vjp(lambda t: 1 / "x", (X,)).failure.stage == "reference"


def test_preserved_global_state_restores_even_after_an_exception():
    try:
        with preserved_global_state():
            torch.set_grad_enabled(False)
            raise RuntimeError
    except RuntimeError:
        pass
    assert torch.is_grad_enabled()


def test_round_ste_backward_is_identity_through_the_probe():
    run = run_function(RoundSTE, (X,), upstream=lambda out, k: torch.full_like(out, 3.0))
    assert run.grads[0].tolist() == [3.0, 3.0, 3.0]


def test_describe_non_function_names_what_was_passed_and_the_right_call():
    usage = "explore({})"
    assert describe_non_function(Cube.apply, usage).endswith("explore(Cube), not .apply.")
    with pytest.warns(DeprecationWarning):
        instance = Cube()
    assert "pass the class Cube itself: explore(Cube)" in describe_non_function(instance, usage)
    assert "nn.Module" in describe_non_function(torch.nn.Linear(1, 1), usage)
    assert "plain Python function" in describe_non_function(torch.round, usage)
    assert describe_non_function(3, usage).startswith("You passed an int")


def test_a_caller_under_no_grad_still_gets_the_graph_and_its_gradients():
    x = torch.tensor([2.0])
    with torch.no_grad():
        assert vjp(torch.sin, (x,)).grads[0].item() == pytest.approx(math.cos(2.0))
        assert engine_run(Cube, (x,)).grads[0].item() == 12.0
        assert run_function(Cube, (x,)).grads[0].item() == 12.0
        assert not torch.is_grad_enabled()  # and the caller's mode is left as it was


class SquaresSavedX(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 3 * x.pow_(2) * grad_out


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


class ViewsGradOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return (grad_out.view(-1) * 3 * x.reshape(-1) ** 2).view(x.shape)


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
