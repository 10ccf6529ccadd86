"""gradient/explore: explore(), the front door. Arguments refused in plain words, presets filled in, no pyplot."""

import subprocess
import sys

import pytest
import torch

from lessons_lib import Clamp, ClippedSTE, Cube, RoundSTE, explore
from lessons_lib.explorers.gradient.explore import PRESETS, Param
from lessons_lib.functions import SigmoidSpike
from lessons_lib.running import InputError, NotAFunctionError
from tests.explorers.gradient.test_curves import Mul


def test_a_lesson_function_gets_its_preset_reference_range_and_parameter_sliders():
    ex = explore(SigmoidSpike)
    assert ex.setup.reference is PRESETS[SigmoidSpike].reference
    assert ex.range_slider.value == PRESETS[SigmoidSpike].x_range
    assert list(ex.param_sliders) == ["slope"] and ex.param_sliders["slope"].value == 5.0
    assert list(explore(Clamp).param_sliders) == ["lo", "hi"]
    assert ex.point_slider.value == 0.4  # off the kinks at 0


def test_a_reference_given_replaces_the_preset_and_its_caption():
    ex = explore(RoundSTE, torch.round)
    assert ex.setup.reference is torch.round and ex.setup.note == ""
    assert ex.setup.reference_label == "round"
    assert explore(RoundSTE).setup.note  # the preset's own caption
    assert explore(Cube, lambda t: t**3).setup.reference_label == "reference"


def test_point_and_scale_are_kept_inside_the_range_and_finite():
    assert explore(Cube, x_range=(-1, 1), point=5.0).point_slider.value == 1.0
    assert explore(Cube, scale=-2).scale_slider.value == -2.0


# --- bad input: clear exceptions at call time -------------------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize(
    ("fn", "says"),
    [
        (lambda: Cube(), "explore(Cube), not an instance"),
        (lambda: torch.round, "torch.autograd.Function subclass"),
        (lambda: "Cube", "torch.autograd.Function subclass"),
    ],
)
def test_a_non_function_is_refused_in_plain_words(fn, says):
    """fn is made inside the test: torch warns as soon as a Function is instantiated."""
    with pytest.raises(NotAFunctionError) as refused:
        explore(fn())
    assert says in str(refused.value)


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"x_range": (2, 1)}, "low < high"),
        ({"x_range": "wide"}, "two numbers"),
        ({"reference": 3}, "must be a function"),
        ({"vary": 2}, "does not name one of"),
        ({"hold": (torch.ones(3),)}, "one number"),
        ({"hold": (1.0,), "params": (Param(1, "k", 2.0, 3.0),)}, "between 2.0 and 3.0"),
        ({"hold": (1.0,), "params": (Param(0, "k", 0.0, 3.0),)}, "naming a held input"),
        ({"samples": 2}, "at least 3"),
        ({"scale": float("nan")}, "finite number"),
    ],
)
def test_bad_arguments_are_refused_with_what_to_do(kwargs, says):
    with pytest.raises(InputError, match=says):
        explore(Mul, **kwargs)


# --- no pyplot, and the benchmark script runs ---------------------------------------


def run_python(*args):
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=True, timeout=300
    ).stdout


def test_explorer_never_touches_pyplot_so_nothing_leaks_into_inline_plots():
    out = run_python(
        "-c",
        "import sys, lessons_lib; lessons_lib.explore(lessons_lib.Cube); "
        "print('matplotlib.pyplot' in sys.modules)",
    )
    assert out.strip() == "False"


def test_benchmark_script_runs_and_prints_both_ratios():
    out = run_python("-m", "benchmarks.explorer", "--repeat", "1")
    for text in ["point move", "range change", "speed-up", ">= 5x", ">= 1.5x", "per curve change"]:
        assert text in out


@pytest.mark.parametrize("fn", [RoundSTE, ClippedSTE, SigmoidSpike])
def test_every_preset_with_a_jump_says_its_true_gradient_is_undefined_there(fn):
    """autograd draws 0 at a jump; the caption says the truth is undefined there."""
    assert "undefined" in explore(fn).setup.note and "autograd says 0" in explore(fn).setup.note
