"""The exercise's notebook: Part 1 speaks only the beginner track's words, Part 2 defines
torch.autograd.grad before the task needs it, and the times are the measured ones."""

import re

from tests.exercises.backward_pass.learners import PART_1_UNTAUGHT


def test_part_1_of_the_notebook_uses_only_the_beginner_tracks_words():
    """The exercise opens with a part a learner fresh from the beginner track can read: its
    text and code (not the doctor's stored report) avoid words that track never taught."""
    import json
    from pathlib import Path

    path = Path(__file__).parents[3] / "notebooks/exercises/your-own-backward-pass.ipynb"
    cells = json.loads(path.read_text())["cells"]
    sources = ["".join(c["source"]) for c in cells]
    start = next(i for i, s in enumerate(sources) if s.startswith("## Part 1"))
    end = next(i for i, s in enumerate(sources) if s.startswith("## Part 2"))
    assert start < end
    part_1 = "\n".join(sources[start:end])
    for word in [*PART_1_UNTAUGHT[:-1], "detach", "dtype", "graph", "contract", "float32"]:
        assert word not in part_1, word
    assert "check_cube(Cube)" in part_1 and "check_function(Cube, lambda x: x**3)" in part_1


def notebook_sources() -> list[str]:
    import json
    from pathlib import Path

    path = Path(__file__).parents[3] / "notebooks/exercises/your-own-backward-pass.ipynb"
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]


GRAD = re.compile(r"autograd\.grad(?!check)")  # torch.autograd.grad, not gradcheck


def test_part_2_defines_torch_autograd_grad_before_the_task_instead_of_calling_it_taught():
    """The developer track uses torch.autograd.grad once, in code, and never explains it."""
    sources = notebook_sources()
    intro = next(s for s in sources if s.startswith("## Part 2"))
    taught = intro.split("It uses what that\ntrack taught:")[1].split(". ")[0]
    assert not GRAD.search(taught)
    part_2 = sources.index(intro)
    draft = next(i for i, s in enumerate(sources) if s.startswith("# ✏️ YOUR CODE: a first draft"))
    first = next(i for i, s in enumerate(sources) if i > part_2 and GRAD.search(s))
    assert first < draft  # defined before the task needs it, at its first mention
    said = sources[first]
    assert "*returns* the answer" in said and "stored in no\n`.grad`" in said
    first += 1  # and shown live
    assert 'print("and x.grad is:", x.grad)' in sources[first]


def test_the_task_states_the_callers_no_grad_up_front():
    task = next(s for s in notebook_sources() if s.startswith("### Your turn: `cube_grad`"))
    assert "called inside a caller's\n`with torch.no_grad():` block" in task


def test_the_times_are_the_ones_measured_with_fresh_readers():
    start = notebook_sources()[0]
    how_long = start.split("**How long it takes**")[1].split("\n\n")[0]
    assert "as measured with fresh readers" in how_long
    for time in (
        "about\n12 minutes for a beginner",
        "8 to 10 for a developer",
        "17 minutes",
        "about 5",
    ):
        assert time in how_long, time
