"""training/widget: train_surrogates(), its progress bar, its controls, its stored output."""

import base64
import os
import subprocess
import sys

import pytest

import lessons_lib
from lessons_lib import train_surrogates
from lessons_lib.explorers.training import widget
from lessons_lib.explorers.training.widget import PROGRESS_UPDATES, TrainingExplorer
from lessons_lib.running import InputError, LessonError


def small():
    return train_surrogates(shapes=("triangle", "sigmoid"), widths=(0.5,), steps=20)


def test_it_is_exposed_lazily_from_the_package():
    assert "train_surrogates" in lessons_lib.__all__
    assert lessons_lib.train_surrogates is train_surrogates


def test_it_trains_every_run_and_the_progress_bar_reaches_its_maximum():
    ex = small()
    assert [run.name for run in ex.runs] == [
        "true gradient (TrueStep)",
        "sigmoid, width 0.5",  # in SHAPES' order, whatever order they were asked in
        "triangle, width 0.5",
    ]
    assert ex.progress.max == 3 * 20 and ex.progress.value == ex.progress.max


def test_the_progress_bar_moves_while_it_trains(monkeypatch):
    ex = TrainingExplorer(["triangle"], [0.5], 20)
    seen = []
    ex.progress.observe(lambda change: seen.append(change["new"]), "value")
    ex.train()
    # 40 steps, at most PROGRESS_UPDATES updates on the way (each a message to the page)
    assert seen[0] == 1 and 3 < len(seen) <= PROGRESS_UPDATES + 1
    assert seen == sorted(seen) and seen[-1] == 40


def test_a_long_training_sends_about_fifty_bar_updates():
    ex = TrainingExplorer(["triangle", "sigmoid"], [0.5, 2.0], 200)
    seen = []
    ex.progress.observe(lambda change: seen.append(change["new"]), "value")
    ex.train()
    assert len(seen) == PROGRESS_UPDATES and seen[-1] == 5 * 200  # the true gradient's run too


def test_the_buttons_pick_what_train_again_trains():
    ex = small()
    png, picture = ex.png, ex.picture.value
    ex.shape_row.value = ["arctan"]
    ex.width_row.value = [*ex.width_row.value, "2"]
    ex.train_button.click()
    assert ex.shapes == ["arctan"] and ex.widths == [0.5, 2.0]
    assert [run.name for run in ex.runs][1:] == ["arctan, width 0.5", "arctan, width 2"]
    assert ex.png != png and ex.picture.value != picture
    assert "one panel per shape (arctan), a line per width (0.5, 2)" in ex.picture.value


def test_nothing_picked_says_so_and_keeps_the_last_picture():
    ex = small()
    ex.shape_row.value = []
    ex.train()
    assert "Pick at least one shape" in ex.message.value and len(ex.runs) == 3


def test_the_train_button_is_busy_while_it_trains_and_free_after_even_with_nothing_picked():
    """The page ignores presses while busy: the kernel must always free it again."""
    ex = TrainingExplorer(["triangle"], [0.5], 5)
    seen = []
    ex.train_button.observe(lambda change: seen.append(change["new"]), "busy")
    ex.train_button.click()
    ex.shape_row.value = []
    ex.train_button.click()
    assert seen == [True, False, True, False]
    assert "Pick at least one shape" in ex.message.value


def test_the_stored_output_is_the_picture_and_stable_facts():
    bundle = small()._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    lines = bundle["text/plain"].splitlines()
    assert lines[1] == (
        "true gradient (TrueStep): did not learn; never reached loss ≤ 0.05; accuracy 41%"
    )
    assert lines[2].startswith("sigmoid, width 0.5: learned")


FACTS = (
    "from lessons_lib import train_surrogates\n"
    "import hashlib\n"
    "ex = train_surrogates()\n"
    "print(ex.summary)\n"
    "print(hashlib.sha256(ex.png).hexdigest())\n"
)


def test_the_facts_and_the_picture_are_the_same_without_vector_kernels():
    """Stored outputs must hold on any CPU: compare a run with ATEN's default kernels."""
    outputs = [
        subprocess.run(
            [sys.executable, "-c", FACTS],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **extra},
        ).stdout
        for extra in ({}, {"ATEN_CPU_CAPABILITY": "default"})
    ]
    assert outputs[0] == outputs[1] and "accuracy" in outputs[0]


class FakeShell:
    kernel = object()
    execution_count = 7


def test_in_a_notebook_it_shows_the_bar_then_its_trained_output_once(monkeypatch):
    """Two outputs, never updated: nbval compares what a fresh kernel stores."""
    shown = []

    def fake_display(what, raw=False):
        shown.append(what)

    monkeypatch.setattr(widget, "get_ipython", lambda: FakeShell())
    monkeypatch.setattr(widget, "display", fake_display)
    ex = small()
    assert shown[0] is ex.progress  # shown before training: the bar is what moves
    assert "accuracy" in shown[1]["text/plain"] and "image/png" in shown[1]
    ex._ipython_display_()  # the cell's own result: already shown
    assert len(shown) == 2
    FakeShell.execution_count = 8
    ex._ipython_display_()  # shown again from a later cell
    assert len(shown) == 3


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"shapes": ("gaussian",)}, "shapes must name one or more of"),
        ({"shapes": ()}, "shapes must name one or more of"),
        ({"shapes": 5}, "shapes must be a list or tuple"),
        ({"widths": (0.5, 0)}, "each width must be a positive number"),
        ({"widths": (-1,)}, "each width must be a positive number"),
        ({"widths": 0.5}, "widths must be a list or tuple"),
        ({"widths": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)}, "one to 6 numbers"),
        ({"steps": 0}, "steps must be a whole number"),
        ({"steps": 2.5}, "steps must be a whole number"),
    ],
)
def test_bad_input_is_refused_in_one_plain_line(kwargs, says):
    with pytest.raises(InputError) as refused:
        train_surrogates(**kwargs)
    assert isinstance(refused.value, LessonError)
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_a_single_shape_name_is_taken_as_one_shape():
    assert train_surrogates("clipped", widths=(0.5,), steps=2).shapes == ["clipped"]
