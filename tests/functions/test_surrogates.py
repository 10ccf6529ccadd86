"""The researcher track's surrogates: a clipped STE and a sigmoid spike."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons_lib.functions import ClippedSTE, SigmoidSpike
from tests.functions.inputs import grad_of, leaf, values


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
