"""controls: every slider's number box and row, as both explorers build them."""

import ipywidgets as widgets

from lessons_lib.explorers.controls import BOX_WIDTH, Control, box_for, slider_options


def test_a_box_has_its_sliders_value_bounds_and_step():
    slider = widgets.FloatSlider(value=0.3, min=-1.0, max=2.0, step=0.1)
    box = box_for(slider, "x")
    assert (box.value, box.min, box.max, box.step, box.description) == (0.3, -1.0, 2.0, 0.1, "x")


def test_a_slider_and_its_boxes_span_the_explorer_on_one_marked_row():
    slider = widgets.FloatRangeSlider(value=(0, 1), **slider_options())
    boxes = [box_for(widgets.FloatSlider(), "from"), box_for(widgets.FloatSlider(), "to")]
    row = Control(slider, boxes, "explorer-range").row()
    assert list(row.children) == [slider, *boxes]
    assert "explorer-range" in slider._dom_classes
    # The row is as wide as the explorer; the slider takes what its boxes leave, even less
    # than its content would like (min_width), so a narrow output area never scrolls.
    assert row.layout.width == "100%"
    assert (slider.layout.flex, slider.layout.min_width) == ("1 1 auto", "0")
    assert all(box.layout.width == f"{BOX_WIDTH - 10}px" for box in boxes)
    assert slider_options()["readout"] is False  # the box shows the value instead
