"""steps/widget: explore_steps' widget, driven from Python as the kernel sees a learner's sliders."""

import base64
import io
import json

import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter
from PIL import Image

from lessons_lib import Cube, Square
from lessons_lib.explorers.drawing import HEIGHT, WIDTH
from lessons_lib.explorers.steps.curves import STEPS, measure_step
from lessons_lib.explorers.steps.explore import explore_steps
from tests.explorers.steps.test_curves import TypoCube
from tests.explorers.steps.test_explore import OnlyPositive


def rows(data):
    return np.frombuffer(data, "<f8").reshape(3, -1)


def test_the_picture_holds_every_steps_errors_and_what_they_were_measured_at():
    ex = explore_steps(Cube, 2.0)
    h, f32, f64 = rows(ex.picture.samples)
    np.testing.assert_array_equal(h, STEPS)
    np.testing.assert_array_equal(f32, ex.curves.errors["float32"])
    np.testing.assert_array_equal(f64, ex.curves.errors["float64"])
    meta = ex.picture.meta
    assert meta["inputs"] == [2.0] and meta["point"] == 2.0 and meta["revision"] == 1
    assert meta["best"] == ex.curves.best and meta["panels"][0]["scale"] == ["log", "log"]
    json.dumps(meta, allow_nan=False)  # strict JSON: the browser's parser has no NaN
    style = ex.picture.picture_style
    assert (style["kind"], style["rows"], style["keys"]) == (
        "steps",
        ["x", "float32", "float64"],
        ["float32", "float64"],
    )
    assert style["xscale"] == "log" and "Cube's backward" in style["note"]


def test_the_h_slider_stops_on_the_samples_and_starts_on_one():
    ex = explore_steps(Cube, 2.0, h=0.003)  # snapped to the nearest stop, 10 ** -2.5
    assert ex.step_slider.value == pytest.approx(10**-2.5)
    assert (ex.step_slider.min, ex.step_slider.max, ex.step_slider.step) == (-15, 0, 0.25)
    assert ex.curves.index_of(ex.step_slider.value) == 10


def test_a_step_move_sends_nothing_and_a_typed_step_gets_its_exact_errors(monkeypatch):
    ex = explore_steps(Cube, 2.0)
    sent = []
    monkeypatch.setattr(ex.picture, "send_state", lambda key=None: sent.append(key))
    ex.step_slider.value = float(STEPS[20])
    assert sent == []  # the browser draws the move from the samples
    assert ex.point_values() == ex.curves.at(20)
    monkeypatch.undo()
    ex.step_slider.value = 3e-3
    exact = ex.picture.exact
    expected = measure_step(ex.setup, 2.0, 3e-3)
    assert exact == {
        "revision": 1,
        "x": 3e-3,
        "float32": expected["float32"],
        "float64": expected["float64"],
    }


def test_moving_x_remeasures_and_says_so():
    ex = explore_steps(Cube, 2.0)
    ex.x_slider.value = 0.5
    assert ex.picture.meta["revision"] == 2 and ex.picture.meta["inputs"] == [0.5]
    assert ex.curves.value == 0.125 and ex.curves.slope == 0.75


def test_every_slider_has_a_number_box():
    ex = explore_steps(Cube, 2.0, x_range=(-3, 3))
    assert ex.step_box.value == ex.step_slider.value
    assert (ex.step_box.min, ex.step_box.max) == (STEPS[-1], 1.0)
    assert (ex.x_box.min, ex.x_box.max, ex.x_box.value) == (-3, 3, 2.0)
    assert ex.picture.controls["boxes"] == [[ex.step_slider, ex.step_box], [ex.x_slider, ex.x_box]]


def test_display_bundle_holds_a_png_of_the_current_step_beside_the_widget_view():
    ex = explore_steps(Cube, 2.0)
    bundle, _ = DisplayFormatter().format(ex)
    assert "application/vnd.jupyter.widget-view+json" in bundle
    png = base64.b64decode(bundle["image/png"])
    assert Image.open(io.BytesIO(png)).size == (WIDTH, HEIGHT)
    assert bundle["text/plain"] == (
        "Step-size explorer for Cube at x = 2: the error of a central difference against "
        "Cube's backward for steps h from 1 to 1e-15, in float32 and float64, on log scales, "
        "at h = 1e-04. Best steps: float32 about 1e-02, float64 about 2e-05. At h = 1e-04 "
        "each error is within 10 times the model's estimate."
    )
    assert repr(ex) == "<step-size explorer for Cube>"
    ex.step_slider.value = float(STEPS[40])
    assert ex.png() != png


def test_the_text_beside_the_static_picture_names_a_floor_and_the_rule_of_thumb():
    typo = explore_steps(TypoCube, 3.0)  # backward says 18 where the slope is 27
    assert typo.summary.endswith(
        "At h = 1e-04 the float32 and float64 errors are more than 10 times the model's "
        "estimate: something else dominates, such as a wrong backward."
    )
    square = explore_steps(Square, 2.0)  # the third derivative is 0: the model has no optimum
    rule = "float32 about 5e-03 (the rule of thumb ε^(1/3)), float64 about 6e-06"
    assert f"Best steps: {rule} (the rule of thumb" in square.summary
    broken = explore_steps(OnlyPositive, -1.0)
    assert broken.summary.endswith(f"Nothing was measured, as {broken.curves.failure}.")


def test_a_broken_function_shows_its_message_and_the_sliders_still_work():
    ex = explore_steps(OnlyPositive, -1.0)
    assert "forward raised ValueError: negative input" in ex.message.value
    assert "explorer-error" in ex.message._dom_classes
    ex.step_slider.value = 3e-3  # still answers, with unknown errors
    assert np.isnan(ex.point_values()["float32"])
    assert ex.png().startswith(b"\x89PNG")
    assert ex.picture.meta["best"] == {}
    ex.x_slider.value = 2.0  # a point where forward works
    assert ex.message.value == "" and ex.curves.slope == 12.0
