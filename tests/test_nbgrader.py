"""`make nbgrader` end to end, with nbgrader itself (tools/nbgrader_export.py).

Every exercise is exported and nbgrader generates the students' version (answers removed);
then three students hand in "Your own backward pass": the course's answers (right), a Cube
whose backward uses the slope 3·x and a cube_grad that skips Cube (wrong), and the notebook
as handed out (empty). nbgrader autogrades them, and each check's score must be what the
self-check itself says of that code: full marks, the self-check's count run here, and the
count stored in the course notebook's own run of the starter. nbgrader's feedback shows
each student their verdicts.
"""

import json
import os
import re
import subprocess

import pytest
import torch

from tools import nbgrader_env
from tools import nbgrader_export as export

GRADED = "your-own-backward-pass"
WRONG_CUBE = """class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x  # wrong: the slope is 3 * x**2"""
WRONG_CUBE_GRAD = """def cube_grad(x):
    return 3 * x**2  # right numbers, but Cube's backward never runs"""
SCORES = """
import json, sys
from nbgrader.api import Gradebook
database, assignment, *students = sys.argv[1:]
with Gradebook("sqlite:///" + database) as gb:
    found = {s: gb.find_submission_notebook(assignment, assignment, s).grades for s in students}
    print(json.dumps({s: {g.name: g.score for g in grades} for s, grades in found.items()}))
"""


def text(cell: dict) -> str:
    return export.cell_text(cell)


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nbgrader")
    parts = export.export(folder)
    return folder, parts


@pytest.fixture(scope="module")
def scores(course):
    """The three submissions of GRADED, autograded by nbgrader: {student: {check: score}}."""
    folder, _ = course
    name = f"{GRADED}.ipynb"
    release = load(folder / "release" / GRADED / name)
    source = {
        c["metadata"]["nbgrader"]["grade_id"]: text(c)
        for c in load(folder / "source" / GRADED / name)["cells"]
        if "nbgrader" in c["metadata"]
    }
    answers = {
        grade_id: "\n".join(line for line in code.split("\n") if "SOLUTION" not in line)
        for grade_id, code in source.items()
    }
    wrong = {"answer-Cube": WRONG_CUBE, "answer-cube_grad": WRONG_CUBE_GRAD}
    for student, filled in (("right", answers), ("wrong", wrong), ("empty", {})):
        handed_in = json.loads(json.dumps(release))
        for cell in handed_in["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
            if grade_id in filled and cell["metadata"]["nbgrader"]["solution"]:
                cell["source"] = filled[grade_id]
        where = folder / "submitted" / student / GRADED
        where.mkdir(parents=True)
        (where / name).write_text(json.dumps(handed_in), encoding="utf-8")
    export.nbgrader(folder, "autograde", GRADED)
    export.nbgrader(folder, "generate_feedback", GRADED)
    env = nbgrader_env.build()
    printed = subprocess.run(
        [env / "bin" / "python", "-c", SCORES, folder / "gradebook.db", GRADED, "right", "wrong", "empty"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return json.loads(printed.stdout)


def test_every_exercise_becomes_an_assignment_graded_by_its_self_checks(course):
    folder, parts = course
    exercises = sorted(p.stem for p in export.EXERCISES.glob("*.ipynb"))
    assert sorted(parts) == exercises
    assert sorted(p.name for p in (folder / "release").iterdir()) == exercises
    checks = {name: [(g.name, g.check) for g in graded] for name, graded in parts.items()}
    assert checks == {
        "check-your-clamp01": [
            ("my_edge_test", "check_edge_test"),
            ("my_checks", "check_my_checks"),
        ],
        "choose-your-surrogate": [
            ("MySpike", "check_spike"),
            ("my_surrogate_tests", "check_my_surrogate_tests"),
        ],
        "your-own-backward-pass": [("Cube", "check_cube"), ("cube_grad", "check_cube_grad")],
    }
    points = {g.check: g.points for graded in parts.values() for g in graded}
    assert points == {  # the teacher's guide gives them
        "check_edge_test": 9,
        "check_my_checks": 15,
        "check_spike": 5,
        "check_my_surrogate_tests": 7,
        "check_cube": 4,
        "check_cube_grad": 12,
    }


def test_the_students_version_keeps_each_starter_and_drops_every_answer(course):
    """Its code cells are the course notebook's, in order, bar the answers: each starter as
    learners know it, each self-check as nbgrader's test, no cell that shows or checks one of
    the course's answers."""
    folder, parts = course
    # An answer by its name, or as lessons_lib.Cube where the learner's own has the name.
    answers = "|".join(
        rf"lessons_lib\.{attribute}"
        if attribute in export.ANSWERS
        else rf"(lessons_lib\.)?{attribute}"
        for _, attribute in export.ANSWERS.values()
    )
    shows_an_answer = re.compile(rf"(show_source|check_\w+)\(({answers})\)")
    for name, graded in parts.items():
        course_cells = load(export.EXERCISES / f"{name}.ipynb")["cells"]
        left_out = export.answer_sections(course_cells)
        tests = {
            f"{g.check}({g.name})": export.GRADED.format(check=g.check, name=g.name) for g in graded
        }
        expected = [
            tests.get(text(c).strip(), text(c)).rstrip()
            for i, c in enumerate(course_cells)
            if c["cell_type"] == "code" and i not in left_out
        ]
        cells = load(folder / "release" / name / f"{name}.ipynb")["cells"]
        code = [text(c).rstrip() for c in cells if c["cell_type"] == "code"]
        assert code == expected, name
        assert [c for c in code if shows_an_answer.search(c)] == []
        assert len([c for c in course_cells if shows_an_answer.search(text(c))]) >= 2
        headings = [text(c).splitlines()[0] for c in cells if text(c).startswith("#")]
        assert [h for h in headings if re.search(r"\banswers?\b", h, re.I)] == []
        assert [c for c in cells if "answer" in c["metadata"].get("tags", [])] == []


def test_a_section_whose_cell_is_left_out_goes_with_it(course):
    """An answer cell outside the answers (a "what not to do" that shows too much) takes its
    own section along: no text is left speaking of a cell that is gone."""
    folder, _ = course
    name = "choose-your-surrogate"
    course_cells = load(export.EXERCISES / f"{name}.ipynb")["cells"]
    tagged = [i for i, c in enumerate(course_cells) if "answer" in c["metadata"].get("tags", [])]
    left_out = export.answer_sections(course_cells)
    assert set(tagged) <= left_out
    titles = [text(c).splitlines()[0] for c in course_cells if text(c).startswith("#")]
    assert "### A property test that never runs" in titles
    cells = load(folder / "release" / name / f"{name}.ipynb")["cells"]
    release = [text(c) for c in cells]
    assert not [t for t in release if "A property test that never runs" in t]
    assert not [t for t in release if "`peaks_at_threshold` is only defined" in t]
    assert [t for t in release if t.startswith("### gradcheck cannot judge a surrogate")]


def test_the_test_cells_are_locked_and_worth_a_point_per_check(course):
    folder, parts = course
    for name, graded in parts.items():
        cells = load(folder / "release" / name / f"{name}.ipynb")["cells"]
        tests = {
            c["metadata"]["nbgrader"]["grade_id"]: c["metadata"]["nbgrader"]
            for c in cells
            if c["metadata"].get("nbgrader", {}).get("grade")
        }
        assert {k: (v["points"], v["locked"]) for k, v in tests.items()} == {
            g.check: (g.points, True) for g in graded
        }


def stored_verdict(check: str, name: str) -> int:
    """The checks passed in the course notebook's stored run of the starter."""
    for cell in load(export.EXERCISES / f"{GRADED}.ipynb")["cells"]:
        if text(cell).strip() == f"{check}({name})":
            shown = "".join(cell["outputs"][0]["data"]["text/plain"])
            return int(re.search(r"(\d+) of \d+ checks passed", shown)[1])
    raise AssertionError(f"no stored run of {check}({name})")


def test_nbgrader_scores_right_wrong_and_empty_as_the_self_checks_do(course, scores):
    import lessons_lib

    _, parts = course
    full = {g.check: g.points for g in parts[GRADED]}
    assert scores["right"] == full
    os.environ["LESSONS_PROGRESS"] = "off"
    learner = {"torch": torch}
    exec(f"{WRONG_CUBE}\n{WRONG_CUBE_GRAD}", learner)
    assert scores["wrong"] == {
        "check_cube": lessons_lib.check_cube(learner["Cube"]).checks_passed,
        "check_cube_grad": lessons_lib.check_cube_grad(learner["cube_grad"]).checks_passed,
    }
    assert scores["empty"] == {
        "check_cube": stored_verdict("check_cube", "Cube"),
        "check_cube_grad": stored_verdict("check_cube_grad", "cube_grad"),
    }
    assert scores["right"] != scores["wrong"] != scores["empty"]


def test_every_pin_is_exact():
    from tests.requirements_files import requirements

    pins = requirements(nbgrader_env.PINS)
    assert "nbgrader" in {p.name for p in pins}
    assert all(p.spec.startswith("==") for p in pins)


def test_each_student_gets_feedback_with_their_verdicts(course, scores):
    folder, _ = course
    page = (folder / "feedback" / "empty" / GRADED / f"{GRADED}.html").read_text()
    assert "Cube: 2 of 4 checks passed" in page and "Score: 2.0 / 4.0" in page
