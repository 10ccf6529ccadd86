"""The front end (front/*.js) in Chromium: its pure functions agree with the kernel's Python, value by value.

The module is imported into a blank page from a data: URL (it imports nothing itself),
so these run in a second, without JupyterLab.
"""

import base64
import json
import math
import random

import numpy as np
import pytest

from lessons_lib import explore_surrogate
from lessons_lib.explorers.drawing import Size
from lessons_lib.explorers.gradient.curves import KEYS, Curves, grid
from lessons_lib.explorers.picture import exact_values, front_end
from lessons_lib.explorers.sampling import ON_GRID
from lessons_lib.explorers.sampling import ON_GRID as STEP_ON_GRID
from lessons_lib.explorers.steps.curves import KEYS as DTYPE_KEYS
from lessons_lib.explorers.steps.curves import STEPS, StepCurves

IMPORT = "import('data:text/javascript;base64,{}')"


@pytest.fixture(scope="module")
def front(browser):
    """Call an exported function of the front end in a page: front("name", *args)."""
    page = browser.new_page()
    source = base64.b64encode(front_end().encode()).decode("ascii")
    page.evaluate(f"async () => {{ window.front = await {IMPORT.format(source)}; }}")

    def call(name, *args):
        return page.evaluate(
            "([name, args]) => window.front[name](...JSON.parse(args))", [name, json.dumps(args)]
        )

    yield call
    page.close()


def python_format(value):
    return "—" if value is None else f"{value:.4g}"


def test_numbers_read_as_the_python_kernel_would_write_them(front):
    rng = random.Random(0)
    values = [0.0, -0.0, 1.0, -2.5, 0.4, 1e-5, 1.2345e-4, 9999.4, 99999.0, 123456.0, 1e21, None]
    values += [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 8) for _ in range(500)]
    assert [front("formatNumber", v) for v in values] == [python_format(v) for v in values]


def test_the_browser_finds_the_same_sample_as_the_kernel_for_any_x(front):
    x = grid(-2.5, 2.5, 401).numpy()
    curves = Curves(x=x)
    rng = np.random.default_rng(0)
    probes = [-2.5 + k * (5 / 400) for k in range(0, 401, 7)]  # slider steps, float noise and all
    probes += [*rng.uniform(-3, 3, 60).tolist(), 0.503, -2.5 - 0.0125, 2.5 + 1e-12]
    expected = [-1 if curves.index_of(p) is None else curves.index_of(p) for p in probes]
    found = [front("sampleIndex", x.tolist(), p, ON_GRID) for p in probes]
    assert found == expected


def test_on_a_log_axis_the_browser_finds_the_same_step_as_the_kernel(front):
    curves = StepCurves(x=2.0)
    rng = np.random.default_rng(0)
    # A log slider's value is base ** exponent, computed in the browser: float noise and all.
    probes = [10 ** (-k / 4) * (1 + 1e-13) for k in range(61)] + [0.003, 5e-16, 2.0, 0.0, -1e-3]
    probes += (10 ** rng.uniform(-16, 1, 40)).tolist()
    expected = [-1 if curves.index_of(p) is None else curves.index_of(p) for p in probes]
    found = [front("sampleIndex", STEPS.tolist(), p, STEP_ON_GRID, True) for p in probes]
    assert found == expected
    assert expected[:61] == list(range(61))


def test_a_point_reads_its_sample_or_the_kernels_exact_values_or_says_unknown(front):
    samples = {
        "x": [0.0, 0.5, 1.0],
        "forward": [0.0, 0.125, 1.0],
        "custom": [0.0, 0.75, 3.0],
        "true": [0.0, 0.75, 2.0],
        "differ": [0, 0, 1],
    }
    meta = {"revision": 4}
    style = {"keys": list(KEYS), "on_grid": ON_GRID, "xscale": "linear"}
    on = front("pointAt", 1.0, samples, {}, meta, style)
    assert on == {
        "x": 1.0,
        "forward": 1.0,
        "custom": 3.0,
        "true": 2.0,
        "differ": True,
        "known": True,
    }
    point = {"x": 0.7, "forward": math.nan, "custom": 1.47, "true": 1.47, "differ": False}
    exact = exact_values(point, 4)
    between = front("pointAt", 0.7, samples, exact, meta, style)
    assert between["known"] and between["custom"] == 1.47 and math.isnan(between["forward"])
    stale = front("pointAt", 0.7, samples, exact_values(point, 3), meta, style)
    assert stale["known"] is False  # exact values of older curves are not shown


def test_the_text_alternative_says_x_each_value_and_whether_they_disagree(front):
    style = {
        "kind": "gradient",
        "keys": list(KEYS),
        "name": "RoundSTE",
        "labels": {"forward": "forward", "custom": "RoundSTE's backward", "true": "true gradient"},
    }
    meta = {"scale": 2.0, "range": [-2.5, 2.5]}
    at = {"x": 0.4375, "forward": 0.0, "custom": 2.0, "true": 0.0, "differ": True, "known": True}
    words = front("describe", at, style, meta)
    assert words["alt"] == (
        "Gradient explorer for RoundSTE over x from -2.5 to 2.5: forward on top, backward "
        "against the true gradient below. At x = 0.4375, grad_out = 2: forward = 0, "
        "RoundSTE's backward = 2, true gradient = 0; RoundSTE's backward and the true "
        "gradient disagree here."
    )
    assert "agree here" in front("describe", {**at, "differ": False}, style, meta)["verdict"]
    unknown = front("describe", {**at, "known": False}, style, meta)
    assert "asking the kernel" in unknown["alt"]


def test_boxes_show_slider_values_without_float_noise_and_lists_compare_to_rounding(front):
    assert front("tidy", 0.30000000000000004) == 0.3
    assert front("tidy", 0.41250000000000003) == 0.4125
    assert front("sameValues", [[-2.5, 2.5000000000000004], 1.0], [[-2.5, 2.5], 1.0])
    assert not front("sameValues", [[-2.5, 2.55], 1.0], [[-2.5, 2.5], 1.0])


def test_a_step_reads_each_dtypes_error_and_where_h_sits_against_its_best_step(front):
    style = {
        "kind": "steps",
        "keys": list(DTYPE_KEYS),
        "on_grid": STEP_ON_GRID,
        "xscale": "log",
        "name": "Cube",
        "labels": {key: key for key in DTYPE_KEYS},
    }
    samples = {"x": STEPS.tolist(), "float32": [1e-4] * 61, "float64": [2e-6] * 61}
    meta = {
        "revision": 1,
        "point": 2.0,
        "best": {"float32": 0.00781249999999974, "float64": 9.6e-06},
        "from_model": {"float32": True, "float64": False},
    }
    at = front("pointAt", 10**-2.5 * (1 + 1e-14), samples, {}, meta, style)
    assert at["known"] and at["x"] == STEPS[10] and at["float32"] == 1e-4
    words = front("describe", at, style, meta)
    assert words["alt"] == (
        "Step-size explorer for Cube at x = 2: the error of a central difference against "
        "the step h, both on log scales, in float32 and float64. At h = 0.003162: float32 "
        "off by 0.0001, float64 off by 2e-06; float32: h is smaller than its best step, "
        "0.007812; float64: h is larger than its rule-of-thumb step, 9.6e-06."
    )
    near = front("describe", {**at, "x": 0.008}, style, meta)["verdict"]
    assert near.startswith("float32: h is at its best step")
    typed = exact_values({"x": 0.003, "float32": 2e-4, "float64": math.nan}, 1, DTYPE_KEYS)
    between = front("pointAt", 0.003, samples, typed, meta, style)
    assert between["known"] and between["float32"] == 2e-4 and math.isnan(between["float64"])
    failed = front("describe", at, style, {**meta, "best": {}})
    assert "nothing was measured" in failed["verdict"]


def test_the_picture_takes_the_width_it_is_given_within_its_bounds_in_whole_pixels(front):
    style = {"max_width": 960, "min_width": 480, "min_height": 440, "aspect": 1.6}
    assert front("pictureSize", 802, style) == {"width": 802, "height": 501}
    assert front("pictureSize", 802.7, style) == {"width": 802, "height": 501}  # never wider
    assert front("pictureSize", 1500, style) == {"width": 960, "height": 600}
    assert front("pictureSize", 600, style) == {"width": 600, "height": 440}  # legends' room
    assert front("pictureSize", 300, style) == {"width": 480, "height": 440}
    # Each canvas: one pixel per device pixel, as the kernel draws (drawing.Size.pixels).
    for width, height, ratio in [(802, 501, 2), (642, 401, 1.25), (700, 438, 1.5)]:
        size = Size(width, height, ratio)
        assert front("backingSize", {"width": width, "height": height}, ratio) == list(size.pixels)


def test_a_picked_shape_is_compared_as_a_word_so_the_picture_stops_saying_updating(front):
    assert front("sameValues", [0.5, "triangle"], [0.5000000000000001, "triangle"])
    assert not front("sameValues", [0.5, "triangle"], [0.5, "sigmoid"])


def test_the_surrogate_explorers_words_say_what_backward_passes_where_the_truth_is_zero(front):
    style = explore_surrogate().picture.picture_style
    meta = {"range": [-2, 2], "shape": "triangle", "width": 0.5, "threshold": 0}
    at = {"x": 0.25, "known": True, "forward": 1, "backward": 0.5, "family": 0.5, "true": 0}
    words = front("describe", at, style, meta)
    assert words["verdict"] == "backward passes 0.5 back where the true gradient is 0"
    assert "the triangle bump (width 0.5, threshold 0)" in words["alt"]
    at_jump = front("describe", {**at, "x": 0, "true": None}, style, meta)
    assert at_jump["verdict"] == "at the jump: the step has no gradient here"
    broken = front("describe", {**at, "backward": None}, style, meta)
    assert "unknown here" in broken["verdict"]
