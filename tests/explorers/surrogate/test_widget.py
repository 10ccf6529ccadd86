"""surrogate/widget: the sliders, the picker and what the picture and its text say."""

import base64
import html

import numpy as np
import pytest

from lessons_lib import explore_surrogate
from lessons_lib.explorers.surrogate.curves import KEYS, ROWS
from lessons_lib.surrogate_gradients import SHAPES
from tests.explorers.surrogate.test_curves import BrokenSpike, OwnSpike


def test_the_shape_picker_changes_the_drawn_curve_and_says_it_is_an_input():
    ex = explore_surrogate()
    before, revision = ex.curves.family.copy(), ex.picture.meta["revision"]
    png = ex.picture.background
    ex.shape_picker.value = "triangle"  # outside an event loop the update runs at once
    assert ex.picture.meta["revision"] == revision + 1
    assert not np.allclose(ex.curves.family, before)
    assert ex.picture.meta["shape"] == "triangle"
    # the picker's index, as its front end syncs it (not its value): the page compares these
    assert ex.picture.meta["inputs"][-1] == ex.shape_picker.index == SHAPES.index("triangle")
    assert ex.picture.background != png
    assert "triangle bump" in ex.summary


@pytest.mark.parametrize(("slider", "value"), [("threshold_slider", 0.5), ("width_slider", 1.0)])
def test_threshold_and_width_remeasure_the_curves(slider, value):
    ex = explore_surrogate()
    revision = ex.picture.meta["revision"]
    getattr(ex, slider).value = value
    assert ex.picture.meta["revision"] == revision + 1 and value in ex.picture.meta["inputs"]


def test_every_slider_has_a_number_box_and_the_picker_is_a_control_row():
    ex = explore_surrogate()
    rows = ex.children[2:]
    assert len(rows) == 4
    for row in rows[:3]:
        slider, box = row.children
        assert box.value == slider.value and box.min == slider.min and box.max == slider.max
    assert rows[3].children == (ex.shape_picker,)
    assert ex.picture.controls["inputs"][-1] is ex.shape_picker


def test_the_point_slider_steps_on_the_samples():
    ex = explore_surrogate()
    assert ex.curves.index_of(ex.point_slider.value) is not None
    ex.point_slider.value = ex.point_slider.value + ex.point_slider.step
    assert ex.picture.exact == {}  # on a sample: the browser reads it, nothing is measured


def test_the_picture_style_names_the_rows_keys_and_the_words_the_browser_writes():
    style = explore_surrogate(OwnSpike).picture.picture_style
    assert style["kind"] == "surrogate" and style["rows"] == list(ROWS)
    assert style["keys"] == list(KEYS) and style["labels"]["backward"] == "OwnSpike's backward"


def test_the_display_bundle_holds_a_png_and_stable_text():
    bundle = explore_surrogate()._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    text = bundle["text/plain"]
    assert "At x = 0.25: forward 1.00, backward 0.44, the fast-sigmoid bump 0.44" in text
    assert "true gradient 0.00" in text


def test_a_broken_learner_function_shows_a_message_not_a_traceback():
    ex = explore_surrogate(BrokenSpike)
    assert "explorer-error" in ex.message._dom_classes
    message = html.unescape(ex.message.value)
    assert "BrokenSpike's backward" in message and "Traceback" not in message
    assert "nothing to compare" in ex.summary
    ex.shape_picker.value = "sigmoid"  # the controls still work
    assert ex.picture.meta["shape"] == "sigmoid"


def test_a_right_learner_function_is_measured_and_compared():
    ex = explore_surrogate(OwnSpike, shape="triangle", threshold=0.5, width=1.0)
    assert ex.message.value == ""
    np.testing.assert_allclose(ex.curves.backward, ex.curves.family, atol=1e-12)
    assert "OwnSpike" in ex.summary


@pytest.mark.parametrize("threshold", [0.0, 0.5, -1.3])
def test_the_point_on_the_threshold_reads_the_step_fired(threshold):
    """The samples are exact decimals: at the threshold the point is the threshold itself
    (linspace alone put [-2, 2]'s middle at -4e-17, where the step read 0)."""
    explorer = explore_surrogate(threshold=threshold)
    explorer.point_slider.value = threshold
    at = explorer.point_values()
    assert at["x"] == threshold and at["forward"] == 1.0
    assert np.isnan(at["true"])
