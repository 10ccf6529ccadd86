"""Saved-bytes and peak-memory measurements against known answers; timing helpers run sanely."""

from functools import partial

import pytest
import torch
import torch.utils.checkpoint

from lessons_lib import measure
from lessons_lib.functions import Cube
from lessons_lib.measure import (
    Overhead,
    Saved,
    forward_backward,
    overhead,
    peak_memory,
    saved_for_backward,
    seconds_per_call,
)
from lessons_lib.research import (
    Exp,
    FixedPointTanh,
    TanhStackRecompute,
    TanhStackSaved,
    fixed_point_unrolled,
    tanh_blocks,
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


def test_excluded_inputs_are_not_counted_even_through_a_view():
    x = leaf(1000)
    assert saved_for_backward(lambda: Cube.apply(x), exclude=(x,)) == Saved(0, 0)
    assert saved_for_backward(lambda: TanhStackRecompute.apply(x, 8), exclude=(x,)) == Saved(0, 0)
    assert saved_for_backward(lambda: Cube.apply(x[:10]), exclude=(x,)) == Saved(0, 0)
    assert saved_for_backward(lambda: TanhStackSaved.apply(x, 3), exclude=(x,)) == Saved(3, 12000)


def test_reentrant_checkpoint_saves_only_its_input_as_the_recompute_function_does():
    x = leaf(1000)
    measured = saved_for_backward(
        lambda: torch.utils.checkpoint.checkpoint(tanh_stack, x, 8, use_reentrant=True)
    )
    assert measured == saved_for_backward(lambda: TanhStackRecompute.apply(x, 8)) == Saved(1, 4000)


def test_the_meter_is_blind_inside_other_saved_tensor_hooks():
    """save_on_cpu keeps a copy of all 8 outputs, yet the meter reads nothing beyond x."""
    x = leaf(1000)

    def offloaded():
        with torch.autograd.graph.save_on_cpu():
            return tanh_stack(x, 8)

    assert saved_for_backward(lambda: tanh_stack(x, 8), exclude=(x,)) == Saved(8, 32000)
    assert saved_for_backward(offloaded, exclude=(x,)) == Saved(0, 0)


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


def test_overhead_times_every_size_and_both_ops_in_one_interleaved_run(monkeypatch):
    """One seconds_per_call for all runs, so a busy moment hits every size alike."""
    calls = []

    def fake(runs, repeat, target):
        calls.append(len(runs))
        return [float(i + 1) for i in range(len(runs))]

    monkeypatch.setattr(measure, "seconds_per_call", fake)
    rows = overhead(Exp.apply, torch.exp, [1, 10, 100], repeat=3)
    assert calls == [6]
    assert [(r.size, r.custom, r.builtin) for r in rows] == [(1, 1, 2), (10, 3, 4), (100, 5, 6)]


MIB = 2**20
PEAK_SIZE = MIB // 4  # float32 elements: one tensor of this size is 1 MiB


@pytest.fixture(scope="module")
def peaks():
    """Peak memory of one deep block and of eight stacked blocks, saving or recomputing."""
    fns = {
        "one saved": partial(tanh_blocks, blocks=1, depth=16, block=TanhStackSaved.apply),
        "one recompute": partial(tanh_blocks, blocks=1, depth=16, block=TanhStackRecompute.apply),
        "eight saved": partial(tanh_blocks, blocks=8, depth=4, block=TanhStackSaved.apply),
        "eight recompute": partial(tanh_blocks, blocks=8, depth=4, block=TanhStackRecompute.apply),
        "autograd 16": partial(tanh_stack, depth=16),
    }
    measured = peak_memory(list(fns.values()), PEAK_SIZE)
    if measured is None:
        pytest.skip("peak_memory needs os.fork and resource")
    return dict(zip(fns, (m / MIB for m in measured), strict=True))


def test_peak_memory_counts_the_tensors_alive_at_the_worst_moment(peaks):
    """Autograd of 16 tanh layers holds 16 outputs, then gradients and x.grad: 16 to 20 MiB."""
    assert 16 <= peaks["autograd 16"] <= 20


def test_a_single_recompute_block_has_no_lower_peak_than_saving(peaks):
    assert peaks["one recompute"] >= 0.9 * peaks["one saved"]


def test_stacked_recompute_blocks_lower_the_peak(peaks):
    """8 blocks of 4: saving holds 32 outputs; recomputing holds 8 block outputs plus 4."""
    assert peaks["eight recompute"] < 0.5 * peaks["eight saved"]
    assert 32 <= peaks["eight saved"] <= 37


def test_peak_memory_reports_a_failure_in_the_measured_function():
    with pytest.raises(RuntimeError, match="failed"):
        peak_memory([partial(torch.reshape, shape=(3, 3))], 10)
