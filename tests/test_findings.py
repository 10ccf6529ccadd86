"""findings: every code has words, and every 'Read more' names a heading that exists."""

import json
from pathlib import Path

import pytest
import torch

from lessons_lib import findings
from lessons_lib.findings import CODES, LESSON_SECTIONS, SECTIONS

TRACKS = {
    findings.DEV: "notebooks/01-custom-function/2-developer.ipynb",
    findings.RES: "notebooks/01-custom-function/3-researcher.ipynb",
}
ROOT = Path(__file__).resolve().parent.parent


def headings(notebook: str) -> set[str]:
    cells = json.loads((ROOT / notebook).read_text())["cells"]
    lines = [
        line
        for c in cells
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).split("\n")
    ]
    return {line.lstrip("#").strip() for line in lines if line.startswith("#")}


@pytest.mark.parametrize("code", CODES)
def test_every_read_more_names_a_heading_of_its_track(code):
    track, heading = SECTIONS[code]
    assert heading in headings(TRACKS[track]), f"{code}: no heading {heading!r} in {track}"
    assert LESSON_SECTIONS[code] == f"{track}, “{heading}”"


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
