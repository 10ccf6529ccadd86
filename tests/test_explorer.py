"""explore(): the explorer driven kernel-side, its sliders set and its plotted data read back."""

import base64
import io
import subprocess
import sys

import numpy as np
import pytest
import torch
from IPython.core.formatters import DisplayFormatter
from PIL import Image

from lessons_lib import Clamp, Clamp01, Cube, RoundSTE, explore
from lessons_lib.errors import InputError, NotAFunctionError
from lessons_lib.explorer import HEIGHT, WIDTH, Param, Throttle, encode_png
from lessons_lib.functions import ClippedSTE, SigmoidSpike
from tests.learner_functions import cube, function, save_and, saved

# The exercise's starter mistake: the local derivative without the upstream gradient.
CubeForgetsGradOut = function(
    "CubeForgetsGradOut", save_and(cube), lambda ctx, g: 3 * saved(ctx) ** 2
)
CubeWrongPower = function("CubeWrongPower", save_and(cube), lambda ctx, g: g * 2 * saved(ctx) ** 2)


class OnlyPositive(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        if (x < 0).any():
            raise ValueError("negative input")
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out


class BackwardRaises(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_out):
        raise RuntimeError("forgot to save x\nmore detail")


class Log(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out / x


class TooFewGradients(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out


class Sums(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, grad_out):
        x, w = ctx.saved_tensors
        return grad_out * w, grad_out * x


def artist(ex, gid):
    """The explorer's artist named gid (forward, custom, true, disagree, *_marker, ...)."""
    return next(a for ax in ex.figure.axes for a in ax.get_children() if a.get_gid() == gid)


def curve(ex, gid):
    line = artist(ex, gid)
    return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)


def shaded(ex, x):
    """Which of the x values lie inside the shaded disagreement regions."""
    spans = [
        (p.vertices[:, 0].min(), p.vertices[:, 0].max()) for p in artist(ex, "disagree").get_paths()
    ]
    return np.array([any(lo <= v <= hi for lo, hi in spans) for v in x])


def marker(ex, gid):
    line = artist(ex, f"{gid}_marker")
    return float(line.get_xdata()[0]), float(line.get_ydata()[0])


# --- the plotted data is the Function's forward, backward and the true gradient ----


def test_cube_draws_its_forward_reference_and_equal_gradients_without_shading():
    ex = explore(Cube, x_range=(-2, 2))
    x, forward = curve(ex, "forward")
    assert x[0] == -2 and x[-1] == 2 and len(x) == 401
    np.testing.assert_allclose(forward, x**3)
    np.testing.assert_allclose(curve(ex, "reference")[1], x**3)
    np.testing.assert_allclose(curve(ex, "custom")[1], 3 * x**2)
    np.testing.assert_allclose(curve(ex, "true")[1], 3 * x**2)
    assert not shaded(ex, x).any()
    assert ex.message.value == ""


def test_point_slider_moves_the_markers_and_the_readout_to_the_exact_values():
    ex = explore(Cube, x_range=(-2, 2))
    before = ex.image.value
    ex.point_slider.value = 1.25
    assert marker(ex, "forward") == (1.25, 1.25**3)
    assert marker(ex, "custom") == (1.25, 3 * 1.25**2)
    assert marker(ex, "true") == (1.25, 3 * 1.25**2)
    assert artist(ex, "vline_top").get_xdata()[0] == 1.25
    for text in ["x = 1.25", f"forward = {1.25**3:.4g}", f"= {3 * 1.25**2:.4g}"]:
        assert text in ex.readout.value
    assert ex.image.value != before and bytes(ex.image.value).startswith(b"\x89PNG")


def test_a_point_move_blits_and_a_range_change_redraws_each_panel_once(monkeypatch):
    ex = explore(Cube)
    draws = []
    for ax in ex.figure.axes:
        original = ax.draw
        monkeypatch.setattr(ax, "draw", lambda r, ax=ax, f=original: draws.append(ax) or f(r))
    ex.point_slider.value = 0.7
    assert draws == []
    ex.range_slider.value = (-1.0, 1.0)
    assert draws == ex.figure.axes


def test_range_change_recomputes_on_the_new_grid_and_keeps_the_point_inside():
    ex = explore(Cube, x_range=(-2, 2), point=1.5)
    ex.range_slider.value = (-1.0, 1.0)
    x, forward = curve(ex, "forward")
    assert (x[0], x[-1]) == (-1.0, 1.0)
    np.testing.assert_allclose(forward, x**3)
    assert ex.figure.axes[0].get_xlim() == (-1.0, 1.0)
    assert (ex.point_slider.min, ex.point_slider.max) == (-1.0, 1.0)
    assert marker(ex, "forward") == (1.0, 1.0)


def test_every_frame_has_the_same_size_so_the_page_does_not_jump():
    ex = explore(RoundSTE)
    sizes = {Image.open(io.BytesIO(ex.image.value)).size}
    ex.point_slider.value = -1.1
    sizes.add(Image.open(io.BytesIO(ex.image.value)).size)
    ex.range_slider.value = (-10.0, 10.0)
    sizes.add(Image.open(io.BytesIO(ex.image.value)).size)
    assert sizes == {(WIDTH, HEIGHT)}
    assert ex.image.layout.width == f"{WIDTH}px" and ex.image.layout.height == f"{HEIGHT}px"


# --- a wrong backward is drawn as wrong ---------------------------------------------


def test_backward_that_forgets_grad_out_agrees_at_scale_one_and_fails_to_scale():
    ex = explore(CubeForgetsGradOut, x_range=(-2, 2))
    x, _ = curve(ex, "custom")
    assert not shaded(ex, x).any()  # with grad_out = 1 the mistake is invisible
    ex.scale_slider.value = 2.0
    np.testing.assert_allclose(curve(ex, "custom")[1], 3 * x**2)  # did not scale
    np.testing.assert_allclose(curve(ex, "true")[1], 2 * 3 * x**2, rtol=1e-6, atol=1e-6)
    far_from_zero = np.abs(x) > 0.2  # at x = 0 both are 0: they agree there
    assert shaded(ex, x)[far_from_zero].all()
    assert not shaded(ex, x)[np.abs(x) < 0.05].any()
    assert "grad_out = 2" in ex.readout.value


def test_backward_with_the_wrong_power_is_shaded_wherever_it_differs():
    ex = explore(CubeWrongPower, lambda t: t**3, x_range=(-2, 2))
    x, custom = curve(ex, "custom")
    np.testing.assert_allclose(custom, 2 * x**2)
    np.testing.assert_allclose(curve(ex, "true")[1], 3 * x**2)
    assert shaded(ex, x)[np.abs(x) > 0.2].all()
    assert not shaded(ex, x)[np.abs(x) < 0.05].any()


# --- presets ---------------------------------------------------------------------


def test_round_ste_preset_shows_the_white_lie_everywhere():
    ex = explore(RoundSTE)
    x, forward = curve(ex, "forward")
    np.testing.assert_array_equal(forward, torch.round(torch.from_numpy(x)).numpy())
    np.testing.assert_array_equal(curve(ex, "custom")[1], np.ones_like(x))
    np.testing.assert_array_equal(curve(ex, "true")[1], np.zeros_like(x))
    assert shaded(ex, x).all()
    assert "torch.round" in artist(ex, "true").get_label()


def test_round_ste_caption_says_the_true_gradient_is_undefined_at_the_jumps():
    """The plotted truth is 0 everywhere, so the caption and readout say what it hides."""
    notes = [t.get_text() for t in explore(RoundSTE).figure.texts if t.get_gid() == "note"]
    assert len(notes) == 1
    said = " ".join(notes[0].split())
    assert "0 between the jumps, undefined at them" in said
    assert said in " ".join(explore(RoundSTE).readout.value.replace("&#x27;", "'").split())
    assert not [t for t in explore(RoundSTE, torch.round).figure.texts if t.get_gid() == "note"]
    assert not [t for t in explore(Cube).figure.texts if t.get_gid() == "note"]


def test_clamp01_preset_mask_agrees_with_torch_clamp():
    ex = explore(Clamp01)
    x, custom = curve(ex, "custom")
    mask = ((x >= 0) & (x <= 1)).astype(float)
    np.testing.assert_array_equal(custom, mask)
    np.testing.assert_array_equal(curve(ex, "true")[1], mask)
    assert not shaded(ex, x).any()


def test_clipped_ste_preset_passes_the_gradient_only_inside_one():
    ex = explore(ClippedSTE)
    x, custom = curve(ex, "custom")
    np.testing.assert_array_equal(custom, (np.abs(x) <= 1).astype(float))
    np.testing.assert_array_equal(curve(ex, "true")[1], np.zeros_like(x))
    np.testing.assert_array_equal(curve(ex, "forward")[1], np.where(x >= 0, 1.0, -1.0))


def test_spike_preset_has_a_slope_slider_that_reshapes_the_surrogate():
    ex = explore(SigmoidSpike)
    ex.param_sliders["slope"].value = 10.0
    x, custom = curve(ex, "custom")
    s = 1 / (1 + np.exp(-10.0 * x))
    np.testing.assert_allclose(custom, 10.0 * s * (1 - s))
    np.testing.assert_array_equal(curve(ex, "true")[1], np.zeros_like(x))
    np.testing.assert_array_equal(curve(ex, "forward")[1], (x > 0).astype(float))


def test_clamp_preset_holds_lo_and_hi_with_sliders_and_passes_numbers_through():
    ex = explore(Clamp)
    ex.param_sliders["lo"].value = -0.5
    x, custom = curve(ex, "custom")
    mask = ((x >= -0.5) & (x <= 1.0)).astype(float)
    np.testing.assert_array_equal(custom, mask)
    np.testing.assert_array_equal(curve(ex, "true")[1], mask)
    np.testing.assert_allclose(curve(ex, "forward")[1], np.clip(x, -0.5, 1.0))


def test_several_tensor_inputs_vary_the_chosen_one_and_hold_the_rest():
    ex = explore(Mul, lambda x, w: x * w, vary=1, hold=(torch.tensor(3.0),))
    x, forward = curve(ex, "forward")
    np.testing.assert_allclose(forward, 3.0 * x)  # Mul.apply(3.0, w) with w along x
    np.testing.assert_allclose(curve(ex, "custom")[1], np.full_like(x, 3.0))
    np.testing.assert_allclose(curve(ex, "true")[1], np.full_like(x, 3.0))
    labels = [t.get_text() for t in ex.figure.texts]
    assert any("input 1 of Mul" in label for label in labels)


# --- where the true gradient comes from --------------------------------------------


def test_without_a_reference_the_truth_is_a_finite_difference_of_the_forward():
    ex = explore(CubeWrongPower, x_range=(-2, 2))
    x, true = curve(ex, "true")
    np.testing.assert_allclose(true, 3 * x**2, atol=1e-6)
    assert "finite differences" in artist(ex, "true").get_label()
    assert artist(ex, "true").get_linestyle() == ":"


def test_grad_reference_gives_the_intended_backward_and_is_scaled():
    ex = explore(CubeForgetsGradOut, grad_reference=lambda t, g: g * 3 * t**2, scale=-1.5)
    x, true = curve(ex, "true")
    np.testing.assert_allclose(true, -1.5 * 3 * x**2)
    np.testing.assert_allclose(curve(ex, "custom")[1], 3 * x**2)


def test_a_straight_through_grad_reference_means_the_same_as_in_check_function():
    """grad_reference(*inputs, grad_out) is the intended backward in both helpers."""
    ex = explore(RoundSTE, torch.round, grad_reference=lambda t, g: g, scale=2.0)
    x, intended = curve(ex, "true")
    np.testing.assert_allclose(intended, np.full_like(x, 2.0))
    assert not shaded(ex, x).any()
    assert "intended gradient" in artist(ex, "true").get_label()


# --- the static fallback -------------------------------------------------------------


def test_display_bundle_holds_a_png_beside_the_widget_view_and_stable_text():
    bundle, _ = DisplayFormatter().format(explore(RoundSTE))
    assert "application/vnd.jupyter.widget-view+json" in bundle
    png = base64.b64decode(bundle["image/png"])
    assert Image.open(io.BytesIO(png)).size == (WIDTH, HEIGHT)
    other, _ = DisplayFormatter().format(explore(RoundSTE))
    assert bundle["text/plain"] == other["text/plain"]
    assert "RoundSTE" in bundle["text/plain"] and "0x" not in bundle["text/plain"]
    assert repr(explore(Cube)) == "<gradient explorer for Cube>"


def test_png_encoder_round_trips_every_pixel():
    rgba = np.random.default_rng(0).integers(0, 256, (7, 5, 4), dtype=np.uint8)
    decoded = np.asarray(Image.open(io.BytesIO(encode_png(rgba, 1))).convert("RGB"))
    np.testing.assert_array_equal(decoded, rgba[:, :, :3])


# --- bad input: clear exceptions at call time -------------------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize(
    ("fn", "says"),
    [
        (lambda: Cube.apply, "explore(Cube), not .apply"),
        (lambda: Cube(), "explore(Cube), not an instance"),
        (lambda: torch.round, "torch.autograd.Function subclass"),
        (lambda: "Cube", "torch.autograd.Function subclass"),
    ],
)
def test_a_non_function_is_refused_in_plain_words(fn, says):
    """fn is made inside the test: torch warns as soon as a Function is instantiated."""
    with pytest.raises(NotAFunctionError) as refused:
        explore(fn())
    assert says in str(refused.value)


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"x_range": (2, 1)}, "low < high"),
        ({"x_range": "wide"}, "two numbers"),
        ({"reference": 3}, "must be a function"),
        ({"vary": 2}, "does not name one of"),
        ({"hold": (torch.ones(3),)}, "one number"),
        ({"hold": (1.0,), "params": (Param(1, "k", 2.0, 3.0),)}, "between 2.0 and 3.0"),
        ({"hold": (1.0,), "params": (Param(0, "k", 0.0, 3.0),)}, "naming a held input"),
        ({"samples": 2}, "at least 3"),
        ({"scale": float("nan")}, "finite number"),
    ],
)
def test_bad_arguments_are_refused_with_what_to_do(kwargs, says):
    with pytest.raises(InputError, match=says):
        explore(Mul, **kwargs)


# --- bad learner code: a message in the widget, never a dead widget --------------------


def test_forward_that_raises_shows_a_message_keeps_sliders_alive_and_recovers():
    ex = explore(OnlyPositive, x_range=(-1, 1))
    assert "forward raised ValueError: negative input" in ex.message.value
    assert "explorer-error" in ex.message._dom_classes
    assert np.isnan(curve(ex, "forward")[1]).all()
    ex.point_slider.value = 0.5  # still answers
    assert "forward = —" in ex.readout.value
    ex.range_slider.value = (0.5, 1.0)  # a range where forward works
    assert ex.message.value == "" and "explorer-error" not in ex.message._dom_classes
    x, forward = curve(ex, "forward")
    np.testing.assert_allclose(forward, x**3)


def test_backward_that_raises_keeps_the_forward_and_names_the_error_in_one_line():
    ex = explore(BackwardRaises)
    assert "backward raised RuntimeError: forgot to save x" in ex.message.value
    assert "more detail" not in ex.message.value
    x, forward = curve(ex, "forward")
    np.testing.assert_allclose(forward, 2 * x)
    assert np.isnan(curve(ex, "custom")[1]).all()


def test_nan_and_inf_are_reported_and_left_out_of_the_plot():
    ex = explore(Log, torch.log, x_range=(-1, 1))
    assert "NaN or inf" in ex.message.value
    x, forward = curve(ex, "forward")
    assert np.isnan(forward[x <= 0]).all()
    np.testing.assert_allclose(forward[x > 0], np.log(x[x > 0]))
    low, high = ex.figure.axes[0].get_ylim()
    assert np.isfinite([low, high]).all()


@pytest.mark.parametrize(
    ("fn", "hold", "says"),
    [
        (TooFewGradients, (2.0,), "returned 1 value(s) for 2 forward input(s)"),
        (Sums, (), "plots element-wise Functions"),
    ],
)
def test_backward_or_forward_of_the_wrong_shape_is_explained(fn, hold, says):
    ex = explore(fn, hold=hold)
    assert says in ex.message.value


def test_explore_leaves_torch_global_state_alone():
    torch.manual_seed(0)
    expected = torch.rand(2)
    torch.manual_seed(0)
    ex = explore(SigmoidSpike)
    ex.range_slider.value = (-1.0, 1.0)
    assert torch.equal(torch.rand(2), expected)
    assert torch.get_default_dtype() == torch.float32 and torch.is_grad_enabled()


# --- throttling: events that arrive while busy are coalesced ------------------------


class FakeTime:
    """A clock the test moves by hand, and a scheduler that keeps callbacks for later."""

    def __init__(self):
        self.now = 0.0
        self.scheduled = []

    def clock(self):
        return self.now

    def schedule(self, delay, callback):
        self.scheduled.append((self.now + delay, callback))
        return True

    def run_due(self):
        due = [c for t, c in self.scheduled if t <= self.now]
        self.scheduled = [(t, c) for t, c in self.scheduled if t > self.now]
        for callback in due:
            callback()


def test_throttle_runs_once_then_coalesces_a_burst_into_one_trailing_run_of_the_latest():
    fake, state, seen = FakeTime(), {"value": 0}, []
    throttle = Throttle(lambda: seen.append(state["value"]), 0.03, fake.clock, fake.schedule)
    state["value"] = 1
    throttle.request()
    for value in range(2, 12):  # a drag: ten events within the interval
        fake.now += 0.001
        state["value"] = value
        throttle.request()
    assert seen == [1] and len(fake.scheduled) == 1
    fake.now = 0.05
    fake.run_due()
    assert seen == [1, 11]  # only the newest value drawn, the stale ones skipped
    fake.now = 1.0
    state["value"] = 12
    throttle.request()  # after a pause the next event draws at once
    assert seen == [1, 11, 12] and fake.scheduled == []


def test_throttle_measures_the_interval_from_the_end_of_a_slow_run():
    fake, runs = FakeTime(), []

    def slow_draw():
        runs.append(fake.now)
        fake.now += 0.1  # a draw slower than the interval

    throttle = Throttle(slow_draw, 0.03, fake.clock, fake.schedule)
    throttle.request()
    throttle.request()  # queued behind the slow draw: must not draw again straight away
    assert runs == [0.0] and len(fake.scheduled) == 1


def test_throttle_without_an_event_loop_runs_every_request_at_once():
    seen = []
    throttle = Throttle(lambda: seen.append(1), interval=60.0)
    throttle.request()
    throttle.request()
    assert seen == [1, 1]


# --- no pyplot, and the benchmark script runs ---------------------------------------


def run_python(*args):
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=True, timeout=300
    ).stdout


def test_explorer_never_touches_pyplot_so_nothing_leaks_into_inline_plots():
    out = run_python(
        "-c",
        "import sys, lessons_lib; lessons_lib.explore(lessons_lib.Cube); "
        "print('matplotlib.pyplot' in sys.modules)",
    )
    assert out.strip() == "False"


def test_benchmark_script_runs_and_prints_both_ratios():
    out = run_python("-m", "benchmarks.explorer", "--repeat", "1")
    for text in ["point move", "range change", "speed-up", ">= 5x", ">= 1.5x", "PNG frame"]:
        assert text in out
