"""`make nbgrader`: each exercise as an nbgrader assignment, graded by the course's self-checks.

    python -m tools.nbgrader_export [--course build/nbgrader]

For each notebook of notebooks/exercises/ it writes nbgrader's source version,
COURSE/source/<exercise>/<exercise>.ipynb, then has nbgrader (its own environment,
tools/nbgrader_env.py) generate the students' version, COURSE/release/<exercise>/:
- each "✏️ YOUR CODE" cell becomes an autograded answer cell: the starter as learners know
  it, then the course's answer between ### BEGIN SOLUTION and ### END SOLUTION, which
  nbgrader removes for the students (its stub is empty: the starter stays);
- the self-check that follows it (`check_cube(Cube)`) becomes a locked autograder test cell
  worth a point for each check the self-check runs; it shows the learner's verdict and gives
  nbgrader the number that passed, nbgrader's partial credit;
- each "The answer to ..." section is left out, and each cell tagged answer with the rest
  of its own section (its text speaks of the cell).
Every other cell stays as it is, outputs cleared. COURSE/nbgrader_config.py holds the
settings; the teacher's guide says how to hand the assignments out and grade them.
"""

import argparse
import ast
import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

from tools import nbgrader_env

ROOT = nbgrader_env.ROOT
EXERCISES = ROOT / "notebooks" / "exercises"
COURSE = ROOT / "build" / "nbgrader"
YOUR_CODE = "# ✏️ YOUR CODE"
ANSWER_TAG = "answer"
# The learner's name in each exercise's YOUR CODE cell -> the course's answer, as tested in
# lessons_lib (a new exercise adds its line; the export stops, saying so, until it does).
ANSWERS = {
    "Cube": ("lessons_lib.functions", "Cube"),
    "cube_grad": ("lessons_lib.exercises.backward_pass.answers", "cube_grad"),
    "my_edge_test": ("lessons_lib.exercises.clamp.answers", "edge_test"),
    "my_checks": ("lessons_lib.exercises.clamp.answers", "reference_checks"),
    "MySpike": ("lessons_lib.exercises.spike_answers", "SpikeAnswer"),
    "my_surrogate_tests": (
        "lessons_lib.exercises.surrogate_tests_answers",
        "reference_surrogate_tests",
    ),
}
DEFINED = re.compile(r"^(?:class|def) (\w+)", re.MULTILINE)
CHECK_CALL = re.compile(r"(check_\w+)\((\w+)\)")
HEADING = re.compile(r"(#{1,6}) ")
CONFIG = '''"""nbgrader's settings for the course's exercises (written by make nbgrader)."""

import os

c = get_config()  # noqa: F821 (nbgrader's config loader defines it)
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "autograd-function"
# The students' version keeps each exercise's starter: only the course's answer is removed.
c.ClearSolutions.code_stub = {"python": ""}
# A self-check may run property tests for a while; nbgrader's default is 30 s a cell.
c.Execute.timeout = 300
# Grading runs every submission's self-checks: none is recorded as someone's progress.
os.environ["LESSONS_PROGRESS"] = "off"
'''
GRADED = """# The course's self-check: a point for each of its checks that passes (nbgrader test).
verdict = {check}({name})
display(verdict)
verdict.checks_passed"""


@dataclass(frozen=True)
class Graded:
    """One part of an exercise: the learner's name for their answer, the check, its points."""

    name: str
    check: str
    points: int


def cell_text(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def answer_source(name: str, learners: set[str]) -> str:
    """The course's answer under the learner's name, with the imports it needs from its
    module (never one that would replace a learner's own name, such as their Cube)."""
    module_name, attribute = ANSWERS[name]
    module = importlib.import_module(module_name)
    imports = []
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound = {(alias.asname or alias.name).split(".")[0] for alias in node.names}
            if not bound & learners:
                imports.append(ast.unparse(node))
    code = textwrap.dedent(inspect.getsource(getattr(module, attribute)))
    code = re.sub(rf"^(class|def) {attribute}\b", rf"\g<1> {name}", code, count=1, flags=re.M)
    return "\n".join([*imports, "", code.rstrip()])


def points(check: str, name: str) -> int:
    """How many checks `check` runs, counted on the course's answer."""
    import lessons_lib

    module_name, attribute = ANSWERS[name]
    answer = getattr(importlib.import_module(module_name), attribute)
    return getattr(lessons_lib, check)(answer).checks_total


def answer_sections(cells: list[dict]) -> set[int]:
    """The cells of each "The answer to ..." section: its heading up to the next heading of
    the same or a higher level; and every cell tagged answer, with the rest of its own
    section when that is not an answer section (its text speaks of the cell)."""
    headings = {}  # cell -> its heading's level
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown" and (heading := HEADING.match(cell_text(cell))):
            headings[i] = len(heading[1])

    def section(start: int) -> range:
        after = [j for j, level in headings.items() if j > start and level <= headings[start]]
        return range(start, min(after, default=len(cells)))

    left_out = set()
    for i in headings:
        if re.search(r"\banswers?\b", cell_text(cells[i]).splitlines()[0], re.I):
            left_out.update(section(i))
    for i, cell in enumerate(cells):
        if ANSWER_TAG in cell.get("metadata", {}).get("tags", []) and i not in left_out:
            own = max((j for j in headings if j < i), default=None)
            left_out.update(section(own) if own is not None else [i])
    return left_out


def nbgrader_cell(cell: dict, grade_id: str, solution: bool, points: int = 0) -> None:
    meta = {"grade": not solution, "grade_id": grade_id, "locked": not solution}
    meta |= {"solution": solution, "schema_version": 3}
    if not solution:
        meta["points"] = points
    cell["metadata"]["nbgrader"] = meta


def source_version(notebook: dict) -> tuple[dict, list[Graded]]:
    """nbgrader's source version of an exercise notebook, and its graded parts."""
    skipped = answer_sections(notebook["cells"])
    cells = [json.loads(json.dumps(c)) for i, c in enumerate(notebook["cells"]) if i not in skipped]
    code = [c for c in cells if c["cell_type"] == "code"]
    learners = {
        m for c in code if cell_text(c).startswith(YOUR_CODE) for m in DEFINED.findall(cell_text(c))
    }
    graded = []
    for cell in code:
        cell["outputs"], cell["execution_count"] = [], None
    for at, cell in enumerate(code):
        if not cell_text(cell).startswith(YOUR_CODE):
            continue
        name = DEFINED.search(cell_text(cell))[1]
        if name not in ANSWERS:
            raise SystemExit(f"no answer for {name}: add it to ANSWERS in tools/nbgrader_export.py")
        check = next(
            (
                m[1]
                for c in code[at + 1 :]
                if (m := CHECK_CALL.fullmatch(cell_text(c).strip())) and m[2] == name
            ),
            None,
        )
        if check is None:
            raise SystemExit(f"no self-check of {name} follows its YOUR CODE cell")
        answer = answer_source(name, learners)
        cell["source"] = (
            f"{cell_text(cell).rstrip()}\n### BEGIN SOLUTION\n{answer}\n### END SOLUTION"
        )
        nbgrader_cell(cell, f"answer-{name}", solution=True)
        test = next(c for c in code[at + 1 :] if CHECK_CALL.fullmatch(cell_text(c).strip()))
        test["source"] = GRADED.format(check=check, name=name)
        part = Graded(name, check, points(check, name))
        nbgrader_cell(test, check, solution=False, points=part.points)
        graded.append(part)
    return {**notebook, "cells": cells}, graded


def write_source(course: Path) -> dict[str, list[Graded]]:
    """Every exercise's source version in course/source/, and course/nbgrader_config.py."""
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG)
    found = {}
    for path in sorted(EXERCISES.glob("*.ipynb")):
        notebook, graded = source_version(json.loads(path.read_text(encoding="utf-8")))
        folder = course / "source" / path.stem
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        (folder / path.name).write_text(text, encoding="utf-8")
        found[path.stem] = graded
    return found


def nbgrader(course: Path, *args: str, env: Path | None = None) -> subprocess.CompletedProcess:
    """nbgrader's command in the course folder, from its environment (on the PATH: nbgrader
    runs its `alembic` to make a new gradebook). A failure raises, with nbgrader's words."""
    bin_ = (env or nbgrader_env.build()) / "bin"
    done = subprocess.run(
        [bin_ / "nbgrader", *args],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"},
    )
    if done.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done


def export(course: Path = COURSE) -> dict[str, list[Graded]]:
    """Source and release versions of every exercise in `course`; their graded parts."""
    os.environ["LESSONS_PROGRESS"] = "off"  # counting the points runs each check
    env = nbgrader_env.build()
    assignments = write_source(course)
    nbgrader(course, "generate_assignment", "*", "--force", env=env)  # each of source/
    return assignments


def main(argv: list[str] | None = None) -> None:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--course", type=Path, default=COURSE, help="nbgrader's course folder")
    course = ask.parse_args(argv).course.resolve()
    assignments = export(course)
    for name, graded in assignments.items():
        parts = ", ".join(f"{g.check} {g.points} points" for g in graded)
        print(f"{name}: {sum(g.points for g in graded)} points ({parts})")
    print(f"Source versions (with answers) in {course}/source/, students' in {course}/release/.")
    print(
        f"Grade there: cd {course} && . {nbgrader_env.ENV}/bin/activate && nbgrader autograde NAME"
    )


if __name__ == "__main__":
    main()
