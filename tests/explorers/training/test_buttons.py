"""training/buttons: the toggle rows keep their picks in order; "Train again" runs its handlers.

Their front ends (toggles.js, train_button.js) are tried in Chromium:
tests/ui/test_surrogate_explorer_in_browser.py.
"""

from lessons_lib.explorers.training.buttons import ToggleRow, TrainButton


def test_its_picks_keep_the_options_order_and_drop_unknown_ones():
    row = ToggleRow("widths", ["0.01", "0.5", "2"], ["2", "0.01"])
    assert row.value == ["0.01", "2"]
    row.value = ["2", "10", "0.5", "2"]  # as a page might send it, or a learner type it
    assert row.value == ["0.5", "2"]


def test_a_press_from_the_page_runs_the_handlers():
    button = TrainButton("Train again")
    pressed = []
    button.on_click(pressed.append)
    button._handle_custom_msg({"do": "click"}, [])  # as ipywidgets hands on the page's message
    button._handle_custom_msg({"do": "something else"}, [])
    assert pressed == [button]
