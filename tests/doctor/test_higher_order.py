"""higher_order: second derivatives and forward mode of a Function or of its reference."""

import pytest
import torch
from torch.testing import assert_close

from lessons_lib import Clamp, Cube, CubeWithSetupContext
from lessons_lib.doctor.higher_order import (
    defines_jvp,
    forward_mode,
    is_once_differentiable,
    jvp_of,
    second_derivatives,
)
from lessons_lib.doctor.samples import upstream_gradient
from lessons_lib.research import CubeDetachedBackward, CubeOnceDifferentiable
from tests.learner_functions import cube, function, save_and, saved

X = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64)
V = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64)  # direction (or tangent)
G = upstream_gradient(X**3, 0)  # the grad_out second_derivatives sends for output 0


def cube_backward(ctx, grad_out):
    return grad_out * 3 * saved(ctx) ** 2


def messes_up_global_state():
    torch.set_default_dtype(torch.float16)
    torch.set_grad_enabled(False)


def raising_jvp(ctx, x_tangent):
    messes_up_global_state()
    raise ValueError("no tangent\nsecond line of detail")


def raising_backward(ctx, grad_out):
    messes_up_global_state()
    raise ValueError("boom")


BadJvp = function("BadJvp", save_and(cube), cube_backward, jvp=raising_jvp)
BadBackward = function("BadBackward", save_and(cube), raising_backward)


@pytest.mark.parametrize("compute", [cube, Cube.apply], ids=["reference", "Cube"])
def test_second_derivatives_of_cube_are_6x_grad_out_v_and_3x2_v(compute):
    """For L = <v, grad_out * 3x^2>: dL/dx = 6 x grad_out v and dL/dgrad_out = 3x^2 v."""
    found = second_derivatives(compute, (X,), upstream_gradient, [V])
    assert found.failure is None
    assert_close(found.inputs[0], 6 * X * G * V)
    assert list(found.outputs) == [0]
    assert_close(found.outputs[0], 3 * X**2 * V)


def test_a_backward_that_detaches_x_has_zero_d_dx_but_the_right_d_dgrad_out():
    found = second_derivatives(CubeDetachedBackward.apply, (X,), upstream_gradient, [V])
    assert found.failure is None
    assert found.inputs[0].tolist() == [0.0, 0.0, 0.0]
    assert_close(found.outputs[0], 3 * X**2 * V)


def test_second_derivatives_give_none_for_non_tensor_inputs():
    """Clamp's backward multiplies grad_out by a mask: d/dx is 0, d/dgrad_out is v inside."""
    found = second_derivatives(Clamp.apply, (X, -1.0, 1.0), upstream_gradient, [V, None, None])
    assert found.failure is None
    assert found.inputs[1:] == (None, None)
    assert found.inputs[0].tolist() == [0.0, 0.0, 0.0]
    assert found.outputs[0].tolist() == [0.0, -0.7, 0.0]


def test_is_once_differentiable_only_for_a_backward_decorated_with_it():
    assert is_once_differentiable(CubeOnceDifferentiable)
    assert not is_once_differentiable(Cube)
    assert not is_once_differentiable(CubeDetachedBackward)
    assert not is_once_differentiable(CubeWithSetupContext)


def test_a_raising_backward_is_a_double_backward_failure_and_grad_mode_is_restored():
    with torch.no_grad():  # second_derivatives enables grad inside; it must not leak out
        found = second_derivatives(BadBackward.apply, (X,), upstream_gradient, [V])
        assert not torch.is_grad_enabled()
    assert str(found.failure) == "double backward raised ValueError: boom"
    assert found.inputs == () and found.outputs == {}
    assert torch.get_default_dtype() == torch.float32


def test_forward_mode_of_a_reference_is_its_jacobian_times_the_tangent():
    found = forward_mode(cube, (X,), [V])
    assert found.failure is None
    assert_close(found.outputs[0], 3 * X**2 * V)


def test_forward_mode_uses_grad_rule_when_given_so_a_surrogate_is_judged_by_its_rule():
    assert forward_mode(torch.round, (X,), [V]).outputs[0].tolist() == [0.0, 0.0, 0.0]
    straight_through = forward_mode(torch.round, (X,), [V], grad_rule=lambda x, g: g)
    assert_close(straight_through.outputs[0], V)


def test_forward_mode_accepts_a_grad_rule_returning_only_the_float_inputs_gradients():
    def clamp(x, lo, hi):
        return x.clamp(lo, hi)

    def inside(x, lo, hi, g):  # one gradient, for x alone: lo and hi are numbers
        return g * ((x >= lo) & (x <= hi))

    found = forward_mode(clamp, (X, -1.0, 1.0), [V, None, None], grad_rule=inside)
    assert found.failure is None
    assert found.outputs[0].tolist() == [0.0, -0.7, 0.0]


def test_forward_mode_reports_a_broken_reference_as_a_reference_failure():
    found = forward_mode(lambda x: x / "not a number", (X,), [V])
    assert found.failure.stage == "reference"
    assert found.failure.kind == "TypeError"


def test_jvp_of_a_function_with_jvp_pushes_the_tangent_forward():
    found = jvp_of(CubeWithSetupContext, (X,), [V])
    assert found.failure is None
    assert_close(found.outputs[0], 3 * X**2 * V)


def test_jvp_of_a_function_without_jvp_is_a_jvp_failure_not_an_exception():
    found = jvp_of(Cube, (X,), [V])
    assert found.failure.stage == "jvp"
    assert found.failure.kind == "NotImplementedError"


def test_a_raising_jvp_is_a_one_line_jvp_failure_and_global_state_is_restored():
    found = jvp_of(BadJvp, (X,), [V])
    assert str(found.failure) == "jvp raised ValueError: no tangent"
    assert torch.get_default_dtype() == torch.float32
    assert torch.is_grad_enabled()


def test_defines_jvp_only_for_a_function_with_its_own_jvp():
    assert defines_jvp(CubeWithSetupContext)
    assert defines_jvp(BadJvp)
    assert not defines_jvp(Cube)
    assert not defines_jvp(CubeOnceDifferentiable)
