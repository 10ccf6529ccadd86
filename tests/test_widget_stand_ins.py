"""Which widget outputs the decks and the site leave out: a plain widget's view with only its
repr, never an explorer's picture or text alternative, never text without a widget view."""

import ipywidgets
import pytest

from tools.widget_stand_ins import WIDGET_VIEW, is_stand_in, is_widget_repr

VIEW = {"model_id": "0", "version_major": 2, "version_minor": 0}


@pytest.mark.parametrize(
    "widget",
    [
        ipywidgets.IntProgress(value=0, min=0, max=1, description="training"),
        ipywidgets.FloatProgress(),
        ipywidgets.HBox([ipywidgets.Button(description="Train\nagain")]),
    ],
    ids=lambda w: type(w).__name__,
)
def test_a_plain_widgets_output_is_a_stand_in(widget):
    bundle = widget._repr_mimebundle_()
    assert set(bundle) == {WIDGET_VIEW, "text/plain"}
    assert is_stand_in(bundle)
    assert is_stand_in({**bundle, "text/plain": bundle["text/plain"].splitlines(True)})


def test_an_explorers_output_is_kept():
    text = "Training explorer: the neuron trained for 200 steps (accuracy 41%)."
    assert not is_widget_repr(text)
    assert not is_stand_in({WIDGET_VIEW: VIEW, "text/plain": text})
    assert not is_stand_in({WIDGET_VIEW: VIEW, "image/png": "iVBORw0KGgo=", "text/plain": "X()"})


def test_a_repr_without_a_widget_view_is_kept():
    """Printed values that read like a call (a learner's dataclass) are the lesson's own."""
    assert is_widget_repr("Point(x=1, y=2)")
    assert not is_stand_in({"text/plain": "Point(x=1, y=2)"})
