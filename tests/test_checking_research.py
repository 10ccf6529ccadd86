"""Lesson 2's Functions and helpers against gradcheck, torch.func and autograd of z**3, and the
behaviours of gradcheck and opcheck that lesson 2's developer and researcher tracks teach."""

import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck
from torch.autograd.gradcheck import GradcheckError

from lessons_lib.checking_research import (
    Center,
    CenterWithVmap,
    CenterWrongVmap,
    ComplexCube,
    CubeByFiniteDifference,
    counting,
    cube_wrong_at,
    fast_mode_vectors,
    one_wrong_entry,
    wrong_entry_case,
)
from lessons_lib.functions import Clamp01, Cube
from lessons_lib.research import HardGate, Linear

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


@pytest.mark.parametrize(("n", "m"), [(10, 3), (3, 12)])
def test_slow_mode_makes_2n_plus_2_forward_calls_and_2m_plus_2_backward_passes(n, m):
    """The analytical Jacobian is built twice (reentrancy): 2M + 2 backward, not M + 2."""
    counted, calls = counting(lambda t: Cube.apply(t.repeat(4))[:m])
    gradcheck(counted, (torch.randn(n, dtype=torch.float64, requires_grad=True),))
    assert calls == {"forward": 2 * n + 2, "backward": 2 * m + 2}


def test_the_float32_judges_error_passes_a_backward_just_outside_the_tolerance():
    """At x = 0.1 float32's truncation h² shifts the window: +5e-5 passes, -5e-5 fails."""
    x32 = torch.tensor([0.1], requires_grad=True)
    x64 = x32.detach().double().requires_grad_(True)
    tolerance = 1e-5 + 1e-3 * 3 * x64.item() ** 2
    with pytest.warns(UserWarning, match="double precision"):
        for error, passes in ((5e-5, True), (-5e-5, False)):
            assert abs(error) > tolerance  # wrong by more than gradcheck allows
            fn = cube_wrong_at(0, error).apply
            assert gradcheck(fn, (x32,), eps=float32_step(), raise_exception=False) is passes
            assert not gradcheck(fn, (x64,), raise_exception=False)


def float32_step():
    return torch.finfo(torch.float32).eps ** (1 / 3)


class CubeNoneUnchecked(Cube):
    """Materializing off, yet backward multiplies grad_out without a None check."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return Cube.forward(ctx, x)


def test_check_undefined_grad_catches_a_backward_that_forgets_none():
    x = torch.tensor([0.5, 2.0, -1.5], dtype=torch.float64, requires_grad=True)
    with pytest.raises(TypeError, match="NoneType"):
        gradcheck(CubeNoneUnchecked.apply, (x,))
    assert gradcheck(CubeNoneUnchecked.apply, (x,), check_undefined_grad=False)
    with pytest.raises(TypeError, match="NoneType"):
        HardGate.apply(torch.ones(3), CubeNoneUnchecked.apply(x)).sum().backward()


# --- fast mode's tolerance (lesson 2, both tracks) ------------------------------------


def test_cube_wrong_at_differs_from_cube_in_one_jacobian_entry_only():
    """For an uneven grad_out, only the chosen element's gradient moves, by error * grad_out."""
    x = torch.linspace(0.5, 1.5, 5, dtype=torch.float64, requires_grad=True)
    grad_out = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0], dtype=torch.float64)
    (wrong,) = torch.autograd.grad(cube_wrong_at(2, 0.25).apply(x), x, grad_out)
    (right,) = torch.autograd.grad(Cube.apply(x), x, grad_out)
    expected = right.clone()
    expected[2] += 0.25 * grad_out[2]
    torch.testing.assert_close(wrong, expected)


def test_wrong_entry_case_is_seeded_and_inside_the_stated_range():
    (x, index), (again, same) = wrong_entry_case(50), wrong_entry_case(50)
    assert torch.equal(x, again) and index == same and 0 <= index < 50
    assert x.requires_grad and x.dtype == torch.float64
    assert bool(((x >= 0.5) & (x <= 1.5)).all())


def test_slow_mode_fails_an_error_of_a_hundredth_in_one_entry_and_fast_mode_passes_it():
    for size in (10, 100):
        assert one_wrong_entry(size, 0.01) == (False, True)


def test_fast_mode_passes_an_error_it_fails_on_a_smaller_input():
    """The notebook's table: an error of 1 in one entry fails fast mode at n = 10, passes at 1000.

    The old text said fast mode catches a mistake unless v^T (J~ - J) u vanishes; here it does
    not vanish (u and v are positive), and fast mode passes anyway.
    """
    assert one_wrong_entry(10, 1.0) == (False, False)
    assert one_wrong_entry(1000, 1.0) == (False, True)


def test_fast_mode_vectors_are_the_unit_vectors_gradchecks_generator_draws():
    """torch draws u, then v, with torch.rand from a fresh default-seeded generator."""
    x, _ = wrong_entry_case(40)
    u, v = fast_mode_vectors(x)
    generator = torch.Generator()
    drawn = [torch.rand(40, generator=generator).double() for _ in range(2)]
    torch.testing.assert_close(u, drawn[0] / drawn[0].norm(), rtol=0, atol=1e-8)
    torch.testing.assert_close(v, drawn[1] / drawn[1].norm(), rtol=0, atol=0)


@pytest.mark.parametrize("error", [0.1, 1.0])
def test_the_tolerance_rule_predicts_fast_modes_verdict_at_every_position(error):
    """|error * v_j * u_j| <= atol * sum(u) * sum(v) + rtol * |v^T J u|, torch's _adjusted_atol."""
    x, _ = wrong_entry_case(30)
    u, v = fast_mode_vectors(x)
    jacobian = 3 * x.detach() ** 2
    tolerance = 1e-5 * u.sum() * v.sum() + 1e-3 * (v * jacobian * u).sum().abs()
    predicted = ((error * v * u).abs() <= tolerance).tolist()
    actual = [
        gradcheck(cube_wrong_at(j, error).apply, (x,), fast_mode=True, raise_exception=False)
        for j in range(30)
    ]
    assert predicted == actual
    assert any(actual) and not all(actual)  # both verdicts occur: the rule is really tested


# --- other gradcheck and opcheck behaviours lesson 2's developer track teaches ---------


def test_check_batched_grad_passes_clamp01_which_torch_func_jacrev_refuses():
    """gradcheck batches backward with the legacy vmap; jacrev needs setup_context."""
    x = torch.tensor([-1.5, 0.25, 0.75, 1.5], dtype=torch.float64, requires_grad=True)
    assert gradcheck(Clamp01.apply, (x,), check_batched_grad=True)
    with pytest.raises(RuntimeError, match="setup_context"):
        torch.func.jacrev(Clamp01.apply)(x.detach())


def test_eps_is_absolute_so_a_correct_linear_function_fails_at_1e9_and_passes_rescaled():
    weight = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.float64)
    bias = torch.zeros(2, dtype=torch.float64)
    point = torch.tensor([[1.0, -2.0]], dtype=torch.float64)

    def layer(t):
        return Linear.apply(t, weight, bias)

    assert gradcheck(layer, (point.clone().requires_grad_(True),))
    big = (1e9 * point).requires_grad_(True)
    assert not gradcheck(layer, (big,), raise_exception=False)
    assert gradcheck(lambda t: layer(1e9 * t), (point.clone().requires_grad_(True),))


def test_opcheck_passes_autograd_registration_for_an_operator_with_no_backward():
    """Only test_aot_dispatch_dynamic, which runs a backward, catches a missing register_autograd."""

    @torch.library.custom_op("lessons_tests::clamp01_no_backward", mutates_args=())
    def no_backward(x: torch.Tensor) -> torch.Tensor:
        return x.clamp(0, 1)

    @no_backward.register_fake
    def _(x):
        return torch.empty_like(x)

    x = torch.tensor([-0.5, 0.25, 1.5], dtype=torch.float64, requires_grad=True)
    results = torch.library.opcheck(no_backward, (x,), raise_exception=False)
    failed = [test for test, result in results.items() if result != "SUCCESS"]
    assert "test_autograd_registration" in results
    assert failed == ["test_aot_dispatch_dynamic"]
    assert "no autograd formula was registered" in str(results["test_aot_dispatch_dynamic"])


def test_a_finite_difference_backward_passes_gradcheck_yet_is_no_formula():
    x = torch.linspace(-2, 2, 9, dtype=torch.float64, requires_grad=True)
    assert gradcheck(CubeByFiniteDifference.apply, (x,))
    (got,) = torch.autograd.grad(CubeByFiniteDifference.apply(x).sum(), x)
    error = ((got - 3 * x.detach() ** 2).abs().max() / (3 * x.detach() ** 2).max()).item()
    assert 1e-12 < error < 1e-6


# --- vmap rules ----------------------------------------------------------------------

CENTERS = [Center, CenterWithVmap, CenterWrongVmap]


def center_case(seed=0):
    """A float64 point of 4 entries (requires grad) and a batch of 3 such points, seeded."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(4, dtype=torch.float64, generator=generator).requires_grad_(True)
    return x, torch.randn(3, 4, dtype=torch.float64, generator=generator)


def looped(fn, batch):
    return torch.stack([fn.apply(sample) for sample in batch])


def reference(t):
    return t - t.mean(dim=0, keepdim=True)


@pytest.mark.parametrize("fn", CENTERS)
def test_every_center_passes_gradcheck_with_every_batched_check(fn):
    """gradcheck never runs a vmap rule: the wrong one and none at all both pass."""
    x, _ = center_case()
    assert gradcheck(fn.apply, (x,), check_forward_ad=True, check_batched_forward_grad=True)
    assert gradcheck(fn.apply, (x,), check_batched_grad=True)


@pytest.mark.parametrize("fn", CENTERS)
def test_every_center_matches_the_reference_and_jacrev_needs_no_vmap_rule(fn):
    """Values, and jacrev, equal the plain torch reference whatever the vmap rule."""
    x, batch = center_case()
    torch.testing.assert_close(fn.apply(batch[0]), reference(batch[0]))
    expected = torch.autograd.functional.jacobian(reference, x.detach())
    torch.testing.assert_close(torch.func.jacrev(fn.apply)(x.detach()), expected)


def test_center_without_a_vmap_rule_is_refused_by_vmap_and_jacfwd():
    x, batch = center_case()
    for run in (
        lambda: torch.func.vmap(Center.apply)(batch),
        lambda: torch.func.jacfwd(Center.apply)(x),
    ):
        with pytest.raises(RuntimeError, match="does not have vmap support"):
            run()


def test_the_right_vmap_rule_matches_a_loop_at_either_batch_dimension():
    _, batch = center_case()
    loop = looped(CenterWithVmap, batch)
    torch.testing.assert_close(torch.func.vmap(CenterWithVmap.apply)(batch), loop)
    torch.testing.assert_close(torch.func.vmap(CenterWithVmap.apply, in_dims=1)(batch.T), loop)
    x, _ = center_case()
    expected = torch.autograd.functional.jacobian(reference, x.detach())
    torch.testing.assert_close(torch.func.jacfwd(CenterWithVmap.apply)(x.detach()), expected)


def test_the_right_vmap_rule_keeps_per_sample_gradients_and_backward_through_vmap_right():
    _, batch = center_case()

    def loss(t):
        return (CenterWithVmap.apply(t) ** 2).sum()

    per_sample = torch.func.vmap(torch.func.grad(loss))(batch)
    torch.testing.assert_close(per_sample, torch.stack([2 * reference(b) for b in batch]))
    batched = batch.clone().requires_grad_(True)
    (torch.func.vmap(CenterWithVmap.apply)(batched) ** 2).sum().backward()
    torch.testing.assert_close(batched.grad, 2 * reference(batch.T).T)


def test_the_wrong_vmap_rule_differs_from_a_loop_and_centres_over_the_samples():
    """If this starts passing, the notebook's wrong rule no longer shows the mistake."""
    _, batch = center_case()
    vmapped = torch.func.vmap(CenterWrongVmap.apply)(batch)
    assert not torch.allclose(vmapped, looped(CenterWrongVmap, batch))
    torch.testing.assert_close(vmapped, batch - batch.mean(dim=0, keepdim=True))


def test_the_wrong_vmap_rule_gives_wrong_per_sample_gradients():
    _, batch = center_case()

    def loss(t):
        return (CenterWrongVmap.apply(t) ** 2).sum()

    per_sample = torch.func.vmap(torch.func.grad(loss))(batch)
    assert not torch.allclose(per_sample, torch.stack([torch.func.grad(loss)(b) for b in batch]))


def test_the_wrong_vmap_rule_is_right_by_accident_when_the_batch_is_not_at_dim_0():
    """A loop comparison at in_dims=1 alone would pass it: test vmap's default, dim 0."""
    _, batch = center_case()
    vmapped = torch.func.vmap(CenterWrongVmap.apply, in_dims=1)(batch.T)
    torch.testing.assert_close(vmapped, looped(CenterWrongVmap, batch))
