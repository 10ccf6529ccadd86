"""Saved-bytes measurement against known saves; the timing helpers run and return sane numbers."""

import torch
import torch.utils.checkpoint

from lessons_lib.functions import Cube
from lessons_lib.measure import (
    Overhead,
    Saved,
    forward_backward,
    overhead,
    saved_for_backward,
    seconds_per_call,
)
from lessons_lib.research import (
    Exp,
    FixedPointTanh,
    TanhStackRecompute,
    TanhStackSaved,
    fixed_point_unrolled,
    tanh_stack,
)


def leaf(n, dtype=torch.float32):
    return torch.randn(n, dtype=dtype).requires_grad_(True)


def test_nothing_saved_without_grad():
    x = leaf(10)
    with torch.no_grad():
        assert saved_for_backward(lambda: x**3) == Saved(0, 0)


def test_cube_saves_exactly_what_the_builtin_power_saves():
    x = leaf(1000)
    assert saved_for_backward(lambda: Cube.apply(x)) == Saved(1, 4000)
    assert saved_for_backward(lambda: x**3) == Saved(1, 4000)


def test_a_storage_saved_twice_is_counted_once():
    x = leaf(100, torch.float64)
    assert saved_for_backward(lambda: x * x) == Saved(2, 800)


def test_save_everything_grows_with_depth_and_recompute_does_not():
    x = leaf(1000)
    for depth in (1, 4, 8):
        assert saved_for_backward(lambda d=depth: TanhStackSaved.apply(x, d)) == Saved(
            depth, depth * 4000
        )
        assert saved_for_backward(lambda d=depth: TanhStackRecompute.apply(x, d)) == Saved(1, 4000)


def test_checkpoint_saves_what_the_recompute_function_saves():
    x = leaf(1000)
    measured = saved_for_backward(
        lambda: torch.utils.checkpoint.checkpoint(tanh_stack, x, 8, use_reentrant=False)
    )
    assert measured.nbytes == 4000


def test_implicit_layer_saves_the_same_bytes_whatever_the_iteration_count():
    x = torch.randn(8, 4, dtype=torch.float64, requires_grad=True)
    w = (0.1 * torch.randn(4, 4, dtype=torch.float64)).requires_grad_(True)
    expected = Saved(2, 8 * 4 * 8 + 4 * 4 * 8)  # z* and W
    for iterations in (5, 50):
        assert saved_for_backward(lambda i=iterations: FixedPointTanh.apply(x, w, 0.0, i)) == (
            expected
        )
    few = saved_for_backward(lambda: fixed_point_unrolled(x, w, 5)).nbytes
    many = saved_for_backward(lambda: fixed_point_unrolled(x, w, 50)).nbytes
    assert many > 5 * few


def test_seconds_per_call_returns_one_positive_time_per_run():
    times = seconds_per_call([lambda: None, lambda: sum(range(100))], repeat=2, target=0.001)
    assert len(times) == 2 and all(t > 0 for t in times)


def test_forward_backward_returns_the_gradient():
    x = torch.tensor([0.0, 1.0])
    torch.testing.assert_close(forward_backward(torch.exp, x)(), torch.exp(x))


def test_overhead_runs_and_reports_a_ratio():
    rows = overhead(Exp.apply, torch.exp, [1, 10], repeat=1)
    assert [r.size for r in rows] == [1, 10]
    assert all(isinstance(r, Overhead) and r.ratio > 0 for r in rows)
