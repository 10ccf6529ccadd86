"""The explorers' controls: sliders, the number box beside each, and the rows that hold them.

Layer: ipywidgets in the kernel. The browser links each slider to its box(es) itself
(front/), so a typed value is drawn without a round trip to the kernel.
"""

from dataclasses import dataclass

import ipywidgets as widgets

BOX_WIDTH = 160  # CSS px: the number box beside a slider; the slider takes the rest of the row


@dataclass(frozen=True)
class Control:
    """A slider and its number box(es), on one row; `name` marks the row for tests and CSS."""

    slider: widgets.Widget
    boxes: list[widgets.Widget]
    name: str

    def row(self) -> widgets.HBox:
        """The slider and its box(es) on one line, as wide as the explorer (the picture's width
        at most)."""
        self.slider.add_class(self.name)
        return widgets.HBox([self.slider, *self.boxes], layout=widgets.Layout(width="100%"))


def slider_options() -> dict:
    """What every explorer slider shares: live updates, and the row's width but its box(es)."""
    return {
        "continuous_update": True,
        "readout": False,  # the number box beside it shows and takes the value
        "style": {"description_width": "9em"},
        # Grows and shrinks with the row; min_width 0, or its content's width would hold it.
        "layout": widgets.Layout(width="auto", flex="1 1 auto", min_width="0"),
    }


def number_box(
    value: float, low: float, high: float, step: float | None, description: str
) -> widgets.Widget:
    """A number box: type an exact value, or step it with the arrow keys."""
    return widgets.BoundedFloatText(
        value=value,
        min=low,
        max=high,
        step=step,
        description=description,
        style={"description_width": "initial"},
        layout=widgets.Layout(width=f"{BOX_WIDTH - 10}px"),
    )


def box_for(slider: widgets.FloatSlider, description: str) -> widgets.Widget:
    """The number box for a slider: the same value, bounds and step."""
    return number_box(slider.value, slider.min, slider.max, slider.step, description)
