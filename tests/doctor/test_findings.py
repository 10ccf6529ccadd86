"""findings: every code has words, and every 'Read more' names a heading that exists."""

import json
import re
from pathlib import Path

import pytest
import torch

from lessons_lib.doctor import findings
from lessons_lib.doctor.findings import CODES, FURTHER_READING, LESSON_SECTIONS
from lessons_lib.doctor.non_finite import Step
from lessons_lib.running import SavedChange
from lessons_lib.sections import L1_DEVELOPER, L1_RESEARCHER, L2_DEVELOPER, TAUGHT, cite

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
    assert "“How to fix it” adds the usual cause" in finding("error").section


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
            assert track in (L1_DEVELOPER, L2_DEVELOPER), code
            assert finding(code).section == LESSON_SECTIONS[code]
    assert finding("double-backward").further.startswith(
        "Lesson 1 researcher track, “Double backward"
    )
    assert finding("jvp").further.startswith("Lesson 1 researcher track, “The `setup_context` form")
    assert finding("chain-rule").further == ""


def test_codes_run_from_most_to_least_important_and_cover_every_section():
    assert CODES[:2] == ("not-a-function", "error") and CODES[-1] == "ctx-tensor"
    assert set(CODES) == set(SECTIONS) and len(CODES) == len(set(CODES))


def test_grad_shape_advice_depends_on_which_way_the_shape_is_off():
    x = torch.zeros(4)
    too_big = findings.grad_shape("x", torch.zeros(3, 5), x)
    too_small = findings.grad_shape("x", torch.zeros(()), x)
    assert "sum_to_size" in too_big.fix and "broadcast" in too_big.fix
    assert "no reduction" in too_small.fix
    assert "do not sum" not in too_big.fix + too_small.fix
    assert "float, not a tensor" in findings.grad_shape("x", 12.0, x).what


def test_the_chain_rule_finding_says_how_backward_fails_to_scale():
    assert "ignores grad_out" in findings.chain_rule("x", "ignores", ()).what
    assert "adds grad_out" in findings.chain_rule("x", "adds", ()).what
    assert "does not scale" in findings.chain_rule("x", "other", ()).what


def test_grad_out_misused_is_fixed_by_using_it_not_by_rederiving_the_derivative():
    """The derivative is right in both: the generic words would send the learner astray."""
    one = findings.chain_rule("x", "one-number", (), "15.8, the sum of grad_out")
    assert "uses grad_out as one number" in one.what and "times 15.8, the sum of" in one.what
    assert "grad_out.sum()" in one.why and "element by element" in one.fix
    ignored = findings.chain_rule("x", "ignores-output", (), "output 1 (g3 in backward)")
    assert "ignores the grad_out of output 1 (g3 in backward)" in ignored.what
    assert "one grad_out per output" in ignored.why and "summed" in ignored.fix
    for words in (one, ignored):
        assert (
            "Multiply by grad_out" not in words.fix
            and words.section == LESSON_SECTIONS["chain-rule"]
        )


def test_the_ctx_tensor_finding_gives_the_documented_reasons_not_double_backward():
    why = findings.ctx_tensor(["x"]).why
    assert "saved_tensors_hooks" in why and "version check" in why and "garbage collector" in why
    assert "double backward" not in why


@pytest.mark.parametrize(
    ("step", "cause", "text"),
    [
        (
            Step("pow", (-15.625, 2 / 3), float("nan")),
            "fractional-power",
            "(-15.62) ** 0.6667 = nan",
        ),
        (Step("pow", (-2.0, 2), float("inf")), "overflow", "(-2) ** 2 = inf"),
        (Step("exp", (1000.0,), float("inf")), "overflow", "exp(1000) = inf"),
        (Step("div", (1.0, 0.0), float("inf")), "zero", "1 / 0 = inf"),
        (Step("div", (0.0, 0.0), float("nan")), "zero-by-zero", "0 / 0 = nan"),
        (Step("log", (0.0,), float("-inf")), "zero", "log(0) = -inf"),
        (Step("sqrt", (-4.0,), float("nan")), "negative-root", "sqrt(-4) = nan"),
        (Step("acos", (2.0,), float("nan")), "undefined", "acos(2) = nan"),
        (Step("rsub", (3.0, 1.0), float("nan")), "undefined", "1 - 3 = nan"),
    ],
)
def test_a_non_finite_step_is_written_as_arithmetic_with_its_cause(step, cause, text):
    assert findings.non_finite_cause(step) == cause
    assert findings.step_text(step) == text


def test_non_finite_says_nan_or_infinite_as_seen_and_fixes_the_cause_it_traced():
    nan, inf = torch.tensor([float("nan")]), torch.tensor([float("inf")])
    root = findings.non_finite("x", ("at x = -4: ...",), nan, [Step("sqrt", (-4.0,), nan.item())])
    assert "is NaN where" in root.what and "sqrt and log give NaN" in root.fix
    assert root.evidence[1] == (
        "there, backward computed sqrt(-4) = nan: the square root or log of a negative number"
    )
    assert root.section == findings.NON_FINITE_UNCOVERED  # 3.3 shows overflow, not this
    overflow = findings.non_finite("x", (), inf, [Step("exp", (1000.0,), inf.item())])
    assert overflow.section == LESSON_SECTIONS["non-finite"] + (
        " (the developer tracks do not cover NaN and overflow in a derivative)"
    )
    untraced = findings.non_finite("x", (), torch.cat([nan, inf]), [])
    assert "is NaN or infinite where" in untraced.what
    assert "The usual causes of NaN" in untraced.fix and "The usual causes of inf" in untraced.fix


def test_mutates_saved_says_where_the_change_lands_and_whether_a_second_backward_notices():
    before = torch.zeros(2)
    made_in_forward = SavedChange(1, None, before, before + 1, counted=True)
    words = findings.mutates_saved(made_in_forward, ["x"], ())
    assert "argument 2 of save_for_backward" in words.what
    assert "Nothing else holds this tensor" in words.why and "second backward" in words.why
    output = findings.mutates_saved(SavedChange(0, ("output", 0), before, before, False), ["x"], ())
    assert "the saved output in place" in output.what and "version counter" in output.why


def test_double_backward_words_depend_on_whether_it_raised():
    raised = findings.double_backward("Double backward raised RuntimeError: ...", raised=True)
    silent = findings.double_backward("Double backward is wrong ...")
    assert "with no error" not in raised.why and "stops with this error" in raised.why
    assert "Do not silence the error with .detach()" in raised.fix
    assert "with no error" in silent.why


def test_undefined_grad_out_says_what_backward_received_and_which_output():
    raised = findings.undefined_grad_out(
        "", "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'", []
    )
    assert raised.what == "backward raises when grad_out is None."
    assert raised.evidence[0].startswith("with grad_out None, backward raised TypeError")
    assert "training stops with this error" in raised.why
    assert "if grad_out is None: return None" in raised.fix
    one = findings.undefined_grad_out(
        "output 1 (g3 in backward)", "TypeError: ... 'NoneType'", [], True
    )
    assert one.what == "backward raises when the grad_out of output 1 (g3 in backward) is None."
    invented = findings.undefined_grad_out("", None, ["x"], True)
    assert invented.what.startswith(
        "backward returns a non-zero gradient for x when every grad_out"
    )
    assert "stops with this error" not in invented.why


def test_the_readme_lists_every_code_in_order():
    """The README's list of codes is what learners read first; it must not fall behind CODES."""
    readme = (ROOT / "README.md").read_text()
    listed = readme[readme.index("`.codes` (any of") : readme.index("most important first")]
    assert re.findall(r"`([a-z-]+)`", listed) == list(CODES)
