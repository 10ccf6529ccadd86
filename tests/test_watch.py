"""watching(): counts a Function's apply, direct forward and backward calls, then restores it."""

import inspect

import pytest
import torch
from torch.autograd import Function

from lessons_lib import Cube, CubeWithSetupContext
from lessons_lib.watch import patched, watching
from tests.learner_functions import cube, function, save_and, saved


def fresh_cube():
    return function("Cube", save_and(cube), lambda ctx, g: g * 3 * saved(ctx) ** 2)


def test_apply_and_backward_are_counted_and_results_unchanged():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with watching(Cube) as usage:
        Cube.apply(x).sum().backward()
    assert (usage.applies, usage.forward_direct, usage.backward) == (["recorded"], 0, 1)
    assert x.grad.tolist() == [3.0, 12.0]


def test_why_an_apply_was_not_recorded_is_kept():
    x = torch.tensor([1.0])
    with watching(Cube) as usage:
        Cube.apply(x)
        with torch.no_grad():
            Cube.apply(x.requires_grad_())
    assert usage.applies == ["no requires_grad", "recording off"] and not usage.recorded


def test_forward_called_by_hand_is_told_apart_from_forward_inside_apply():
    fn = fresh_cube()
    x = torch.tensor([2.0], requires_grad=True)
    with watching(fn) as usage:
        fn.apply(x)
        with pytest.raises(AttributeError):
            fn.forward(None, x)  # the learner's forward needs a real ctx
    assert usage.forward_direct == 1 and usage.applies == ["recorded"]


def test_the_class_is_restored_exactly_even_when_the_block_raises():
    fn = fresh_cube()
    before = dict(vars(fn))
    with pytest.raises(ValueError), watching(fn):
        raise ValueError
    assert dict(vars(fn)) == before
    # inherited again, not a leftover (getattr_static: apply is a C method from torch 2.14.1 on)
    assert inspect.getattr_static(fn, "apply") is inspect.getattr_static(Function, "apply")


def test_a_setup_context_function_still_runs_under_watch():
    x = torch.tensor([2.0], requires_grad=True)
    with watching(CubeWithSetupContext) as usage:
        (grad,) = torch.autograd.grad(CubeWithSetupContext.apply(x).sum(), x)
    assert grad.tolist() == [12.0] and usage.backward == 1
    assert "apply" not in vars(CubeWithSetupContext)


def test_a_function_that_wrote_vjp_instead_of_backward_is_counted():
    fn = function("Double", lambda ctx, x: x * 2, None)
    del fn.backward
    fn.vjp = staticmethod(lambda ctx, g: g * 2)
    x = torch.tensor([1.0], requires_grad=True)
    with watching(fn) as usage:
        fn.apply(x).sum().backward()
    assert usage.backward == 1 and x.grad.tolist() == [2.0]
    assert "backward" not in vars(fn)


def test_patched_restores_own_attributes_and_removes_borrowed_ones_even_after_an_error():
    class Base:
        inherited = "base"

    class Child(Base):
        own = "child"

    with pytest.raises(RuntimeError), patched(Child, own="patched", inherited="patched"):
        assert (Child.own, Child.inherited) == ("patched", "patched")
        raise RuntimeError("the learner's code raised")
    assert Child.__dict__["own"] == "child"
    assert "inherited" not in Child.__dict__ and Child.inherited == "base"
