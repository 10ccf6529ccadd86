"""base: the widget both explorers share, driven through the smallest explorer that uses it."""

import io
import math
from dataclasses import dataclass, field

import ipywidgets as widgets
import numpy as np
import pytest
from PIL import Image

from lessons_lib.explorers.base import ExplorerWidget, coarse, show_problems
from lessons_lib.explorers.controls import Control, box_for
from lessons_lib.explorers.drawing import HEIGHT, WIDTH
from lessons_lib.explorers.sampling import sample_index
from tests.explorers.test_drawing import OneDot


@dataclass
class Line:
    """y = slope * x on ten samples from 0 to 1."""

    slope: float
    x: np.ndarray = field(default_factory=lambda: np.linspace(0.0, 1.0, 11))
    failure: str | None = None
    problems: list[str] = field(default_factory=list)

    def index_of(self, x: float) -> int | None:
        return sample_index(self.x, x)

    def at(self, index: int) -> dict[str, float]:
        return {"x": float(self.x[index]), "dot": self.slope * float(self.x[index])}

    def rows(self) -> list[np.ndarray]:
        return [self.x, self.slope * self.x]


class LineExplorer(ExplorerWidget):
    """A point slider on the line, and one input: its slope."""

    def __init__(self) -> None:
        self.point = widgets.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.1)
        self.slope = widgets.FloatSlider(value=2.0, min=-5.0, max=5.0)
        self.measured = []
        super().__init__(
            plot=OneDot(),
            curves=Line(math.nan),
            controls=[
                Control(self.point, [box_for(self.point, "x")], "explorer-point"),
                Control(self.slope, [box_for(self.slope, "slope")], "explorer-slope"),
            ],
            picture_style={"rows": ["x", "dot"], "keys": ["dot"]},
            way_on="move the slope",
        )
        self.slope.observe(self.request_update, "value")

    def measure(self) -> Line:
        self.measured.append(self.slope.value)
        line = Line(self.slope.value)
        if self.slope.value < 0:
            line.failure = "a falling line"
        return line

    def measure_at(self, x: float) -> dict[str, float]:
        return {"x": x, "dot": self.slope.value * x}

    def meta(self) -> dict:
        return {"slope": self.slope.value}

    @property
    def summary(self) -> str:
        return "a line"


def test_an_explorer_must_say_what_it_measures_and_how_a_viewer_without_widgets_sees_it():
    class NoSummary(ExplorerWidget):
        def measure(self): ...
        def measure_at(self, x): ...
        def meta(self): ...

    assert {"measure", "measure_at", "meta", "summary"} <= ExplorerWidget.__abstractmethods__
    with pytest.raises(TypeError, match="summary"):
        NoSummary()


def test_the_first_control_is_the_point_and_the_others_are_the_inputs():
    ex = LineExplorer()
    assert ex.point_slider is ex.point and ex.inputs == [ex.slope]
    controls = ex.picture.controls
    assert controls["point"] is ex.point and controls["inputs"] == [ex.slope]
    assert [b[0] for b in controls["boxes"]] == [ex.point, ex.slope]
    assert list(ex.children[:2]) == [ex.picture, ex.message] and len(ex.children) == 4
    assert "lessons-explorer" in ex._dom_classes


def test_curves_are_measured_once_and_sent_with_what_they_were_measured_with():
    ex = LineExplorer()
    assert ex.measured == [2.0]
    meta = ex.picture.meta
    assert meta["revision"] == 1 and meta["inputs"] == [2.0] and meta["slope"] == 2.0
    assert len(meta["panels"]) == 1
    samples = np.frombuffer(ex.picture.samples, "<f8").reshape(2, -1)
    np.testing.assert_array_equal(samples[1], 2.0 * ex.curves.x)
    ex.slope.value = 3.0
    assert ex.measured == [2.0, 3.0] and ex.picture.meta["revision"] == 2


def test_a_point_on_a_sample_is_read_there_and_between_samples_measured_and_sent():
    ex = LineExplorer()
    ex.point.value = 0.3
    assert ex.point_values() == ex.curves.at(3) and ex.picture.exact == {}
    ex.point.value = 0.35
    assert ex.picture.exact == {"revision": 1, "x": 0.35, "dot": 2.0 * 0.35}
    assert ex.measured == [2.0]  # a point move measures no new curves


def test_a_failure_fills_the_message_with_the_way_on_and_clears_when_fixed():
    ex = LineExplorer()
    ex.slope.value = -1.0
    assert "a falling line" in ex.message.value and "move the slope" in ex.message.value
    ex.slope.value = 1.0
    assert ex.message.value == ""


def test_show_problems_lists_each_problem_and_marks_the_message_only_while_there_are_some():
    message = widgets.HTML()
    show_problems(message, None, ["one <b>", "two"], "never shown")
    assert "<li>one &lt;b&gt;</li><li>two</li>" in message.value
    assert "explorer-error" in message._dom_classes and "never shown" not in message.value
    show_problems(message, None, [], "")
    assert message.value == "" and "explorer-error" not in message._dom_classes


def test_the_display_bundle_holds_the_summary_and_a_png_of_the_point():
    ex = LineExplorer()
    bundle = ex._repr_mimebundle_()
    assert bundle["text/plain"] == "a line" and bundle["image/png"].startswith("iVBOR")


def test_a_new_size_from_the_page_draws_the_same_curves_again_at_that_size():
    ex = LineExplorer()
    assert ex.picture.meta["size"] == {"width": WIDTH, "height": HEIGHT, "ratio": 1.0}
    ex.picture.size = {"width": 704, "height": 440, "ratio": 2}
    meta = ex.picture.meta
    assert meta["revision"] == 2 and meta["size"] == {"width": 704, "height": 440, "ratio": 2.0}
    assert ex.measured == [2.0]  # the curves held are drawn again, not measured again
    assert Image.open(io.BytesIO(ex.picture.background)).size == (1408, 880)
    assert meta["panels"][0]["box"] == pytest.approx([50, 10, 634, 390], abs=0.5)  # CSS px
    assert meta["smallest_font"] == pytest.approx(12)
    ex.picture.size = {"width": 704, "height": 440, "ratio": 2.0}  # the same again: nothing
    ex.picture.size = {"width": "nonsense"}  # refused: nothing either
    assert ex.picture.meta["revision"] == 2


def test_a_resize_while_an_input_waits_to_be_measured_says_what_the_curves_were_measured_with():
    ex = LineExplorer()
    ex._throttle.request = lambda: None  # the new slope's update has not run yet
    ex.slope.value = 3.0
    ex.picture.size = {"width": 704, "height": 440, "ratio": 1}
    # The front end still shows "updating…": the curves on screen are the slope 2 ones.
    assert ex.picture.meta["inputs"] == [2.0] and ex.measured == [2.0]
    ex.update()
    assert ex.picture.meta["inputs"] == [3.0]
    assert ex.picture.meta["size"]["width"] == 704  # a later update keeps the page's size


def test_coarse_values_read_the_same_on_any_cpu():
    assert [coarse(v) for v in [0.4799999999, 0.48000001, -1e-12, 1e-12, 2.0]] == [
        "0.48",
        "0.48",
        "0.00",
        "0.00",
        "2.00",
    ]
    assert coarse(math.nan) == "unknown"
