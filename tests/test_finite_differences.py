"""Finite differences against analytic derivatives (x**3, sin, exp) and the error model."""

import math

import pytest
import torch

from lessons_lib.finite_differences import (
    best_step,
    central_difference,
    complex_step,
    directional_difference,
    error_model,
    model_best_step,
    roundoff_error,
    smooth_derivatives,
    step_errors,
    truncation_error,
)
from lessons_lib.running import InputError, LessonError

F32, F64 = torch.float32, torch.float64

# (f, f', f''') for the three functions every test uses as an oracle.
ANALYTIC = {
    "cube": (lambda x: x**3, lambda x: 3 * x**2, lambda x: 6.0),
    "sin": (torch.sin, torch.cos, lambda x: -math.cos(x)),
    "exp": (torch.exp, torch.exp, math.exp),
}
POINTS = torch.linspace(-2, 2, 9, dtype=F64)


@pytest.mark.parametrize("name", ANALYTIC)
@pytest.mark.parametrize("dtype", [F32, F64])
def test_central_difference_matches_the_analytic_derivative_at_the_best_step(name, dtype):
    """At h = eps^(1/3) the error is within a small multiple of eps^(2/3), in both dtypes."""
    f, df, _ = ANALYTIC[name]
    x = POINTS.to(dtype)
    approx = central_difference(f, x, best_step(dtype))
    assert approx.dtype == dtype
    exact = df(x.to(F64))
    scale = 1 + exact.abs() + f(x.to(F64)).abs()
    assert ((approx.to(F64) - exact).abs() / scale).max() < 20 * torch.finfo(dtype).eps ** (2 / 3)


def test_central_difference_truncation_error_is_h_squared_f_third_over_six():
    """For x**3 in float64 the error is exactly h² (f''' = 6, h²·6/6 = h²) while h is large."""
    x = torch.tensor([0.5, 1.0, 2.0], dtype=F64)
    for h in (1e-1, 1e-2):
        err = central_difference(lambda t: t**3, x, h) - 3 * x**2
        torch.testing.assert_close(err, torch.full_like(x, h * h), rtol=1e-6, atol=0)


def test_central_difference_does_not_build_a_graph_or_touch_x():
    """The difference is a plain number: no grad_fn, and x is left as it was."""
    x = torch.tensor([1.0, 2.0], dtype=F64, requires_grad=True)
    before = x.detach().clone()
    out = central_difference(torch.sin, x, 1e-4)
    assert out.grad_fn is None
    assert torch.equal(x.detach(), before)


@pytest.mark.parametrize(
    ("f", "message"),
    [
        (lambda x: 1 / 0, r"f raised ZeroDivisionError at x \+ h: division by zero"),
        (lambda x: 3.0, "f must return a tensor"),
        (lambda x: x.sum(), "f must work elementwise"),
        (lambda x: x.to(F64), "f must keep the input's dtype"),
    ],
)
def test_a_broken_f_raises_a_lesson_error_that_names_the_fault(f, message):
    """Whatever f does wrong, the caller sees one LessonError saying what."""
    with pytest.raises(LessonError, match=message):
        central_difference(f, torch.ones(3, dtype=F32), 1e-3)


@pytest.mark.parametrize("h", [0.0, -1e-3, float("inf"), float("nan"), "small"])
def test_a_step_that_is_not_finite_and_positive_is_refused(h):
    """h = 0, negative, inf, nan or not a number: an InputError, not a silent inf/nan."""
    with pytest.raises(InputError, match="the step h must be"):
        central_difference(torch.sin, torch.ones(2), h)


@pytest.mark.parametrize("x", [torch.ones(2, dtype=torch.int64), [1.0, 2.0], torch.ones(2) * 1j])
def test_x_that_is_not_a_real_float_tensor_is_refused(x):
    """Integers, lists and complex tensors are refused with a message naming what came in."""
    with pytest.raises(InputError, match="x must be a real floating-point tensor"):
        central_difference(torch.sin, x, 1e-3)


@pytest.mark.parametrize("name", ANALYTIC)
def test_step_errors_follows_the_model_far_from_the_best_step(name):
    """Large h: error ≈ truncation h²|f'''|/6. Tiny h: error within the round-off model's scale."""
    f, df, third = ANALYTIC[name]
    x = 0.7
    big, tiny = 1e-2, 1e-12
    err_big, err_tiny = step_errors(f, df, x, [big, tiny], F64)
    assert err_big == pytest.approx(truncation_error(big, abs(third(x))), rel=0.05)
    f_abs = abs(f(torch.tensor(x, dtype=F64)).item())
    assert err_tiny < 4 * roundoff_error(tiny, F64, f_abs)
    assert err_tiny > 1e-3 * roundoff_error(tiny, F64, f_abs)  # round-off is really there


@pytest.mark.parametrize("dtype", [F32, F64])
def test_step_errors_is_smallest_near_the_best_step(dtype):
    """Over a decade sweep for sin, the minimum sits within a factor 100 of eps^(1/3)."""
    steps = [10.0**-k for k in range(1, 13)]
    errors = step_errors(torch.sin, torch.cos, 1.0, steps, dtype)
    h_min = steps[errors.index(min(errors))]
    assert best_step(dtype) / 100 <= h_min <= best_step(dtype) * 100
    assert min(errors) < 10 * error_model(best_step(dtype), dtype)


def test_best_step_and_model_values():
    """eps^(1/3) per dtype, and the model's minimiser (3 eps)^(1/3) beats its neighbours."""
    assert best_step(F64) == pytest.approx((2.0**-52) ** (1 / 3))
    assert best_step(F32) == pytest.approx((2.0**-23) ** (1 / 3))
    for dtype in (F32, F64):
        h = model_best_step(dtype)
        assert h == pytest.approx((3 * torch.finfo(dtype).eps) ** (1 / 3))
        assert error_model(h, dtype) < error_model(h * 1.1, dtype)
        assert error_model(h, dtype) < error_model(h / 1.1, dtype)


@pytest.mark.parametrize("name", ANALYTIC)
def test_complex_step_is_exact_to_rounding_at_a_tiny_step(name):
    """Im f(x + ih)/h with h = 1e-20 matches f' to a few ulps: no subtraction, no cancellation."""
    # Its truncation error, h**2 |f'''| / 6 ~ 1e-40, hides below rounding except where f' = 0
    # (x**3 at 0 gives -h**2), hence the tiny atol.
    f, df, _ = ANALYTIC[name]
    approx = complex_step(f, POINTS, 1e-20)
    torch.testing.assert_close(approx, df(POINTS), rtol=4 * torch.finfo(F64).eps, atol=1e-39)


def test_complex_step_refuses_code_that_is_not_complex_safe():
    """torch.clamp has no complex kernel: a LessonError saying f is not complex-safe."""
    with pytest.raises(LessonError, match="f is not complex-safe: NotImplementedError: clamp"):
        complex_step(lambda z: torch.clamp(z, max=1.0), POINTS, 1e-20)


def test_directional_difference_is_the_jacobian_times_the_direction():
    """For a non-elementwise f (a matrix product then sin) it matches J u from torch.func."""
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(4, 3, dtype=F64, generator=generator)
    x = torch.randn(3, dtype=F64, generator=generator)
    u = torch.randn(3, dtype=F64, generator=generator)

    def f(t):
        return torch.sin(a @ t)

    _, exact = torch.func.jvp(f, (x,), (u,))
    approx = directional_difference(f, x, u, best_step(F64))
    torch.testing.assert_close(approx, exact, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("direction", [torch.ones(2, dtype=F64), [1.0, 1.0, 1.0]])
def test_a_direction_not_shaped_like_x_is_refused(direction):
    """The direction must be a tensor of x's shape; anything else is an InputError."""
    with pytest.raises(InputError, match="the direction must be a tensor shaped like x"):
        directional_difference(torch.sin, torch.ones(3, dtype=F64), direction, 1e-6)


def test_directional_difference_turns_a_broken_f_into_a_lesson_error():
    """An f that raises is reported with where it was evaluated."""
    with pytest.raises(LessonError, match=r"f raised ValueError at x \+ h u: no"):
        directional_difference(_raise_value_error, torch.ones(2, dtype=F64), torch.ones(2), 1e-3)


def _raise_value_error(t):
    raise ValueError("no")


@pytest.mark.parametrize("dtype", [F32, F64])
def test_torch_cube_is_two_multiplications_so_the_notebooks_table_is_the_same_on_any_cpu(dtype):
    """x**3 equals x * x * x bit for bit: IEEE 754 rounds each product identically everywhere."""
    x = torch.randn(1000, dtype=dtype, generator=torch.Generator().manual_seed(0)) * 10
    assert torch.equal(x**3, x * x * x)
    assert all(torch.equal(t**3, t * t * t) for t in x[:20].split(1))  # the scalar path too


def test_smooth_derivatives_finds_f_second_and_third_where_f_is_smooth():
    assert smooth_derivatives(lambda t: t**3, 2.0) == pytest.approx((12.0, 6.0), rel=1e-6)
    for x in (1000.0, 0.3):  # a large x, where a large stencil step would alias with sin's period
        second, third = smooth_derivatives(torch.sin, x)
        assert second == pytest.approx(-math.sin(x), rel=0.2)
        assert third == pytest.approx(-math.cos(x), rel=0.2)
    assert smooth_derivatives(torch.exp, 40.0)[1] == pytest.approx(math.exp(40.0), rel=0.2)
    assert smooth_derivatives(torch.log, 1e-3)[1] == pytest.approx(2e9, rel=0.2)  # shrinks past 0
    assert smooth_derivatives(lambda t: t**2 + 1e8, 2.0) == pytest.approx((2.0, 0.0), abs=1e-6)
    assert smooth_derivatives(torch.tanh, 18.0) == (0.0, 0.0)  # below round-off: 0


@pytest.mark.parametrize(
    "f", [torch.relu, torch.abs, lambda t: t * t.abs()], ids=["relu", "abs", "x|x|"]
)
def test_smooth_derivatives_refuses_a_kink(f):
    assert smooth_derivatives(f, 0.0) is None
    with pytest.raises(LessonError, match="-2, -1, 0, 1, 2"):
        smooth_derivatives(lambda t: t.sum(), 1.0)
