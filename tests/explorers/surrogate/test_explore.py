"""surrogate/explore: explore_surrogate(), the front door; bad input refused in one line."""

import pytest
import torch

from lessons_lib import Cube, explore_surrogate
from lessons_lib.running import InputError, LessonError, NotAFunctionError
from lessons_lib.surrogate_gradients import SHAPES
from tests.explorers.surrogate.test_curves import OwnSpike


def test_it_is_exposed_lazily_from_the_package():
    import lessons_lib

    assert "explore_surrogate" in lessons_lib.__all__
    assert lessons_lib.explore_surrogate is explore_surrogate


def test_the_defaults_are_the_courses_fast_sigmoid_spike():
    ex = explore_surrogate()
    assert ex.own is None and ex.shape_picker.value == "fast-sigmoid"
    assert ex.width_slider.value == 0.5 and ex.threshold_slider.value == 0.0
    assert list(ex.shape_picker.options) == list(SHAPES)


def test_a_learners_function_is_taken_as_a_class_or_its_apply():
    assert explore_surrogate(OwnSpike).own is OwnSpike
    assert explore_surrogate(OwnSpike.apply).own is OwnSpike


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize(
    ("call", "error", "says"),
    [
        (lambda: explore_surrogate(torch.sign), NotAFunctionError, "Function subclass"),
        (lambda: explore_surrogate("spike"), NotAFunctionError, "Function subclass"),
        (lambda: explore_surrogate(OwnSpike()), NotAFunctionError, "not an instance"),
        (lambda: explore_surrogate(width=0), InputError, "width must be a positive number"),
        (lambda: explore_surrogate(width=-1), InputError, "width must be a positive number"),
        (lambda: explore_surrogate(width="wide"), InputError, "width must be a number"),
        (lambda: explore_surrogate(shape="gaussian"), InputError, "shape must be one of"),
        (lambda: explore_surrogate(threshold=5), InputError, "outside x_range"),
        (lambda: explore_surrogate(x_range=(1, -1)), InputError, "low < high"),
    ],
)
def test_bad_input_is_refused_in_one_plain_line(call, error, says):
    with pytest.raises(error) as refused:
        call()
    assert isinstance(refused.value, LessonError)
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_a_function_that_is_not_a_spike_still_draws(recwarn):
    ex = explore_surrogate(Cube)  # not a spike, but a Function: its curves are measured
    assert ex.curves.failure is None and ex.curves.forward is not None
