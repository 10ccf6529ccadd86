"""findings: every code has words, and every 'Read more' names a heading that exists."""

import json
from pathlib import Path

import pytest
import torch

from lessons_lib import findings
from lessons_lib.findings import CODES, FURTHER_READING, LESSON_SECTIONS, SECTIONS
from lessons_lib.probe import SavedChange, Step

TRACKS = {
    findings.DEV: "notebooks/01-custom-function/2-developer.ipynb",
    findings.RES: "notebooks/01-custom-function/3-researcher.ipynb",
    findings.CHECK_DEV: "notebooks/02-checking-gradients/2-developer.ipynb",
}
ROOT = Path(__file__).resolve().parent.parent
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


@pytest.mark.parametrize("code", CODES)
def test_every_read_more_names_a_heading_of_its_track(code):
    track, heading = SECTIONS[code]
    assert heading in headings(TRACKS[track]), f"{code}: no heading {heading!r} in {track}"
    assert LESSON_SECTIONS[code] == f"{track}, “{heading}”"


@pytest.mark.parametrize("code", sorted(FURTHER_READING))
def test_every_further_reading_names_a_heading_of_its_track(code):
    for track, heading in FURTHER_READING[code]:
        assert heading in headings(TRACKS[track]), f"{code}: no heading {heading!r} in {track}"


def finding(code: str) -> findings.Finding:
    return findings.Finding(code, "what", "why", "fix")


def test_a_developer_reads_their_own_track_first_and_the_researcher_track_as_further_reading():
    """Where a developer track teaches the idea, 'Read more' cites it, never the researcher's."""
    for code in CODES:
        track, _ = SECTIONS[code]
        if code in findings.ONLY_RESEARCHER:
            assert track == findings.RES
            assert "developer tracks do not cover" in finding(code).section
        else:
            assert track in (findings.DEV, findings.CHECK_DEV), code
            assert finding(code).section == LESSON_SECTIONS[code]
    assert finding("double-backward").further.startswith("Researcher track, “Double backward")
    assert finding("jvp").further.startswith("Researcher track, “The `setup_context` form")
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
