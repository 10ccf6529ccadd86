"""Lesson 2's researcher Functions and helpers against gradcheck, torch.func and autograd of z**3."""

import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck
from torch.autograd.gradcheck import GradcheckError

from lessons_lib.checking_research import ComplexCube, counting
from lessons_lib.functions import Cube

C128 = torch.complex128


def complex_sample(n=6, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(n, dtype=C128, generator=generator).requires_grad_(True)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_complex_cube_passes_gradcheck_on_complex_inputs_in_both_modes(fast_mode):
    """Backward and jvp both agree with finite differences under PyTorch's convention."""
    z = complex_sample()
    assert gradcheck(ComplexCube.apply, (z,), fast_mode=fast_mode, check_forward_ad=True)
    assert gradgradcheck(ComplexCube.apply, (z,), fast_mode=fast_mode)


def test_complex_cube_backward_equals_autograd_of_z_cubed_for_a_complex_grad_out():
    """grad_out * conj(3 z**2), exactly what autograd of torch's own z**3 returns."""
    z = complex_sample()
    grad_out = complex_sample(seed=1).detach()
    (ours,) = torch.autograd.grad(ComplexCube.apply(z), z, grad_out)
    (torchs,) = torch.autograd.grad(z**3, z, grad_out)
    torch.testing.assert_close(ours, torchs)


def test_complex_cube_jvp_equals_torch_func_jvp_of_z_cubed():
    """Forward mode multiplies the tangent by 3 z**2, with no conjugate."""
    z, tangent = complex_sample().detach(), complex_sample(seed=2).detach()
    _, ours = torch.func.jvp(ComplexCube.apply, (z,), (tangent,))
    _, torchs = torch.func.jvp(lambda t: t**3, (z,), (tangent,))
    torch.testing.assert_close(ours, torchs)


def test_complex_cube_on_real_inputs_is_lesson_ones_cube():
    """On real tensors .conj() is a no-op: same values and gradients as Cube."""
    x = torch.linspace(-2, 2, 7, dtype=torch.float64, requires_grad=True)
    (ours,) = torch.autograd.grad(ComplexCube.apply(x).sum(), x)
    (cube,) = torch.autograd.grad(Cube.apply(x).sum(), x)
    assert torch.equal(ours, cube)


def test_the_real_only_cube_fails_gradcheck_on_complex_inputs():
    """The mistake the lesson shows: no conjugate, caught only with complex inputs."""
    with pytest.raises(GradcheckError, match="imaginary part of complex outputs"):
        gradcheck(Cube.apply, (complex_sample(),))


def test_counting_tallies_calls_and_backward_passes():
    """One call, two backward passes through its output: forward 1, backward 2."""
    counted, calls = counting(Cube.apply)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = counted(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert calls == {"forward": 1, "backward": 2}
    assert torch.equal(x.grad, 2 * 3 * x.detach() ** 2)  # the hook leaves gradients alone


def test_counting_an_output_without_grad_registers_nothing():
    """No graph, no hook: counting a call on plain tensors neither fails nor counts backward."""
    counted, calls = counting(Cube.apply)
    counted(torch.tensor([1.0]))
    assert calls == {"forward": 1}


@pytest.mark.parametrize("n", [3, 30])
def test_gradcheck_call_counts_are_the_ones_the_notebook_explains(n):
    """Slow mode: 2n + 2 forward calls and backward passes; fast mode: 4 of each, any n."""
    for fast_mode, expected in ((False, 2 * n + 2), (True, 4)):
        counted, calls = counting(Cube.apply)
        x = torch.randn(n, dtype=torch.float64, requires_grad=True)
        gradcheck(counted, (x,), fast_mode=fast_mode)
        assert calls == {"forward": expected, "backward": expected}
