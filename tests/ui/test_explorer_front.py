"""explorer_front.js in Chromium: its pure functions agree with the kernel's Python, value by value.

The module is imported into a blank page from a data: URL (it imports nothing itself),
so these run in a second, without JupyterLab.
"""

import base64
import json
import math
import random

import numpy as np
import pytest

from lessons_lib.explorer_curves import ON_GRID, Curves, grid
from lessons_lib.explorer_picture import FRONT_END, exact_values

IMPORT = "import('data:text/javascript;base64,{}')"


@pytest.fixture(scope="module")
def front(browser):
    """Call an exported function of the front end in a page: front("name", *args)."""
    page = browser.new_page()
    source = base64.b64encode(FRONT_END.read_bytes()).decode("ascii")
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


def test_a_point_reads_its_sample_or_the_kernels_exact_values_or_says_unknown(front):
    samples = {
        "x": [0.0, 0.5, 1.0],
        "forward": [0.0, 0.125, 1.0],
        "custom": [0.0, 0.75, 3.0],
        "true": [0.0, 0.75, 2.0],
        "differ": [0, 0, 1],
    }
    meta = {"revision": 4}
    on = front("pointAt", 1.0, samples, {}, meta, ON_GRID)
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
    between = front("pointAt", 0.7, samples, exact, meta, ON_GRID)
    assert between["known"] and between["custom"] == 1.47 and math.isnan(between["forward"])
    stale = front("pointAt", 0.7, samples, exact_values(point, 3), meta, ON_GRID)
    assert stale["known"] is False  # exact values of older curves are not shown


def test_the_text_alternative_says_x_each_value_and_whether_they_disagree(front):
    style = {
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
