"""gradient/widget: the explorer driven from Python, as the kernel sees a learner's sliders."""

import base64
import io

import numpy as np
import pytest
import torch
from IPython.core.formatters import DisplayFormatter
from PIL import Image

from lessons_lib import Cube, RoundSTE, explore
from lessons_lib.explorers.drawing import HEIGHT, WIDTH
from lessons_lib.functions import SigmoidSpike
from tests.explorers.gradient.test_curves import BackwardRaises, OnlyPositive


def test_point_slider_steps_fall_on_the_samples_so_every_readout_is_exact():
    ex = explore(RoundSTE)
    lo, step = ex.point_slider.min, ex.point_slider.step
    assert [ex.curves.index_of(lo + k * step) for k in range(401)] == list(range(401))
    ex.range_slider.value = (-1.0, 3.0)
    lo, step = ex.point_slider.min, ex.point_slider.step
    assert (lo, ex.point_slider.max) == (-1.0, 3.0)
    assert [ex.curves.index_of(lo + k * step) for k in range(401)] == list(range(401))
    assert (ex.point_box.min, ex.point_box.max, ex.point_box.step) == (-1.0, 3.0, step)


def test_the_point_starts_on_a_sample_and_keeps_a_value_that_already_is_one():
    assert explore(Cube, x_range=(-2, 2)).point_slider.value == 0.4  # sample 240, as given
    ex = explore(Cube, x_range=(-3, 3))  # steps of 0.015: 0.4 falls between two samples
    assert ex.point_slider.value == pytest.approx(0.405) and ex.picture.exact == {}


def test_a_point_move_sends_nothing_and_reads_its_values_from_the_samples(monkeypatch):
    ex = explore(Cube, x_range=(-2, 2))
    sent = []
    monkeypatch.setattr(ex.picture, "send_state", lambda key=None: sent.append(key))
    ex.point_slider.value = 1.25
    assert sent == []  # the browser draws the move; the kernel only learns the value
    assert ex.point_values() == {
        "x": 1.25,
        "forward": 1.25**3,
        "custom": 3 * 1.25**2,
        "true": 3 * 1.25**2,
        "differ": False,
    }


def test_a_point_between_samples_gets_its_exact_values_from_the_kernel():
    ex = explore(Cube, x_range=(-2, 2))
    ex.point_slider.value = 0.503
    exact = ex.picture.exact
    assert exact["x"] == 0.503 and exact["revision"] == ex.picture.meta["revision"]
    assert exact["forward"] == pytest.approx(0.503**3)
    assert exact["custom"] == pytest.approx(3 * 0.503**2) and exact["differ"] is False
    ex.point_slider.value = 0.5
    assert ex.picture.exact == {}


def test_a_range_change_sends_new_curves_with_what_they_were_measured_with():
    ex = explore(Cube, x_range=(-2, 2), point=1.5)
    ex.range_slider.value = (-1.0, 1.0)
    meta = ex.picture.meta
    assert meta["revision"] == 2 and meta["inputs"] == [(-1.0, 1.0), 1.0]
    assert meta["panels"][0]["x"] == [-1.0, 1.0]
    assert (ex.curves.x[0], ex.curves.x[-1]) == (-1.0, 1.0)
    np.testing.assert_allclose(ex.curves.forward, ex.curves.x**3)
    assert ex.point_slider.value == 1.0  # clamped into the new range
    assert ex.point_values()["forward"] == 1.0


def test_scale_and_parameter_sliders_remeasure_and_say_so_in_the_inputs():
    ex = explore(SigmoidSpike)
    ex.param_sliders["slope"].value = 10.0
    ex.scale_slider.value = -2.0
    assert ex.picture.meta["inputs"] == [(-2.0, 2.0), -2.0, 10.0]
    s = 1 / (1 + np.exp(-10.0 * ex.curves.x))
    np.testing.assert_allclose(ex.curves.custom, -2.0 * 10.0 * s * (1 - s))


def test_every_slider_has_a_number_box_with_its_value_bounds_and_step():
    ex = explore(SigmoidSpike)
    pairs = [
        (ex.point_slider, ex.point_box),
        (ex.scale_slider, ex.scale_box),
        (ex.param_sliders["slope"], ex.param_boxes["slope"]),
    ]
    for slider, box in pairs:
        assert (box.value, box.min, box.max, box.step) == (
            slider.value,
            slider.min,
            slider.max,
            slider.step,
        )
    assert (ex.low_box.value, ex.high_box.value) == ex.range_slider.value
    boxes = ex.picture.controls["boxes"]
    assert [len(b) for b in boxes] == [2, 3, 2, 2]  # the range slider has a box for each end
    assert boxes[1] == [ex.range_slider, ex.low_box, ex.high_box]
    assert ex.picture.controls["point"] is ex.point_slider


def test_the_picture_names_what_it_shows_for_the_readout_and_text_alternative():
    style = explore(RoundSTE).picture.picture_style
    assert style["name"] == "RoundSTE"
    assert style["labels"] == {
        "forward": "forward",
        "custom": "RoundSTE's backward",
        "true": "true gradient",
    }
    assert "0 between the jumps, undefined at them" in style["note"]
    intended = explore(RoundSTE, torch.round, grad_reference=lambda t, g: g).picture.picture_style
    assert intended["labels"]["true"] == "intended gradient" and intended["note"] == ""


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


def test_the_text_beside_the_static_picture_says_what_it_shows_at_which_x_and_the_verdict():
    assert explore(RoundSTE).summary == (
        "Gradient explorer for RoundSTE on [-2.5, 2.5]: forward on top, backward against the "
        "true gradient below (grad_out = 1), at x = 0.4: forward 0.00; backward 1.00 and the "
        "true gradient 0.00 disagree."
    )
    cube = explore(Cube, point=1.5, scale=2.0)
    assert cube.summary.endswith(
        "(grad_out = 2), at x = 1.5: forward 3.38; backward 13.50 and the true gradient "
        "13.50 agree."
    )
    cube.point_slider.value = 0.515  # between samples: measured there, as the picture shows
    assert cube.curves.index_of(0.515) is None
    assert "at x = 0.515: forward 0.14; backward 1.59" in cube.summary
    straight = explore(RoundSTE, torch.round, grad_reference=lambda t, g: g)
    assert straight.summary.endswith("backward 1.00 and the intended gradient 1.00 agree.")
    broken = explore(OnlyPositive, x_range=(-1, 1))
    assert broken.summary.endswith(f"nothing to compare, as {broken.curves.failure}.")


def test_the_static_picture_shows_the_current_point():
    ex = explore(Cube, x_range=(-2, 2))
    before = ex.png()
    ex.point_slider.value = 1.25
    after = ex.png()
    assert before != after and after.startswith(b"\x89PNG")
    marker = next(a for a in ex.plot.figure.axes[0].get_lines() if a.get_gid() == "forward_marker")
    assert (marker.get_xdata()[0], marker.get_ydata()[0]) == (1.25, 1.25**3)


# --- bad learner code: a message in the widget, never a dead widget --------------------


def test_forward_that_raises_shows_a_message_keeps_sliders_alive_and_recovers():
    ex = explore(OnlyPositive, x_range=(-1, 1))
    assert "forward raised ValueError: negative input" in ex.message.value
    assert "explorer-error" in ex.message._dom_classes
    ex.point_slider.value = 0.5  # still answers
    assert np.isnan(ex.point_values()["forward"])
    assert ex.png().startswith(b"\x89PNG")
    ex.range_slider.value = (0.5, 1.0)  # a range where forward works
    assert ex.message.value == "" and "explorer-error" not in ex.message._dom_classes
    np.testing.assert_allclose(ex.curves.forward, ex.curves.x**3)


def test_backward_that_raises_is_named_in_the_message():
    ex = explore(BackwardRaises)
    assert "backward raised RuntimeError: forgot to save x" in ex.message.value
    assert "more detail" not in ex.message.value


def test_an_empty_range_says_to_widen_it_and_the_point_is_unknown():
    ex = explore(Cube)
    ex.range_slider.value = (1.0, 1.0)
    assert "the x range is empty: widen it" in ex.message.value
    assert ex.picture.exact["forward"] is None
