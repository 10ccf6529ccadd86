"""The Function zoo against torch's own ops, gradcheck and the seed's printed outputs."""

import contextlib
import io
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.amp import custom_bwd
from torch.autograd import gradcheck, gradgradcheck
from torch.func import grad, hessian, jacfwd, jacrev, vmap

from lessons_lib import Clamp, Clamp01, Cube, CubeWithSetupContext, ReLUInPlace, RoundSTE, Square
from lessons_lib.functions import ClippedSTE, FlatCube, MatMul, MatMulFloat32, SigmoidSpike
from tests.learner_functions import masked_clamp01
from tests.torch_conventions import CLAMP_AT_A_BOUND, OVERLOADS, torch_clamp_at_a_bound

# Finite floats with the points where clamp and round change behaviour mixed in.
special = st.sampled_from([0.0, 1.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, -1.0, 2.0])
values = st.lists(
    st.one_of(special, st.floats(-1e3, 1e3, allow_nan=False)), min_size=1, max_size=20
)


def leaf(data, dtype=torch.float64):
    """A fresh float64 leaf tensor that requires grad."""
    return torch.tensor(data, dtype=dtype, requires_grad=True)


def grad_of(fn, data):
    """Gradient of fn(x).sum() at data, through autograd."""
    x = leaf(data)
    fn(x).sum().backward()
    return x.grad


# --- the seed's printed outputs, character for character -------------------------


def test_cube_prints_exactly_as_the_seed():
    x = torch.tensor([2.0], requires_grad=True)
    y = Cube.apply(x)
    y.backward()
    assert str(y) == "tensor([8.], grad_fn=<CubeBackward>)"
    assert str(x.grad) == "tensor([12.])"


def test_round_ste_prints_exactly_as_the_seed():
    x = torch.tensor([0.4, 1.6, 2.5], requires_grad=True)
    y = RoundSTE.apply(x)
    y.sum().backward()
    assert str(y) == "tensor([0., 2., 2.], grad_fn=<RoundSTEBackward>)"
    assert str(x.grad) == "tensor([1., 1., 1.])"


# --- every differentiable Function agrees with finite differences ---------------

SMOOTH_SAMPLE = [[-1.7, -0.3, 0.2, 0.6, 1.4, 3.1], [[0.25, -2.0], [0.75, 1.5]]]


@pytest.mark.parametrize("data", SMOOTH_SAMPLE)
@pytest.mark.parametrize(
    "fn", [Square, Cube, CubeWithSetupContext, Clamp01], ids=lambda f: f.__name__
)
def test_backward_passes_gradcheck_and_gradgradcheck(fn, data):
    """Samples avoid clamp's kinks at 0 and 1, where finite differences are undefined."""
    x = leaf(data)
    assert gradcheck(fn.apply, (x,))
    assert gradgradcheck(fn.apply, (x,))


def test_clamp_with_range_passes_gradcheck_with_non_tensor_inputs():
    x = leaf([-2.2, -0.9, 0.1, 1.8, 2.6])
    assert gradcheck(lambda t: Clamp.apply(t, -1.0, 2.0), (x,))
    assert gradgradcheck(lambda t: Clamp.apply(t, -1.0, 2.0), (x,))


def test_setup_context_cube_forward_mode_matches_finite_differences():
    x = leaf([-1.5, 0.3, 2.0])
    assert gradcheck(CubeWithSetupContext.apply, (x,), check_forward_ad=True)


# --- the setup_context variant under torch.func ----------------------------------


def test_setup_context_cube_works_under_every_torch_func_transform():
    f = CubeWithSetupContext.apply
    x = torch.tensor([-2.0, 0.5, 3.0], dtype=torch.float64)
    expected_jacobian = torch.diag(3 * x**2)
    torch.testing.assert_close(vmap(grad(f))(x), 3 * x**2)
    torch.testing.assert_close(vmap(f)(x.reshape(3, 1)), x.reshape(3, 1) ** 3)
    torch.testing.assert_close(jacrev(f)(x), expected_jacobian)
    torch.testing.assert_close(jacfwd(f)(x), expected_jacobian)
    torch.testing.assert_close(hessian(lambda t: f(t).sum())(x), torch.diag(6 * x))


def test_classic_cube_is_refused_by_torch_func():
    """The reason the setup_context form exists: the classic form cannot be transformed."""
    with pytest.raises(RuntimeError, match="setup_context"):
        jacrev(Cube.apply)(torch.tensor([1.0, 2.0]))


# --- properties against torch's own ops -----------------------------------------


@given(values)
def test_cube_and_square_match_autograd_of_the_power(data):
    for fn, power in [(Cube, 3), (Square, 2)]:
        x = torch.tensor(data, dtype=torch.float64)
        torch.testing.assert_close(fn.apply(x), x**power)
        torch.testing.assert_close(grad_of(fn.apply, data), grad_of(lambda t, p=power: t**p, data))


@given(values)
def test_round_ste_rounds_half_to_even_and_passes_the_gradient_through(data):
    x = leaf(data)
    y = RoundSTE.apply(x)
    torch.testing.assert_close(y, torch.round(x), rtol=0, atol=0)
    upstream = torch.linspace(-2, 3, len(data), dtype=torch.float64)
    y.backward(upstream)
    torch.testing.assert_close(x.grad, upstream, rtol=0, atol=0)


def expected_clamp_grad(data, lo, hi):
    """torch.clamp's gradient of a sum, except at exactly a bound: grad_out, the course's choice
    there (torch 2.13's too; 2.14.1's number bounds pass 0: tests/torch_conventions.py)."""
    torchs = grad_of(lambda t: torch.clamp(t, lo, hi), data)
    x = torch.tensor(data, dtype=torch.float64)
    return torch.where((x == lo) | (x == hi), torch.ones_like(x), torchs)


@given(values)
def test_clamp01_equals_torch_clamp_in_value_and_gradient_and_passes_grad_out_at_the_bounds(data):
    x = torch.tensor(data, dtype=torch.float64)
    torch.testing.assert_close(Clamp01.apply(x), torch.clamp(x, 0, 1), rtol=0, atol=0)
    torch.testing.assert_close(
        grad_of(Clamp01.apply, data), expected_clamp_grad(data, 0, 1), rtol=0, atol=0
    )


@given(values, st.floats(-5, 5), st.floats(0, 5))
def test_clamp_with_range_equals_torch_clamp_and_passes_grad_out_at_the_bounds(data, lo, width):
    hi = lo + width
    x = torch.tensor(data, dtype=torch.float64)
    torch.testing.assert_close(Clamp.apply(x, lo, hi), torch.clamp(x, lo, hi), rtol=0, atol=0)
    torch.testing.assert_close(
        grad_of(lambda t: Clamp.apply(t, lo, hi), data),
        expected_clamp_grad(data, lo, hi),
        rtol=0,
        atol=0,
    )


@pytest.mark.parametrize("overload", OVERLOADS)
def test_torch_clamps_gradient_at_a_bound_is_what_the_course_says_for_this_release(overload):
    release = ".".join(torch.__version__.split(".")[:2])
    if release not in CLAMP_AT_A_BOUND:
        pytest.skip(f"torch {release}: the course has not looked at its clamp at a bound")
    assert torch_clamp_at_a_bound(overload) == CLAMP_AT_A_BOUND[release][overload]


def test_every_overload_has_an_expectation_on_both_releases():
    assert all(set(row) == set(OVERLOADS) for row in CLAMP_AT_A_BOUND.values())


def test_clamp01_saves_only_a_boolean_mask():
    x = leaf([-0.5, 0.0, 0.5, 1.0, 1.5])
    y = Clamp01.apply(x)
    (saved,) = y.grad_fn.saved_tensors
    assert saved.dtype == torch.bool
    assert saved.tolist() == [False, True, True, True, False]


# --- the house rules the lesson teaches, enforced on the zoo itself --------------


def test_clamp_returns_one_gradient_per_input_with_none_for_the_numbers():
    x = leaf([0.5, 3.0])
    ctx = Clamp.apply(x, 0.0, 1.0).grad_fn  # a classic Function's node is its ctx
    grad_x, grad_lo, grad_hi = Clamp.backward(ctx, torch.ones(2, dtype=torch.float64))
    assert grad_x.tolist() == [1.0, 0.0]
    assert grad_lo is None and grad_hi is None


def test_clamp_skips_the_gradient_nobody_asked_for():
    ctx = SimpleNamespace(needs_input_grad=(False, False, False), lo=0.0, hi=1.0)
    ctx.saved_tensors = (torch.tensor([0.5, 3.0]),)
    assert Clamp.backward(ctx, torch.ones(2)) == (None, None, None)


@pytest.mark.parametrize("fn", [Square, Cube, CubeWithSetupContext, Clamp01, Clamp])
def test_no_tensor_is_stashed_as_a_ctx_attribute(fn):
    """Tensors go through save_for_backward; only plain values may ride on ctx."""
    x = leaf([-0.5, 0.5, 1.5])
    args = (x, 0.0, 1.0) if fn is Clamp else (x,)
    node = fn.apply(*args).grad_fn
    stashed = [k for k, v in vars(node).items() if isinstance(v, torch.Tensor)]
    assert stashed == []


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("fn", [Square, Cube, CubeWithSetupContext, RoundSTE, Clamp01])
def test_dtype_is_preserved_forwards_and_backwards(fn, dtype):
    x = leaf([-0.5, 0.5, 1.5], dtype=dtype)
    y = fn.apply(x)
    y.sum().backward()
    assert y.dtype == x.grad.dtype == dtype


def test_every_function_has_a_one_line_docstring():
    for fn in [
        Square,
        Cube,
        CubeWithSetupContext,
        RoundSTE,
        Clamp01,
        Clamp,
        ReLUInPlace,
        FlatCube,
        MatMul,
        MatMulFloat32,
    ]:
        assert fn.__doc__ and "\n" not in fn.__doc__.strip(), fn.__name__


# --- the researcher track's surrogates: a clipped STE and a sigmoid spike ----------


@given(values)
def test_clipped_ste_binarises_to_plus_minus_one_with_zero_counted_as_plus(data):
    x = torch.tensor(data, dtype=torch.float64)
    expected = torch.where(torch.sign(x) == 0, 1.0, torch.sign(x)).to(torch.float64)
    torch.testing.assert_close(ClippedSTE.apply(x), expected, rtol=0, atol=0)


@given(values)
def test_clipped_ste_passes_the_upstream_gradient_only_where_abs_x_is_at_most_one(data):
    x = leaf(data)
    upstream = torch.linspace(-2, 3, len(data), dtype=torch.float64)
    ClippedSTE.apply(x).backward(upstream)
    torch.testing.assert_close(x.grad, upstream * (x.detach().abs() <= 1), rtol=0, atol=0)


def test_clipped_ste_gradient_is_hardtanhs_away_from_the_edges_and_includes_them():
    """BinaryNet's STE is the gradient of hardtanh; unlike torch's, |x| = 1 passes."""
    inner = [-2.5, -0.999, -0.3, 0.0, 0.4, 0.999, 1.7]
    torch.testing.assert_close(
        grad_of(ClippedSTE.apply, inner), grad_of(torch.nn.functional.hardtanh, inner)
    )
    assert grad_of(ClippedSTE.apply, [-1.0, 1.0]).tolist() == [1.0, 1.0]


@given(values, st.floats(0.1, 30))
def test_sigmoid_spike_fires_where_x_is_positive(data, slope):
    x = torch.tensor(data, dtype=torch.float64)
    torch.testing.assert_close(
        SigmoidSpike.apply(x, slope), torch.heaviside(x, torch.tensor(0.0, dtype=x.dtype))
    )


@given(values, st.floats(0.1, 30))
def test_sigmoid_spike_gradient_is_the_sigmoids_derivative_times_upstream(data, slope):
    """The surrogate equals autograd of sigmoid(slope * x), and the written formula."""
    x = leaf(data)
    upstream = torch.linspace(-2, 3, len(data), dtype=torch.float64)
    SigmoidSpike.apply(x, slope).backward(upstream)
    s = torch.sigmoid(slope * x.detach())
    torch.testing.assert_close(x.grad, upstream * slope * s * (1 - s))
    smooth = grad_of(lambda t: torch.sigmoid(slope * t) * upstream, data)
    torch.testing.assert_close(x.grad, smooth)


def test_sigmoid_spike_returns_none_for_the_slope():
    x = leaf([-0.5, 0.0, 0.5])
    ctx = SigmoidSpike.apply(x, 4.0).grad_fn
    grad_x, grad_slope = SigmoidSpike.backward(ctx, torch.ones(3, dtype=torch.float64))
    assert grad_slope is None
    assert grad_x[1].item() == 1.0  # slope * 1/2 * 1/2 at the threshold


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_surrogates_preserve_dtype_and_save_no_ctx_tensors(dtype):
    for fn, extra in [(ClippedSTE, ()), (SigmoidSpike, (5.0,))]:
        x = leaf([-1.5, 0.5, 1.5], dtype=dtype)
        y = fn.apply(x, *extra)
        assert not [k for k, v in vars(y.grad_fn).items() if isinstance(v, torch.Tensor)]
        y.sum().backward()
        assert y.dtype == x.grad.dtype == dtype
        assert fn.__doc__ and "\n" not in fn.__doc__.strip()


# --- an in-place Function: ReLUInPlace and ctx.mark_dirty ------------------------


@given(values)
def test_relu_in_place_equals_torch_relu_in_place_in_value_and_gradient(data):
    """Against torch's own in-place op: the same values, the same gradient (0 at x = 0)."""
    ours, theirs = leaf(data), leaf(data)
    upstream = torch.linspace(-2, 3, len(data), dtype=torch.float64)
    y = ReLUInPlace.apply(ours.clone())
    torch.testing.assert_close(y, torch.relu(ours.detach()), rtol=0, atol=0)
    y.backward(upstream)
    torch.relu_(theirs.clone()).backward(upstream)
    torch.testing.assert_close(ours.grad, theirs.grad, rtol=0, atol=0)


def test_relu_in_place_passes_gradcheck_and_gradgradcheck():
    """Samples avoid the kink at 0; the clone gives the Function a tensor it may change."""
    x = leaf([[-1.7, -0.3, 0.2], [0.6, 1.4, -3.1]])
    assert gradcheck(lambda t: ReLUInPlace.apply(t.clone()), (x,))
    assert gradgradcheck(lambda t: ReLUInPlace.apply(t.clone()), (x,))


def test_relu_in_place_returns_its_input_and_moves_its_history_onto_the_node():
    """mark_dirty: later uses of x differentiate through the ReLU, as after torch.relu_."""
    a = leaf([-1.0, 2.0])
    x = a.clone()
    assert ReLUInPlace.apply(x) is x
    assert type(x.grad_fn).__name__ == "ReLUInPlaceBackward"
    (3 * x).sum().backward()
    assert a.grad.tolist() == [0.0, 3.0]


def test_without_mark_dirty_the_change_is_silent_and_the_gradient_skips_the_relu():
    """What the notebook shows: torch does not raise; x keeps its old history."""

    class Forgetful(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.clamp_(min=0)
            return x

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out

    a = leaf([-1.0, 2.0])
    x = a.clone()
    Forgetful.apply(x)
    assert x.tolist() == [0.0, 2.0]
    assert type(x.grad_fn).__name__ == "CloneBackward0"
    (3 * x).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_a_leaf_that_requires_grad_is_refused_by_relu_before_and_by_the_function_after():
    """As the notebook says: torch.relu_ checks first; a Function only after forward ran."""
    for op, after in [(torch.relu_, [-1.0, 2.0]), (ReLUInPlace.apply, [0.0, 2.0])]:
        a = leaf([-1.0, 2.0])
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            op(a)
        assert a.tolist() == after


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_relu_in_place_saves_its_output_through_save_for_backward(dtype):
    a = leaf([-0.5, 0.5, 1.5], dtype=dtype)
    y = ReLUInPlace.apply(a.clone())
    assert not [k for k, v in vars(y.grad_fn).items() if isinstance(v, torch.Tensor)]
    (saved,) = y.grad_fn.saved_tensors
    assert saved.data_ptr() == y.data_ptr()
    y.sum().backward()
    assert y.dtype == a.grad.dtype == dtype


# --- Mistake 7: a grad_out that is not contiguous ----------------------------------------

# What the steps after a Function do to the grad_out it receives (x is 2 x 3).
DOWNSTREAM = {
    "sum": lambda y: y.sum(),  # one value expanded: strides (0, 0)
    "transposed": lambda y: (y.t() * torch.arange(6.0, dtype=y.dtype).view(3, 2)).sum(),
    "expanded": lambda y: (y.sum(0) * torch.arange(3.0, dtype=y.dtype)).sum(),  # (0, 1)
}


class ViewCube(torch.autograd.Function):
    """The developer track's Mistake 7: FlatCube with view in place of reshape."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x.reshape(-1) ** 3).reshape(x.shape)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return (grad_out.view(-1) * 3 * x.reshape(-1) ** 2).view(x.shape)


@pytest.mark.parametrize("after", DOWNSTREAM.values(), ids=DOWNSTREAM.keys())
def test_flat_cube_matches_cube_whatever_grad_out_layout_the_next_steps_send(after):
    x, x_ref = (
        leaf([[1.0, -2.0, 0.5], [3.0, 0.0, -1.5]]),
        leaf([[1.0, -2.0, 0.5], [3.0, 0.0, -1.5]]),
    )
    after(FlatCube.apply(x)).backward()
    after(Cube.apply(x_ref)).backward()
    torch.testing.assert_close(x.grad, x_ref.grad)


def test_a_backward_that_views_grad_out_passes_sum_and_fails_transposed_or_expanded():
    """The lesson's claim, on this torch: the quick test passes, real training raises."""
    x = leaf([[1.0, -2.0, 0.5], [3.0, 0.0, -1.5]])
    DOWNSTREAM["sum"](ViewCube.apply(x)).backward()
    for name in ("transposed", "expanded"):
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            DOWNSTREAM[name](ViewCube.apply(x)).backward()


def test_flat_cube_passes_gradcheck_and_gradgradcheck_on_a_transposed_input():
    x = leaf([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]]).t()
    assert gradcheck(FlatCube.apply, (x,)) and gradgradcheck(FlatCube.apply, (x,))


# --- custom Functions under autocast ------------------------------------------------------


def autocast_run(fn, report=None):
    """fn(h, w) under CPU bfloat16 autocast, h from a linear layer (so bfloat16); backward after."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(5, 4, generator=generator, requires_grad=True)
    layer_w = torch.randn(3, 4, generator=generator, requires_grad=True)
    w = torch.randn(3, 2, generator=generator, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = x @ layer_w.T  # autocast runs matmuls in bfloat16
        y = fn(h, w)
    saw = [t.dtype for t in y.grad_fn.saved_tensors]  # what forward saw, read off its notepad
    y.float().sum().backward()
    return h, w, y, saw, x.grad, w.grad


def float32_grads():
    """The same computation in float32 throughout: the reference gradients for x and w."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(5, 4, generator=generator, requires_grad=True)
    layer_w = torch.randn(3, 4, generator=generator, requires_grad=True)
    w = torch.randn(3, 2, generator=generator, requires_grad=True)
    ((x @ layer_w.T) @ w).sum().backward()
    return x.grad, w.grad


@pytest.mark.parametrize("fn", [MatMul, MatMulFloat32], ids=lambda f: f.__name__)
def test_matmuls_pass_gradcheck_and_gradgradcheck_outside_autocast(fn):
    a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 2, dtype=torch.float64, requires_grad=True)
    assert gradcheck(fn.apply, (a, b)) and gradgradcheck(fn.apply, (a, b))
    torch.testing.assert_close(fn.apply(a, b), a @ b)


def test_without_custom_bwd_the_backward_of_an_autocast_forward_raises():
    """The developer track's 'what not to do': backward runs with autocast off."""

    class PlainMatMul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a @ b

        @staticmethod
        def backward(ctx, grad_out):
            a, b = ctx.saved_tensors
            return grad_out @ b.T, a.T @ grad_out

    with pytest.raises(RuntimeError, match="same dtype"):
        autocast_run(PlainMatMul.apply)


def test_matmul_runs_in_bfloat16_under_autocast_and_its_backward_works():
    h, w, y, saw, x_grad, w_grad = autocast_run(MatMul.apply)
    assert (h.dtype, w.dtype, y.dtype) == (torch.bfloat16, torch.float32, torch.bfloat16)
    assert saw == [torch.bfloat16, torch.float32]  # the inputs as they arrived
    for got, want in zip((x_grad, w_grad), float32_grads(), strict=True):
        assert got.dtype == torch.float32
        torch.testing.assert_close(got, want, rtol=0.05, atol=0.1)  # bfloat16: ~3 digits


def test_matmul_float32_casts_its_inputs_up_and_runs_with_autocast_off():
    h, _, y, saw, x_grad, w_grad = autocast_run(MatMulFloat32.apply)
    assert h.dtype == torch.bfloat16 and y.dtype == torch.float32
    assert saw == [torch.float32, torch.float32]
    for got, want in zip((x_grad, w_grad), float32_grads(), strict=True):
        torch.testing.assert_close(got, want, rtol=0.05, atol=0.1)


def matmul_float32(a_dtype, b_dtype, under_autocast):
    """MatMulFloat32 on ones of these dtypes, with autocast on or off: its output's dtype."""
    a, b = torch.ones(2, 3, dtype=a_dtype), torch.ones(3, 2, dtype=b_dtype)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=under_autocast):
        return MatMulFloat32.apply(a, b).dtype


def test_matmul_float32_casts_only_under_autocast_and_leaves_float64_alone():
    """The developer track's cases: cast_inputs skips float64, and does nothing outside."""
    assert matmul_float32(torch.bfloat16, torch.float32, True) == torch.float32
    assert matmul_float32(torch.float16, torch.bfloat16, True) == torch.float32
    assert matmul_float32(torch.float64, torch.float64, True) == torch.float64
    with pytest.raises(RuntimeError, match=r"same dtype, but got: float != double"):
        matmul_float32(torch.bfloat16, torch.float64, True)  # bfloat16 cast up, float64 not
    assert matmul_float32(torch.bfloat16, torch.bfloat16, False) == torch.bfloat16


@pytest.mark.parametrize(("fn", "computed_in"), [(MatMul, torch.bfloat16), (MatMulFloat32, None)])
def test_w_grad_is_float32_and_matmuls_is_computed_in_bfloat16(fn, computed_in):
    returned = []

    class Reporting(fn):
        @staticmethod
        def backward(ctx, grad_out):
            grads = fn.backward(ctx, grad_out)  # under fn's own custom_bwd
            returned.extend(g.dtype for g in grads)
            return grads

    _, _, _, _, x_grad, w_grad = autocast_run(Reporting.apply)
    assert x_grad.dtype == w_grad.dtype == torch.float32  # autograd casts to each input's
    assert returned == [computed_in or torch.float32] * 2
    as_bfloat16 = torch.equal(w_grad, w_grad.bfloat16().float())  # every value a bfloat16 one
    assert as_bfloat16 == (computed_in == torch.bfloat16)


@pytest.mark.parametrize(("fn", "on"), [(MatMul, True), (MatMulFloat32, False)])
def test_custom_bwd_runs_backward_in_the_autocast_state_forward_ran_in(fn, on):
    seen = []

    class Reporting(fn):
        @staticmethod
        @custom_bwd(device_type="cpu")
        def backward(ctx, grad_out):
            seen.append(torch.is_autocast_enabled("cpu"))
            return fn.backward(ctx, grad_out)

    autocast_run(Reporting.apply)
    assert seen == [on]
    assert not torch.is_autocast_enabled("cpu")  # and nothing leaks out of backward


# --- lesson 1 developer, "Try it yourself": Check 1 judges a YourClamp01 --------------

LESSON1_DEVELOPER = Path(__file__).parent.parent / "notebooks/01-custom-function/2-developer.ipynb"


def check_1(your_clamp01) -> list[bool]:
    """Run the notebook's Check 1 cell on a YourClamp01; the verdicts it prints, in order."""
    cells = nbformat.read(LESSON1_DEVELOPER, as_version=4).cells
    heading = next(i for i, c in enumerate(cells) if c.source.startswith("**Check 1:**"))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(cells[heading + 1].source, {"torch": torch, "YourClamp01": your_clamp01})
    return [
        line.rstrip().endswith("True")
        for line in printed.getvalue().splitlines()
        if line.rstrip().endswith(("True", "False"))
    ]


@pytest.mark.parametrize(
    "fn",
    [Clamp01, masked_clamp01(lambda x: (x > 0) & (x < 1))],
    ids=["Clamp01", "strict-mask"],
)
def test_check_1_passes_a_correct_clamp01_with_or_without_the_edges(fn):
    assert check_1(fn) == [True, True]


@pytest.mark.parametrize(
    ("fn", "verdicts"),
    [
        (masked_clamp01(lambda x: torch.zeros_like(x, dtype=torch.bool)), [True, False]),
        (
            masked_clamp01(lambda x: (x >= 0) & (x <= 1), lambda g: torch.ones_like(g)),
            [True, False],
        ),
        (masked_clamp01(lambda x: torch.ones_like(x, dtype=torch.bool)), [False, True]),
    ],
    ids=["zeroes-everything", "ignores-grad-out", "passes-everything"],
)
def test_check_1_refuses_a_backward_that_blocks_or_drops_grad_out_inside(fn, verdicts):
    """A backward of zeros reads zero where the clamp blocks; only the inside check catches it."""
    assert check_1(fn) == verdicts
