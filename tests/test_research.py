"""The researcher track's Functions against gradcheck, torch's own ops and unrolled autograd."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.autograd import gradcheck, gradgradcheck
from torch.func import grad, jacrev, vmap
from torch.utils._python_dispatch import TorchDispatchMode  # records backward's operators

from lessons_lib.functions import Cube, SigmoidSpike
from lessons_lib.measure import saved_for_backward
from lessons_lib.research import (
    CubeDetachedBackward,
    CubeInC,
    CubeOnceDifferentiable,
    Exp,
    FixedPointTanh,
    HardGate,
    Heaviside,
    Linear,
    NumpyConvolve,
    Passthrough,
    Sort,
    StableSoftplus,
    TanhStackRecompute,
    TanhStackSaved,
    compiled_ops,
    contraction_factors,
    cube_in_c,
    fixed_point_unrolled,
    numpy_convolve,
    numpy_convolve_no_backward,
    numpy_correlate,
    solve_fixed_point,
    tanh_blocks,
    tanh_stack,
    tanh_stack_checkpointed,
    train_spiking_layer,
    vjp_error,
)

F64 = torch.float64


def sample(*shape, seed=0, requires_grad=True):
    """A seeded float64 tensor, a leaf that requires grad."""
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=F64).requires_grad_(requires_grad)


def contraction(n, norm=0.5, seed=1):
    """A random n x n float64 matrix with spectral norm `norm` < 1."""
    a = sample(n, n, seed=seed, requires_grad=False)
    return (norm * a / torch.linalg.matrix_norm(a, 2)).requires_grad_(True)


# --- the machinery -------------------------------------------------------------------


def test_linear_passes_gradcheck_and_gradgradcheck():
    inputs = (sample(3, 5), sample(4, 5, seed=1), sample(4, seed=2))
    assert gradcheck(Linear.apply, inputs)
    assert gradgradcheck(Linear.apply, inputs)


def test_linear_matches_torch_linear():
    x, w, b = sample(3, 5), sample(4, 5, seed=1), sample(4, seed=2)
    torch.testing.assert_close(Linear.apply(x, w, b), torch.nn.functional.linear(x, w, b))


def test_linear_computes_only_the_gradients_asked_for():
    x, w, b = sample(3, 5), sample(4, 5, seed=1, requires_grad=False), sample(4, seed=2)
    Linear.computed.clear()
    Linear.apply(x, w, b).sum().backward()
    assert dict(Linear.computed) == {"x": 1, "bias": 1}
    assert w.grad is None


def test_sort_values_and_indices_match_torch_sort():
    x = sample(4, 6)
    values, indices = Sort.apply(x)
    expected = torch.sort(x, dim=-1)
    torch.testing.assert_close(values, expected.values)
    assert torch.equal(indices, expected.indices)


def test_sort_marks_indices_non_differentiable_and_values_differentiable():
    values, indices = Sort.apply(sample(5))
    assert not indices.requires_grad and indices.grad_fn is None
    assert values.grad_fn is not None


def test_sort_gradient_is_the_permutation_and_passes_gradgradcheck():
    x = sample(3, 5)
    assert gradcheck(lambda t: Sort.apply(t)[0], (x,))
    assert gradgradcheck(lambda t: Sort.apply(t)[0], (x,))


@given(st.lists(st.floats(-100, 100, allow_nan=False), min_size=1, max_size=12, unique=True))
def test_sort_vjp_matches_torch_func_on_any_distinct_values(values):
    x = torch.tensor(values, dtype=F64)
    error = vjp_error(lambda t: Sort.apply(t)[0], lambda t: torch.sort(t).values, x)
    assert error < 1e-12


def test_vjp_error_notices_a_wrong_backward():
    error = vjp_error(CubeOnceDifferentiable.apply, lambda t: 2 * t**3, sample(4))
    assert error > 0.1


def test_hard_gate_matches_autograd_of_the_mask_and_gives_scores_no_gradient():
    x, scores = sample(6), sample(6, seed=1)
    y = HardGate.apply(x, scores)
    torch.testing.assert_close(y, x * (scores > 0))
    grad_out = sample(6, seed=2, requires_grad=False)
    (gx,) = torch.autograd.grad(y, x, grad_out, retain_graph=True)
    torch.testing.assert_close(gx, grad_out * (scores > 0))
    (gs,) = torch.autograd.grad(y, scores, grad_out, allow_unused=True, materialize_grads=True)
    assert torch.equal(gs, torch.zeros_like(scores))


@pytest.mark.parametrize("materialize", [True, False])
def test_a_single_output_function_gets_no_grad_out_when_the_step_after_returns_none(materialize):
    """The researcher track: zeros by default, None with set_materialize_grads(False)."""
    received = []

    class Reporting(Cube):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return Cube.forward(ctx, x)

        @staticmethod
        def backward(ctx, grad_out):
            received.append(grad_out)
            return None if grad_out is None else Cube.backward(ctx, grad_out)

    s, x = sample(3), sample(3, seed=1)
    HardGate.apply(x, Reporting.apply(s)).sum().backward()
    (grad_out,) = received
    if materialize:
        assert torch.equal(grad_out, torch.zeros(3, dtype=F64))
        assert torch.equal(s.grad, torch.zeros(3, dtype=F64))
    else:
        assert grad_out is None and s.grad is None


def test_detached_backward_is_right_once_and_silently_wrong_twice():
    x = torch.tensor([2.0], dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad((CubeDetachedBackward.apply(x) ** 2).sum(), x, create_graph=True)
    assert g.item() == pytest.approx(192.0)  # d(x^6)/dx = 6x^5
    (gg,) = torch.autograd.grad(g, x)
    assert gg.item() == pytest.approx(288.0)  # not 30x^4 = 480: wrong, and no error


def test_once_differentiable_refuses_double_backward_with_an_error():
    x = torch.tensor([2.0], dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad((CubeOnceDifferentiable.apply(x) ** 2).sum(), x, create_graph=True)
    assert g.item() == pytest.approx(192.0)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.backward()


def test_once_differentiable_is_silently_zero_when_grad_out_carries_no_graph():
    """d/dx of (y.sum() + x^2) with y = x^3 is 3x^2 + 2x; its derivative 6x + 2 = 14 at x = 2."""
    x = torch.tensor([2.0], dtype=F64, requires_grad=True)
    loss = CubeOnceDifferentiable.apply(x).sum() + (x**2).sum()
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    assert g.item() == pytest.approx(16.0)
    (gg,) = torch.autograd.grad(g, x)  # no error...
    assert gg.item() == pytest.approx(2.0)  # ...and the Cube's share, 6x = 12, is missing


# --- reason 1: foreign compute -----------------------------------------------------------


def test_numpy_convolve_passes_gradcheck_in_both_inputs():
    assert gradcheck(NumpyConvolve.apply, (sample(7), sample(3, seed=1)))


@given(st.integers(1, 9), st.integers(1, 9))
def test_numpy_convolve_matches_torch_conv1d(n, m):
    x, k = sample(n, requires_grad=False), sample(m, seed=1, requires_grad=False)
    # conv1d correlates, so flip the kernel; pad so every overlap is kept ("full").
    expected = torch.nn.functional.conv1d(x.view(1, 1, -1), k.flip(0).view(1, 1, -1), padding=m - 1)
    torch.testing.assert_close(NumpyConvolve.apply(x, k), expected.view(-1))


@given(st.integers(1, 9), st.integers(1, 9))
def test_numpy_convolve_custom_op_matches_the_function_forward_and_backward(n, m):
    x, k = sample(n), sample(m, seed=1)
    grad_out = sample(n + m - 1, seed=2, requires_grad=False)
    ours, theirs = numpy_convolve(x, k), NumpyConvolve.apply(x, k)
    torch.testing.assert_close(ours, theirs)
    grads = torch.autograd.grad(ours, (x, k), grad_out)
    expected = torch.autograd.grad(theirs, (x, k), grad_out)
    for a, b in zip(grads, expected, strict=True):
        torch.testing.assert_close(a, b)


def test_numpy_convolve_custom_op_passes_gradcheck_and_opcheck():
    x, k = sample(7), sample(3, seed=1)
    assert gradcheck(numpy_convolve, (x, k))
    results = torch.library.opcheck(numpy_convolve, (x, k))
    assert set(results.values()) == {"SUCCESS"}, results
    assert set(torch.library.opcheck(numpy_correlate, (x.detach(), k.detach())).values()) == {
        "SUCCESS"
    }


def test_opcheck_autograd_registration_passes_an_operator_with_no_backward():
    """The researcher track: only test_aot_dispatch_dynamic notices the missing backward."""
    x, k = sample(5), sample(2, seed=1)
    results = torch.library.opcheck(numpy_convolve_no_backward, (x, k), raise_exception=False)
    assert results["test_autograd_registration"] == "SUCCESS"
    assert results["test_schema"] == results["test_faketensor"] == "SUCCESS"
    assert "no autograd formula" in str(results["test_aot_dispatch_dynamic"])
    with pytest.raises(RuntimeError, match="no autograd formula was registered"):
        numpy_convolve_no_backward(x, k).sum().backward()


def test_numpy_convolve_custom_op_refuses_double_backward_with_an_error():
    x, k = sample(5), sample(2, seed=1)
    (g,) = torch.autograd.grad((numpy_convolve(x, k) ** 2).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="numpy_correlate"):
        g.sum().backward()


def test_numpy_convolve_custom_op_skips_a_frozen_kernel():
    x, k = sample(6), sample(3, seed=1, requires_grad=False)
    numpy_convolve(x, k).sum().backward()
    assert x.grad.shape == x.shape and k.grad is None


def test_compiled_graphs_hold_the_function_traced_numpy_translated_and_the_op_opaque():
    """aot_eager graphs: Cube's own ops; NumPy turned into torch ops; the custom op as one node."""
    x, k = sample(5), sample(2, seed=1)
    cube = compiled_ops(Cube.apply, x)
    assert cube["forward"] == ["aten.pow"] and "aten.mul" in cube["backward"]
    function = compiled_ops(NumpyConvolve.apply, x, k)
    assert "aten.convolution" in function["forward"] and "aten.convolution" in function["backward"]
    custom = compiled_ops(numpy_convolve, x, k)
    assert custom == {
        "forward": ["lessons.numpy_convolve"],
        "backward": ["lessons.numpy_correlate", "lessons.numpy_correlate"],
    }


def test_numpy_convolve_custom_op_gives_the_eager_result_and_gradient_under_torch_compile():
    x, k = sample(6), sample(3, seed=1)

    def loss(a, b):
        return (numpy_convolve(a, b) ** 2).sum()

    compiled = torch.compile(loss, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(x, k), loss(x, k))
    for a, b in zip(
        torch.autograd.grad(compiled(x, k), (x, k)),
        torch.autograd.grad(loss(x, k), (x, k)),
        strict=True,
    ):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("fn", [CubeInC.apply, cube_in_c], ids=["Function", "custom op"])
def test_cube_in_c_matches_cube_and_passes_gradcheck(fn):
    x = sample(2, 3)
    torch.testing.assert_close(fn(x), Cube.apply(x))
    assert gradcheck(fn, (sample(4),))


def test_cube_in_c_is_a_graph_break_as_a_function_and_one_opaque_node_as_a_custom_op():
    """The developer track: Dynamo cannot trace the C call; a custom op is never traced."""
    x = sample(3)
    with pytest.raises(torch._dynamo.exc.Unsupported, match="_FuncPtr"):
        compiled_ops(CubeInC.apply, x)
    assert compiled_ops(cube_in_c, x)["forward"] == ["lessons.cube_in_c"]
    assert set(torch.library.opcheck(cube_in_c, (x,)).values()) == {"SUCCESS"}


def test_numpy_convolve_keeps_float32_and_skips_a_frozen_kernel():
    x = torch.randn(6, requires_grad=True)
    kernel = torch.randn(3)
    y = NumpyConvolve.apply(x, kernel)
    assert y.dtype == torch.float32
    y.sum().backward()
    assert x.grad.shape == x.shape and kernel.grad is None


# --- reason 2: surrogate gradients ----------------------------------------------------------


def test_heaviside_is_a_step_with_zero_gradient():
    x = torch.tensor([-1.0, 0.0, 0.5], requires_grad=True)
    y = Heaviside.apply(x)
    y.sum().backward()
    assert y.tolist() == [0.0, 0.0, 1.0]
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_spiking_layer_learns_with_the_surrogate_and_not_with_the_true_gradient():
    true = train_spiking_layer(Heaviside.apply)
    surrogate = train_spiking_layer(lambda v: SigmoidSpike.apply(v, 5.0))
    assert true[0] == surrogate[0]  # same start: same seed, same forward
    assert len(set(true)) == 1  # zero gradient: the weights never move
    assert surrogate[-1] < 0.5 * surrogate[0]


# --- reason 3: a numerically superior derivative -----------------------------------------------


def test_stable_softplus_passes_gradcheck_and_gradgradcheck():
    x = sample(10) * 10
    assert gradcheck(StableSoftplus.apply, (x,))
    assert gradgradcheck(StableSoftplus.apply, (x,))


@given(st.floats(-1e4, 1e4, allow_nan=False))
def test_stable_softplus_matches_logaddexp_and_stays_finite(value):
    x = torch.tensor([value], dtype=F64, requires_grad=True)
    y = StableSoftplus.apply(x)
    y.backward()
    torch.testing.assert_close(y, torch.logaddexp(x, torch.zeros_like(x)))
    torch.testing.assert_close(x.grad, torch.sigmoid(x.detach()))


def stable_softplus_by_autograd(x):
    """StableSoftplus's forward, left for autograd to differentiate."""
    return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))


def test_autograd_of_the_stable_rewrite_is_finite_but_says_one_at_zero():
    x = torch.tensor([-1e4, -30.0, 0.0, 30.0, 1e4], requires_grad=True)
    (g,) = torch.autograd.grad(stable_softplus_by_autograd(x).sum(), x)
    assert g.isfinite().all()
    assert g[2].item() == 1.0  # clamp's 1 plus abs's 0 at the kink; sigmoid(0) is 0.5
    (ours,) = torch.autograd.grad(StableSoftplus.apply(x).sum(), x)
    (builtin,) = torch.autograd.grad(torch.nn.functional.softplus(x).sum(), x)
    assert ours[2].item() == builtin[2].item() == 0.5


def test_stable_softplus_keeps_only_x_where_autograd_of_the_rewrite_keeps_two_tensors():
    x = torch.randn(1000, requires_grad=True)
    assert saved_for_backward(lambda: StableSoftplus.apply(x)).nbytes == 4000
    assert saved_for_backward(lambda: torch.nn.functional.softplus(x)).nbytes == 4000
    assert saved_for_backward(lambda: stable_softplus_by_autograd(x)).nbytes == 8000


def test_stable_softplus_works_under_torch_func():
    x = torch.linspace(-50, 50, 7, dtype=F64)
    torch.testing.assert_close(vmap(grad(StableSoftplus.apply))(x), torch.sigmoid(x))
    torch.testing.assert_close(jacrev(StableSoftplus.apply)(x), torch.diag(torch.sigmoid(x)))


# --- reason 4: memory control --------------------------------------------------------------------


@pytest.mark.parametrize("fn", [TanhStackSaved, TanhStackRecompute], ids=lambda f: f.__name__)
def test_tanh_stacks_pass_gradcheck_and_match_autograd(fn):
    x = sample(6)
    assert gradcheck(lambda t: fn.apply(t, 4), (x,))
    (ours,) = torch.autograd.grad(fn.apply(x, 4).sum(), x)
    (expected,) = torch.autograd.grad(tanh_stack(x, 4).sum(), x)
    torch.testing.assert_close(fn.apply(x, 4), tanh_stack(x, 4))
    torch.testing.assert_close(ours, expected)


@pytest.mark.parametrize(
    "block",
    [TanhStackSaved.apply, TanhStackRecompute.apply, tanh_stack, tanh_stack_checkpointed],
    ids=["saved", "recompute", "autograd", "checkpoint"],
)
def test_tanh_blocks_are_one_deep_stack_whatever_the_block(block):
    x = sample(6)
    torch.testing.assert_close(tanh_blocks(x, 3, 2, block), tanh_stack(x, 6))
    (ours,) = torch.autograd.grad(tanh_blocks(x, 3, 2, block).sum(), x)
    (expected,) = torch.autograd.grad(tanh_stack(x, 6).sum(), x)
    torch.testing.assert_close(ours, expected)


# --- reason 5: implicit differentiation -------------------------------------------------------------


def test_fixed_point_is_a_fixed_point():
    x, w = sample(4, 6), contraction(6)
    z = FixedPointTanh.apply(x, w, 1e-13, 500)
    torch.testing.assert_close(z, torch.tanh(z @ w.T + x), rtol=0, atol=1e-12)


def test_fixed_point_passes_gradcheck_in_x_and_weight():
    x, w = sample(3, 5), contraction(5)
    assert gradcheck(lambda a, b: FixedPointTanh.apply(a, b, 1e-14, 1000), (x, w))


def test_solve_fixed_point_stops_at_the_tolerance_and_counts_its_steps():
    z, steps = solve_fixed_point(lambda z: 0.5 * z + 1, torch.zeros(1, dtype=F64), 1e-6, 100)
    assert z.item() == pytest.approx(2.0, abs=2e-6) and 15 < steps < 30
    assert solve_fixed_point(lambda z: 0.5 * z + 1, torch.zeros(1), 0.0, 7)[1] == 7


@pytest.mark.parametrize("tol", [1e-4, 1e-6, 1e-8, 1e-10])
def test_fixed_point_gradient_error_stays_below_the_solver_tolerance(tol):
    x, w = sample(16, 8), contraction(8)
    grad_out = sample(16, 8, seed=3, requires_grad=False)
    exact = torch.autograd.grad(fixed_point_unrolled(x, w, 200), (x, w), grad_out)
    ours = torch.autograd.grad(FixedPointTanh.apply(x, w, tol, 1000), (x, w), grad_out)
    assert max((a - b).abs().max().item() for a, b in zip(ours, exact, strict=True)) < tol
    assert set(FixedPointTanh.iterations) == {"forward", "backward"}


def test_contraction_factors_are_the_infinity_and_one_norms():
    w = torch.tensor([[0.5, -0.25], [0.125, 0.0]], dtype=F64)
    assert contraction_factors(w) == (0.75, 0.625)  # largest row sum, largest column sum


def test_a_spectral_norm_below_one_does_not_make_a_contraction_in_the_largest_entry():
    """Why the lesson scales W by contraction_factors: spectral norm 0.5, row sums above 1."""
    forward, backward = contraction_factors(contraction(16).detach())
    assert forward > 1 and backward > 1


@pytest.mark.parametrize("tol", [1e-2, 1e-4, 1e-8])
def test_each_solve_ends_within_tol_q_over_1_minus_q_of_its_fixed_point(tol):
    """The stop rule (no entry moves more than tol) and q in the same norm bound each solve."""
    a = sample(8, 8, seed=1, requires_grad=False)
    w = 0.5 * a / max(contraction_factors(a))
    q_forward, q_backward = contraction_factors(w)
    x, grad_out = sample(16, 8, requires_grad=False), sample(16, 8, seed=3, requires_grad=False)
    exact_z = FixedPointTanh.apply(x, w, 0.0, 500)
    z = FixedPointTanh.apply(x, w, tol, 500)
    assert (z - exact_z).abs().max() <= tol * q_forward / (1 - q_forward)
    slope = 1 - exact_z * exact_z
    # Backward's system per row, (I - diag(a) W)ᵀ u = grad_out, solved densely as the oracle.
    systems = torch.eye(8, dtype=F64) - slope[:, :, None] * w
    exact_u = torch.linalg.solve(systems.mT, grad_out)
    u, _ = solve_fixed_point(lambda u: grad_out + (u * slope) @ w, grad_out, tol, 500)
    assert (u - exact_u).abs().max() <= tol * q_backward / (1 - q_backward)


class ShapeRecorder(TorchDispatchMode):
    """Notes the shape of every tensor an ATen operator returns while the mode is on."""

    def __init__(self):
        super().__init__()
        self.shapes = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if isinstance(result, torch.Tensor):
            self.shapes.append(tuple(result.shape))
        return result


def test_fixed_point_backward_solves_the_adjoint_without_building_a_matrix():
    """Each backward step is one VJP, (u * a) @ W: no (batch, n, n) tensor is ever made."""
    x, w = sample(4, 6), contraction(6)
    z = FixedPointTanh.apply(x, w, 1e-12, 500)
    grad_out = torch.ones_like(z)
    with ShapeRecorder() as recorder:
        z.backward(grad_out)
    assert (6, 6) in recorder.shapes, "the recorder saw backward's operators (W's gradient)"
    assert all(len(shape) <= 2 for shape in recorder.shapes), set(recorder.shapes)


def test_fixed_point_gradient_agrees_with_unrolled_autograd():
    x, w = sample(8, 6), contraction(6)
    grad_out = sample(8, 6, seed=3, requires_grad=False)
    implicit = torch.autograd.grad(FixedPointTanh.apply(x, w, 1e-13, 500), (x, w), grad_out)
    unrolled = torch.autograd.grad(fixed_point_unrolled(x, w, 100), (x, w), grad_out)
    for a, b in zip(implicit, unrolled, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-10)


# --- cost framing ----------------------------------------------------------------------------------


def test_passthrough_is_an_identity_that_saves_nothing():
    x = sample(5)
    torch.testing.assert_close(Passthrough.apply(x), x)
    assert gradcheck(Passthrough.apply, (x,))
    assert saved_for_backward(lambda: Passthrough.apply(x)).tensors == 0


def test_exp_matches_torch_exp_and_passes_gradgradcheck():
    x = sample(5)
    torch.testing.assert_close(Exp.apply(x), torch.exp(x))
    assert gradcheck(Exp.apply, (x,))
    assert gradgradcheck(Exp.apply, (x,))
