"""calls: runs broken learner Functions without crashing and without side effects."""

import linecache
import math

import pytest
import torch

from lessons_lib import Clamp, Cube, RoundSTE
from lessons_lib.running import Failure, engine_run, run_function, vjp
from lessons_lib.watch import watching

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


def test_round_ste_backward_is_identity_through_the_probe():
    run = run_function(RoundSTE, (X,), upstream=lambda out, k: torch.full_like(out, 3.0))
    assert run.grads[0].tolist() == [3.0, 3.0, 3.0]


def test_a_caller_under_no_grad_still_gets_the_graph_and_its_gradients():
    x = torch.tensor([2.0])
    with torch.no_grad():
        assert vjp(torch.sin, (x,)).grads[0].item() == pytest.approx(math.cos(2.0))
        assert engine_run(Cube, (x,)).grads[0].item() == 12.0
        assert run_function(Cube, (x,)).grads[0].item() == 12.0
        assert not torch.is_grad_enabled()  # and the caller's mode is left as it was


def test_the_line_named_for_an_error_is_the_learners_not_the_courses_wrapper():
    """An error that passed through the course's own code (watch.py's counting apply) names
    the last line of the learner's code it came through."""
    source = "def cube_grad(x):\n    return torch.func.grad(lambda t: Cube.apply(t).sum())(x)\n"
    linecache.cache["<cell-func-grad>"] = (len(source), None, source.splitlines(True), "")
    namespace = {"torch": torch, "Cube": Cube}
    exec(compile(source, "<cell-func-grad>", "exec"), namespace)
    with watching(Cube), pytest.raises(RuntimeError) as raised:
        namespace["cube_grad"](torch.tensor([1.0, 2.0]))
    failure = Failure.of("cube_grad", raised.value)
    assert failure.line == "return torch.func.grad(lambda t: Cube.apply(t).sum())(x)"


def test_run_records_which_inputs_forward_saved_itself():
    class SavesX(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, x * 2)
            return x * 1

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out

    run = run_function(SavesX, (X,))
    assert (run.saved, run.saved_inputs) == (2, [0])
    assert (run_function(Cube, (X,)).saved_inputs, run_function(RoundSTE, (X,)).saved) == ([0], 0)
