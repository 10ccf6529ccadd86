"""`make slides` builds one deck per notebook, a slide per heading."""

import re
import subprocess

import nbformat

from tests.lab_server import ROOT
from tools.notebooks import notebook_paths


def test_make_slides_builds_a_deck_per_notebook_with_a_slide_per_heading():
    subprocess.run(["make", "-s", "slides"], cwd=ROOT, check=True, capture_output=True)
    for path in notebook_paths():
        relative = path.relative_to(ROOT / "notebooks").with_suffix(".slides.html")
        deck = (ROOT / "build" / "slides" / relative).read_text()
        headings = [
            c
            for c in nbformat.read(path, as_version=4).cells
            if c.cell_type == "markdown" and c.source.startswith("#")
        ]
        # reveal.js nests sub-slides; each top-level slide opens with a <section> pair.
        slides = len(re.findall(r"<section>\s*<section>", deck))
        assert slides == len(headings), path.name
