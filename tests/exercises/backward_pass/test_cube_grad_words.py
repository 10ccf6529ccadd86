"""check_cube_grad's words: its hint ladder (the idea, the PyTorch calls, the answer) and
every section a fix sends the learner to."""

import inspect

import pytest

from lessons_lib import cube_grad
from lessons_lib.exercises.backward_pass.cube import check_cube
from lessons_lib.exercises.backward_pass.cube_grad import check_cube_grad
from lessons_lib.exercises.backward_pass.cube_grad_words import READ
from lessons_lib.exercises.backward_pass.cube_words import READ_BEGINNER
from tests.exercises.backward_pass.learners import (
    STARTER_CUBE,
    cell,
    first_draft,
)


def test_the_hints_name_the_callers_no_grad_and_enable_grad():
    calls = str(check_cube_grad(first_draft, hint=2))
    assert "with recording switched on even where the caller switched it off" in calls
    assert "`with torch.enable_grad():` record even within a caller's torch.no_grad()" in calls


def test_the_first_failure_no_longer_gives_the_whole_answer():
    fix = check_cube_grad(first_draft).first_failure.fix
    assert "autograd.grad" not in fix and ".sum()" not in fix


# --- hints: the idea, then the PyTorch calls, then the answer ------------------------


def test_an_unfinished_answer_is_offered_the_first_hint_only():
    text = str(check_cube_grad(first_draft))
    assert text.splitlines()[-1] == (
        "Stuck? check_cube_grad(cube_grad, hint=1) shows the idea "
        "(hint=2 the PyTorch calls, then hint=3 the answer)."
    )
    assert "Hint 1" not in text and "def cube_grad" not in text


def test_hints_are_revealed_one_step_at_a_time():
    idea = str(check_cube_grad(first_draft, hint=1))
    assert "Hint 1 of 3 (the idea): Let autograd do the differentiating" in idea
    assert "Hint 2" not in idea and "torch.autograd.grad" not in idea
    assert idea.splitlines()[-1].startswith(
        "Stuck? check_cube_grad(cube_grad, hint=2) shows the PyTorch calls"
    )

    calls = str(check_cube_grad(first_draft, hint=2))
    assert "Hint 1 of 3" in calls and "Hint 2 of 3 (the PyTorch calls): x.detach()" in calls
    assert "torch.autograd.grad(total, copy)" in calls and "def cube_grad" not in calls

    answer = check_cube_grad(first_draft, hint=3)
    assert "Hint 3 of 3 (the answer):" in str(answer) and "Stuck?" not in str(answer)
    assert inspect.getsource(cube_grad).splitlines()[0] in str(answer)
    assert "<pre>def cube_grad(x: torch.Tensor) -&gt; torch.Tensor:" in answer._repr_html_()


def test_hint_on_the_verdict_matches_the_hint_argument():
    assert str(check_cube_grad(first_draft).hint(2)) == str(check_cube_grad(first_draft, hint=2))


@pytest.mark.parametrize("level", [-1, 0, 7, "2", None, 2.5])
def test_odd_hint_levels_never_raise(level):
    shown = check_cube_grad(first_draft, hint=level).shown
    assert shown == {7: 3}.get(level, 0)


def headings(track):
    """The headings of a lesson 1 notebook, as its markdown spells them."""
    import json
    from pathlib import Path

    path = Path(__file__).parents[3] / f"notebooks/01-custom-function/{track}.ipynb"
    return {
        line.lstrip("#").strip()
        for c in json.loads(path.read_text())["cells"]
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith("#")
    }


def test_every_section_named_in_a_fix_is_a_heading_of_that_track():
    developer = headings("2-developer")
    for section in READ.values():
        track, heading = section.split(", “")
        assert track == "Lesson 1 developer track" and heading.rstrip("”") in developer, section
    track, heading = READ_BEGINNER.split(", “")
    assert track == "Lesson 1 beginner track" and heading.rstrip("”") in headings("1-beginner")
    assert check_cube(cell(STARTER_CUBE)["Cube"]).first_failure.read == READ_BEGINNER
