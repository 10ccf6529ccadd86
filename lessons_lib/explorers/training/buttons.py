"""The training explorer's buttons: rows of toggle buttons (shapes, widths) and "Train again".

Layer: the browser's widgets (anywidget), of which toggles.js and train_button.js are the
front ends. ipywidgets' own buttons fall short for a keyboard or screen reader user: a
ToggleButton shows its state by colour alone, and a Button disabled while the kernel
trains drops the keyboard's focus. Here each toggle is a real button with aria-pressed, in
a group named by its row's heading, and "Train again" says it is busy (aria-disabled)
while it keeps the focus. A click, Space or Enter presses any of them.
"""

from collections.abc import Callable, Sequence
from pathlib import Path

import anywidget
import traitlets

CSS = """
.training-toggles { display: flex; flex-wrap: wrap; align-items: center; }
.training-toggles .jupyter-button { width: auto; }  /* as wide as its label */
.training-toggles-heading {
  flex: none; width: 6em; padding-left: var(--jp-widgets-margin);
  font-size: var(--jp-widgets-font-size); color: var(--jp-widgets-label-color);
}
.training-train[aria-disabled="true"] { opacity: var(--jp-widgets-disabled-opacity); }
"""


def _front(name: str) -> str:
    return Path(__file__).with_name(name).read_text()


class ToggleRow(anywidget.AnyWidget):
    """A heading and a toggle button per option; `value` holds the options picked."""

    _esm = _front("toggles.js")
    _css = CSS
    heading = traitlets.Unicode().tag(sync=True)
    options = traitlets.List(traitlets.Unicode()).tag(sync=True)
    value = traitlets.List(traitlets.Unicode()).tag(sync=True)  # in the options' order

    def __init__(self, heading: str, options: Sequence[str], picked: Sequence[str]) -> None:
        super().__init__(heading=heading, options=list(options), value=list(picked))

    @traitlets.validate("value")
    def _in_order(self, proposal: traitlets.Bunch) -> list[str]:
        """Known options only, each once, in the options' order (whatever order they came in)."""
        return [option for option in self.options if option in proposal["value"]]


class TrainButton(anywidget.AnyWidget):
    """A button that runs its handlers when pressed, and ignores presses while `busy`."""

    _esm = _front("train_button.js")
    _css = CSS
    description = traitlets.Unicode().tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)  # set by the kernel around the work it starts

    def __init__(self, description: str) -> None:
        super().__init__(description=description)
        self._handlers: list[Callable[[TrainButton], None]] = []
        self.on_msg(self._pressed)

    def on_click(self, handler: Callable[["TrainButton"], None]) -> None:
        """Run handler(button) at each press, as ipywidgets' Button.on_click."""
        self._handlers.append(handler)

    def _pressed(self, _: object, content: dict, buffers: list) -> None:
        if content.get("do") == "click":  # the page's message at each press
            self.click()

    def click(self) -> None:
        """Press it from the kernel: what the page does when the learner presses it."""
        for handler in self._handlers:
            handler(self)
