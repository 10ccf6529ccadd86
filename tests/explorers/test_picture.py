"""picture: what the kernel sends the browser, and that the front end ships with it."""

import json
import math
import re
import tomllib

import ipywidgets as widgets
import numpy as np
import pytest

from lessons_lib import Cube, RoundSTE, explore, explore_steps
from lessons_lib.explorers.gradient.curves import KEYS
from lessons_lib.explorers.picture import (
    FRONT_PARTS,
    Picture,
    exact_values,
    front_end,
    pack_rows,
)
from tests.lab_server import ROOT


def rows(data):
    return np.frombuffer(data, "<f8").reshape(5, -1)


def test_the_picture_holds_the_explorers_curves_and_the_inputs_they_were_measured_with():
    ex = explore(RoundSTE)
    x, forward, custom, true, differ = rows(ex.picture.samples)
    np.testing.assert_array_equal(x, ex.curves.x)
    np.testing.assert_array_equal(forward, ex.curves.forward)
    np.testing.assert_array_equal(custom, np.ones_like(x))
    np.testing.assert_array_equal(true, np.zeros_like(x))
    np.testing.assert_array_equal(differ, np.ones_like(x))
    assert ex.picture.background.startswith(b"\x89PNG")
    meta = ex.picture.meta
    assert meta["inputs"] == [(-2.5, 2.5), 1.0] and meta["range"] == [-2.5, 2.5]
    assert meta["scale"] == 1.0 and meta["revision"] == 1 and len(meta["panels"]) == 2
    json.dumps(meta, allow_nan=False)  # strict JSON: the browser's parser has no NaN


def test_new_curves_travel_in_one_message(monkeypatch):
    ex = explore(Cube)
    sent = []
    # hold_sync passes its own set and clears it afterwards: keep a copy
    monkeypatch.setattr(ex.picture, "send_state", lambda key=None: sent.append(set(key)))
    ex.scale_slider.value = 2.0
    assert len(sent) == 1 and {"background", "samples", "meta"} <= sent[0]


def test_exact_values_write_unknown_as_null_so_the_message_stays_json():
    point = {"x": 0.5, "forward": math.nan, "custom": 1.0, "true": 0.0, "differ": False}
    exact = exact_values(point, 3)
    assert exact_values(point, 3, KEYS) == exact  # the readout's keys: the point's own
    assert exact == {
        "revision": 3,
        "x": 0.5,
        "forward": None,
        "custom": 1.0,
        "true": 0.0,
        "differ": False,
    }
    json.dumps(exact, allow_nan=False)


def test_rows_travel_as_little_endian_float64_one_after_another():
    data = pack_rows([np.array([1.0, 2.0]), np.array([np.nan, -0.5])])
    assert data == np.array([1.0, 2.0, np.nan, -0.5], "<f8").tobytes()


def test_the_front_end_is_a_plain_es_module_the_widget_loads_from_the_package():
    source = front_end()
    assert Picture._esm == source  # the parts joined as they are: no build step
    assert source.rstrip().endswith("export default { initialize, render };")
    assert not re.search(r"^\s*import ", source, re.M)  # nothing fetched: no imports at all
    for part in FRONT_PARTS:
        assert part.read_text() in source, part.name


def test_the_front_ends_parts_define_each_name_once():
    """Joined into one module, two parts defining one name would fail to load in the page."""
    names = re.findall(
        r"^(?:export )?(?:async )?(?:function|const|let|class) (\w+)", front_end(), re.M
    )
    assert names and len(names) == len(set(names))


def every_widget(widget: widgets.Widget) -> list[widgets.Widget]:
    """A widget and every widget inside it, through the boxes' children."""
    inside = getattr(widget, "children", ())
    return [widget] + [w for child in inside for w in every_widget(child)]


@pytest.mark.parametrize("make", [lambda: explore(RoundSTE), lambda: explore_steps(Cube)])
def test_every_synced_style_and_layout_is_a_widget_as_ipywidgets_front_end_expects(make):
    """JupyterLab's widget manager reads a DOMWidget's `style` and `layout` as widgets.

    @jupyter-widgets/base unpacks both as widget references and builds a view of each
    (DOMWidgetView.setStyle, setLayout): a plain dict there throws in the page.
    """
    explorer = make()
    found = every_widget(explorer)
    assert explorer.picture in found
    for widget in found:
        for name in ("style", "layout"):
            if widget.has_trait(name) and widget.trait_metadata(name, "sync"):
                value = getattr(widget, name)
                assert isinstance(value, widgets.Widget), (
                    f"{type(widget).__name__}.{name}: {value!r}"
                )


def test_pyproject_ships_the_front_end_as_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["lessons_lib.explorers"]
    for part in FRONT_PARTS:
        shipped = part.relative_to(part.parents[1])
        assert any(shipped.match(pattern) for pattern in patterns), part.name
