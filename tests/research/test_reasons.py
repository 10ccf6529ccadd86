"""Reasons 2 to 5 against gradcheck, torch's own ops and unrolled autograd."""

import warnings

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.autograd import gradcheck, gradgradcheck
from torch.func import grad, jacrev, vmap
from torch.utils._python_dispatch import TorchDispatchMode  # records backward's operators

from lessons_lib.functions import SigmoidSpike
from lessons_lib.measure import saved_for_backward
from lessons_lib.research import (
    CountedTanh,
    FixedPointTanh,
    Heaviside,
    StableSoftplus,
    TanhStackRecompute,
    TanhStackSaved,
    contraction_factors,
    dropout_layer,
    fixed_point_unrolled,
    seeded_gradient,
    solve_fixed_point,
    tanh_blocks,
    tanh_stack,
    train_spiking_layer,
    warnings_of,
)
from tests.research.samples import F64, contraction, sample
from tests.torch_conventions import torch_clamp_at_a_bound


def tanh_stack_checkpointed(x: torch.Tensor, depth: int) -> torch.Tensor:
    """The test's oracle: tanh_stack under torch.utils.checkpoint, which recomputes in backward."""
    return torch.utils.checkpoint.checkpoint(tanh_stack, x, depth, use_reentrant=False)


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


def test_autograd_of_the_stable_rewrite_is_finite_but_not_one_half_at_zero():
    x = torch.tensor([-1e4, -30.0, 0.0, 30.0, 1e4], requires_grad=True)
    (g,) = torch.autograd.grad(stable_softplus_by_autograd(x).sum(), x)
    assert g.isfinite().all()
    # clamp(min=0)'s choice at the kink (1 on torch 2.13, 0 on 2.14.1) plus abs's 0; the
    # derivative, sigmoid(0), is 0.5
    assert g[2].item() == {"grad_out": 1.0, "0": 0.0}[torch_clamp_at_a_bound("clamp(min=0)")]
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


# --- reason 4, continued: checkpoint's traps ---------------------------------------------------


def checkpoint(*args, **kwargs):
    """torch.utils.checkpoint.checkpoint, its warnings caught so they do not reach pytest's."""
    result, _ = warnings_of(lambda: torch.utils.checkpoint.checkpoint(*args, **kwargs))
    return result


def test_warnings_of_returns_the_result_and_each_warnings_first_line_every_time():
    def warn_twice():
        for _ in range(2):  # one place in the code: a "default" filter would show it once
            warnings.warn("first line\nsecond line", UserWarning, stacklevel=1)
        return 7

    assert warnings_of(warn_twice) == (7, ["first line", "first line"])
    assert warnings_of(lambda: 7) == (7, [])


def test_reentrant_checkpoint_of_data_leaves_the_layers_parameters_without_a_gradient():
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 3)
    head = torch.randn(3, requires_grad=True)
    data = torch.randn(5, 3)  # the only input, and it does not require grad
    hidden, warned = warnings_of(
        lambda: torch.utils.checkpoint.checkpoint(layer, data, use_reentrant=True)
    )
    assert not hidden.requires_grad
    assert warned == ["None of the inputs have requires_grad=True. Gradients will be None"]
    (hidden.tanh() @ head).sum().backward()  # runs: the head still requires grad
    assert layer.weight.grad is None and layer.bias.grad is None
    assert head.grad is not None


def test_non_reentrant_checkpoint_of_data_gives_the_layer_its_plain_gradient():
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 3)
    data = torch.randn(5, 3)
    (expected,) = torch.autograd.grad(layer(data).tanh().sum(), layer.weight)
    hidden, warned = warnings_of(
        lambda: torch.utils.checkpoint.checkpoint(layer, data, use_reentrant=False)
    )
    assert hidden.requires_grad and warned == []
    (ours,) = torch.autograd.grad(hidden.tanh().sum(), layer.weight)
    torch.testing.assert_close(ours, expected)


def test_counted_tanh_is_tanh_and_passes_gradcheck():
    x = sample(5)
    torch.testing.assert_close(CountedTanh.apply(x), torch.tanh(x))
    assert gradcheck(CountedTanh.apply, (x,))


@pytest.mark.parametrize(
    "use_reentrant", [None, False, True], ids=["plain", "non-reentrant", "reentrant"]
)
def test_a_checkpoint_runs_forward_again_in_backward(use_reentrant):
    x = sample(5)
    CountedTanh.calls.clear()
    if use_reentrant is None:
        out = CountedTanh.apply(x)
    else:
        out = checkpoint(CountedTanh.apply, x, use_reentrant=use_reentrant)
    assert CountedTanh.calls == {"forward": 1}
    out.sum().backward()
    runs = 1 if use_reentrant is None else 2
    assert CountedTanh.calls == {"forward": runs, "backward": 1}


def test_dropout_layer_drops_about_half_and_scales_the_rest_by_two():
    torch.manual_seed(0)
    x, weight = torch.randn(64, 8), torch.randn(8, 8)
    out, kept = dropout_layer(x, weight), torch.tanh(x @ weight.T)
    dropped = out == 0
    assert 0.4 < dropped.float().mean().item() < 0.6
    torch.testing.assert_close(out[~dropped], 2 * kept[~dropped])


def test_seeded_gradient_repeats_a_random_forward_exactly():
    x, weight = sample(6, 4, requires_grad=False), sample(4, 4, seed=1)
    first = seeded_gradient(lambda: dropout_layer(x, weight), weight, seed=3)
    torch.testing.assert_close(
        seeded_gradient(lambda: dropout_layer(x, weight), weight, seed=3), first
    )
    assert not torch.allclose(
        seeded_gradient(lambda: dropout_layer(x, weight), weight, seed=4), first
    )


@pytest.mark.parametrize("use_reentrant", [False, True], ids=["non-reentrant", "reentrant"])
@pytest.mark.parametrize("preserve_rng_state", [True, False], ids=["preserved", "not preserved"])
def test_only_a_preserved_rng_state_gives_a_checkpointed_dropout_its_plain_gradient(
    use_reentrant, preserve_rng_state
):
    x, weight = sample(6, 4), sample(4, 4, seed=1)  # reentrant needs an input that requires grad
    plain = seeded_gradient(lambda: dropout_layer(x, weight), weight)
    checkpointed = seeded_gradient(
        lambda: checkpoint(
            dropout_layer,
            x,
            weight,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve_rng_state,
        ),
        weight,
    )
    assert torch.allclose(checkpointed, plain) is preserve_rng_state


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
