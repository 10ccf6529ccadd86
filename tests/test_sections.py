"""sections: the one table of where each idea is taught names headings that exist."""

import json
import re
from pathlib import Path

import pytest

import lessons_lib
from lessons_lib.sections import TAUGHT, TRACK_NAMES, Section, cite, read_more

ROOT = Path(__file__).resolve().parents[1]


def headings(section: Section) -> list[str]:
    """The notebook's headings, without their #s; in an exercise, only those of the part."""
    cells = json.loads((ROOT / "notebooks" / section.notebook).read_text())["cells"]
    lines = [
        line
        for cell in cells
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("#")
    ]
    if section.part:
        start = next(i for i, line in enumerate(lines) if line.startswith(f"## {section.part}:"))
        end = next(
            (i for i, line in enumerate(lines) if i > start and line.startswith("## ")), None
        )
        lines = lines[start:end]
    return [line.lstrip("#").strip() for line in lines]


@pytest.mark.parametrize("key", sorted(TAUGHT))
def test_every_heading_in_the_table_exists_in_its_notebook_and_part(key):
    section = TAUGHT[key]
    assert section.heading in headings(section), (key, section)


def test_a_pointer_names_the_track_then_the_heading():
    assert read_more("chain-rule") == ("Lesson 1 developer track, “Mistake 4: breaking the chain”")
    assert cite(TAUGHT["clamp"]) == (
        "This notebook, Part 1, “Clamp01: keep numbers between 0 and 1”"
    )


def test_no_other_module_spells_where_an_idea_is_taught():
    """One table: a track's name next to a quoted heading appears nowhere else in lessons_lib."""
    package = Path(lessons_lib.__file__).parent
    names = "|".join(re.escape(name) for name in TRACK_NAMES.values())
    pointer = re.compile(rf"({names}|[Dd]eveloper track|[Bb]eginner track|[Rr]esearcher track), “")
    spelled = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "sections.py" and pointer.search(path.read_text())
    ]
    assert spelled == []
