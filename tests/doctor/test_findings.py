"""findings: every code has a section or says none covers it, and every 'Read more' names a heading that exists."""

import json
import re
from pathlib import Path

import pytest

from lessons_lib.doctor import findings
from lessons_lib.doctor.findings import CODES, FURTHER_READING, LESSON_SECTIONS
from lessons_lib.sections import (
    L1_DEVELOPER,
    L1_RESEARCHER,
    L2_DEVELOPER,
    L3_DEVELOPER,
    TAUGHT,
    cite,
)

SECTIONS = {code: TAUGHT.get(code) for code in CODES}  # None: no section teaches it

ROOT = Path(__file__).resolve().parents[2]

OPTIONAL = " (optional on a first pass)"


def headings(notebook: str) -> set[str]:
    cells = json.loads((ROOT / notebook).read_text())["cells"]
    lines = [
        line
        for c in cells
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).split("\n")
    ]
    titles = {line.lstrip("#").strip() for line in lines if line.startswith("#")}
    # "(optional on a first pass)" marks a section for the route, it is not part of its title
    return titles | {t.removesuffix(OPTIONAL) for t in titles if t.endswith(OPTIONAL)}


def section_text(notebook: str, heading: str) -> str:
    """The markdown and code of a section: from its heading to the next heading as high."""
    cells = json.loads((ROOT / notebook).read_text())["cells"]
    text, level = [], 0
    for cell in cells:
        source = "".join(cell["source"])
        first = source.split("\n", 1)[0]
        if cell["cell_type"] == "markdown" and first.startswith("#"):
            depth = len(first) - len(first.lstrip("#"))
            title = first.lstrip("#").strip()
            if level and depth <= level:
                break
            if heading in (title, title.removesuffix(OPTIONAL)):
                level = depth
        if level:
            text.append(source)
    return "\n".join(text)


@pytest.mark.parametrize("code", CODES)
def test_every_read_more_names_a_heading_of_its_track_or_says_none_covers_it(code):
    where = SECTIONS[code]
    if where is None:
        assert LESSON_SECTIONS[code] == findings.NO_SECTION[code]
        assert LESSON_SECTIONS[code].startswith("no ") and "above" in LESSON_SECTIONS[code]
        return
    assert where.heading in headings(f"notebooks/{where.notebook}"), code
    assert LESSON_SECTIONS[code] == cite(where)


# What a section must show to cover each code's idea (found by reading each one).
COVERS = {
    "not-a-function": ["show_source(Cube)", "Cube.apply", "recorded your class in the graph"],
    "mutates-input": ["in-place", "mark_dirty"],
    "forward": ["no-lower-bound", "zero-at-one", "compares both with a reference"],
    "grad-count": ["forgets the two `None`s", "one value per forward input"],
    "non-tensor-grad": ["`None` for the two numbers"],
    "no-gradient": ['"no gradient"'],
    "mutates-saved": ["version counter", "in-place change", "refuses"],
    "mutates-grad-out": ["grad_out.mul_"],
    "chain-rule": ["ignored", "(5 * y).sum()"],
    "non-finite": ["overflow"],
    "gradient": ["gradcheck", "3 * x  # wrong"],
    "non-contiguous-grad-out": ["view", "reshape", "strides"],
    "undefined-grad-out": [
        "set_materialize_grads(False)",
        "check_undefined_grad",
        "if grad_out is None: return None",
    ],
    "double-backward": ["gradgradcheck", "detach"],
    "jvp": ["check_forward_ad", "jvp"],
    "ctx-tensor": ["ctx.x = x", "save_for_backward"],
    "frozen-input": ["reads the wrong index", "gradcheck_each_pattern", "check_function"],
    "output-dtype": [".float()", "to(x.dtype)", "grad_out arrives as", "GradcheckError"],
}


@pytest.mark.parametrize("code", sorted(COVERS))
def test_every_cited_section_really_covers_its_codes_idea(code):
    """'Read more' sends a learner where the idea is shown, not only where the word appears."""
    section = SECTIONS[code]
    text = section_text(f"notebooks/{section.notebook}", section.heading)
    for words in COVERS[code]:
        assert words in text, (code, section.heading, words)


def test_only_codes_that_no_section_covers_have_none():
    assert {code for code, where in SECTIONS.items() if where is None} == set(findings.NO_SECTION)
    assert set(COVERS) | set(findings.NO_SECTION) == set(CODES)


def test_a_wrong_forward_reads_where_a_forward_is_compared_with_a_reference():
    """Not "A complete custom operation", which runs Cube and compares no forward with anything."""
    assert SECTIONS["forward"].notebook == L2_DEVELOPER
    assert SECTIONS["forward"].heading == "What gradcheck finds, and what the doctor finds"


def test_an_error_is_not_sent_to_a_section_that_does_not_cover_it():
    """The walkthrough covers no error, least of all `and` on tensors or `x >= 0 & x <= 1`."""
    assert SECTIONS["error"] is None
    assert "Walkthrough" not in LESSON_SECTIONS["error"].title()
    assert "the message and the line above name the problem" in finding("error").section


@pytest.mark.parametrize("code", sorted(FURTHER_READING))
def test_every_further_reading_names_a_heading_of_its_track(code):
    for section in FURTHER_READING[code]:
        assert section.heading in headings(f"notebooks/{section.notebook}"), code


def test_an_undefined_grad_out_is_further_reading_where_backward_is_shown_receiving_none():
    (section,) = FURTHER_READING["undefined-grad-out"]
    text = section_text(f"notebooks/{section.notebook}", section.heading)
    assert "set_materialize_grads(False)" in text and "HardGate" in text


def test_a_gradients_shape_is_further_reading_where_the_researcher_track_states_it():
    (section,) = FURTHER_READING["grad-shape"]
    text = section_text(f"notebooks/{section.notebook}", section.heading)
    assert "each shaped like its input" in text


def finding(code: str) -> findings.Finding:
    return findings.Finding(code, "what", "why", "fix")


def test_a_developer_reads_their_own_track_first_and_the_researcher_track_as_further_reading():
    """Where a developer track teaches the idea, 'Read more' cites it, never the researcher's."""
    for code in CODES:
        if SECTIONS[code] is None:
            assert finding(code).section == findings.NO_SECTION[code]
            continue
        track = SECTIONS[code].notebook
        if code in findings.ONLY_RESEARCHER:
            assert track == L1_RESEARCHER
            assert "developer tracks do not cover" in finding(code).section
        else:
            assert track in (L1_DEVELOPER, L2_DEVELOPER, L3_DEVELOPER), code
            assert finding(code).section == LESSON_SECTIONS[code]
    assert finding("double-backward").further.startswith(
        "Lesson 1 researcher track, “Double backward"
    )
    assert finding("jvp").further.startswith("Lesson 1 researcher track, “The `setup_context` form")
    assert finding("chain-rule").further == ""


def test_codes_run_from_most_to_least_important_and_cover_every_section():
    assert CODES[:2] == ("not-a-function", "error") and CODES[-1] == "ctx-tensor"
    assert set(CODES) == set(SECTIONS) and len(CODES) == len(set(CODES))


def test_the_readme_lists_every_code_in_order():
    """The README's list of codes is what learners read first; it must not fall behind CODES."""
    readme = (ROOT / "README.md").read_text()
    listed = readme[readme.index("`.codes` (any of") : readme.index("most important first")]
    assert re.findall(r"`([a-z-]+)`", listed) == list(CODES)


def test_a_bump_away_from_the_step_reads_where_a_surrogate_is_centred():
    """An off-centre bump reads where a surrogate is centred; a bump at the step, where a
    surrogate is declared and tested."""
    from lessons_lib import check_function
    from lessons_lib.surrogate_gradients import step
    from lessons_lib.surrogate_patterns import OffCentreSpike, Spike

    section = TAUGHT["surrogate-centre"]
    off = check_function(OffCentreSpike, lambda x: step(x, 1.0)).findings[0]
    centred = check_function(Spike, lambda x: step(x, 1.0)).findings[0]
    assert off.section == cite(section) and centred.section == cite(TAUGHT["surrogate-test"])
    text = section_text(f"notebooks/{section.notebook}", section.heading)
    assert "OffCentreSpike" in text and "peaks at" in text


def test_a_plainly_wrong_derivative_still_reads_the_wrong_derivative_section():

    from lessons_lib import check_function
    from tests.learner_functions import cube, function

    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x  # wrong: x, not x**2

    finding = check_function(function("CubeWrong", forward, backward), cube).findings[0]
    assert finding.code == "gradient" and finding.section == LESSON_SECTIONS["gradient"]
    text = section_text(f"notebooks/{TAUGHT['surrogate-test'].notebook}", "How to test a surrogate")
    assert "grad_reference" in text
