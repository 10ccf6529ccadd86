"""`make slides` builds one offline deck per notebook, a slide per heading, answers last,
then the course's credit.

What the decks do in a browser (no request leaves the machine, no slide is cut) is
tests/ui/test_decks_in_browser.py.
"""

import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import ipywidgets
import nbformat
import pytest

from tests.answer_leaks import answer_code, deck_leaks
from tests.lab_server import ROOT
from tests.widget_reprs import widget_reprs
from tools import credit
from tools.notebooks import NOTEBOOKS as NOTEBOOKS_DIR
from tools.notebooks import notebook_paths
from tools.slides import (
    ANSWER_TAG,
    ANSWERS_TITLE,
    CREDIT_TITLE,
    NEEDS_ASSETS,
    NODE_MODULES,
    OUT,
    POINTER,
    deck_path,
    for_slides,
)
from tools.widget_stand_ins import WIDGET_VIEW

NOTEBOOKS = notebook_paths()
BY_PATH = {"ids": lambda p: str(p.relative_to(NOTEBOOKS_DIR))}
# Every file a page loads: scripts, style sheets, and what style sheets import or use.
LOADED = re.compile(
    r'<(?:script|link|img)\b[^>]*?\b(?:src|href)="([^"]+)"'
    r"""|url\(["']?([^)"']+)|@import\s+["']([^"']+)"""
)


def make_slides() -> str:
    """`make slides`, which installs reveal.js and MathJax with npm the first time; what it
    printed."""
    if not shutil.which("npm") and not NODE_MODULES.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI must build the slide decks, but npm is missing")
        pytest.skip("the slide decks need Node.js and npm: apt-get install nodejs npm")
    done = subprocess.run(
        ["make", "-s", "slides"], cwd=ROOT, check=True, capture_output=True, text=True
    )
    return done.stdout


@pytest.fixture(scope="module")
def made() -> str:
    return make_slides()


@pytest.fixture(scope="module")
def decks(made):
    return {path: deck_path(path).read_text() for path in NOTEBOOKS}


def test_make_slides_says_how_to_give_the_credit_line_an_address(made):
    """The advice `make credit` gives, for this clone: git remote add, or set-url."""
    address, why = credit.source()
    advice = [line for line in made.splitlines() if line.startswith("No address")]
    assert advice == ([] if address else [credit.no_address(why, "make slides")])


def answers(path: Path) -> list[nbformat.NotebookNode]:
    cells = nbformat.read(path, as_version=4).cells
    return [c for c in cells if ANSWER_TAG in c.metadata.get("tags", [])]


def loaded(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in LOADED.finditer(text)]


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_a_deck_has_a_slide_per_heading_one_for_the_answers_and_the_credit(decks, path):
    headings = [
        c
        for c in nbformat.read(path, as_version=4).cells
        if c.cell_type == "markdown" and c.source.startswith("#")
    ]
    # reveal.js nests sub-slides; each top-level slide opens with a <section> pair.
    slides = len(re.findall(r"<section>\s*<section>", decks[path]))
    assert slides == len(headings) + bool(answers(path)) + 1


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_a_deck_loads_only_files_beside_it_that_exist(decks, path):
    deck = deck_path(path)
    pending, seen = [(deck, decks[path])], set()
    while pending:  # the deck, then every style sheet it loads, and theirs
        page, text = pending.pop()
        for target in loaded(text):
            if target.startswith("data:"):
                continue  # inline: pictures, and the theme's fonts
            assert "://" not in target and not target.startswith("//"), (page.name, target)
            file = (page.parent / target.split("?")[0].split("#")[0]).resolve()
            assert file.is_relative_to(OUT.resolve()) and file.is_file(), (page.name, target)
            if file.suffix == ".css" and file not in seen:
                seen.add(file)
                pending.append((file, file.read_text()))
    assert {"reveal.css", "white.css", "fit.css"} <= {f.name for f in seen}


def test_the_decks_load_reveal_js_and_mathjax_from_the_pinned_packages(decks):
    deck = decks[NOTEBOOKS[0]]
    for script in ["assets/reveal/dist/reveal.js", "assets/mathjax/tex-chtml-full.js"]:
        assert f'src="{script}"' in deck
    assert "cdn" not in deck.lower() and "unpkg" not in deck


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_folded_answers_wait_on_the_last_slide(decks, path):
    """An answer the notebook folds away shows only after the Answers slide begins."""
    answers_start = decks[path].find('id="Answers"')
    for cell in answers(path):
        assert decks[path].index(f'id="cell-id={cell.id}"') > answers_start > 0, cell.source


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_every_answer_the_notebook_folds_away_is_tagged(path):
    """Else the deck shows it where the notebook hides it."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.metadata.get("jupyter", {}).get("outputs_hidden"):
            assert ANSWER_TAG in cell.metadata.get("tags", []), cell.source


def test_an_answer_leaves_a_pointer_and_moves_after_every_heading():
    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_code_cell("show_source(Answer)", metadata={"tags": [ANSWER_TAG]})
    how = nbformat.v4.new_markdown_cell("How it works.", metadata={"tags": [ANSWER_TAG]})
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "## Try it\n\n[Lesson 2](../02/1-beginner.ipynb#top), [a guide](a.md)."
        ),
        answer,
        how,  # the same run of answers: one pointer, one slide
        nbformat.v4.new_markdown_cell("## Remember this"),
    ]
    notebook = ROOT / "notebooks" / "01" / "1-beginner.ipynb"
    cells = for_slides(nb, notebook, deck_path(notebook), "## Credit\n\nThe line.").cells
    assert [c.source.splitlines()[0] for c in cells if c.cell_type == "markdown"] == [
        "## Try it",
        POINTER,
        "## Remember this",
        f"## {ANSWERS_TITLE}",
        "### Try it",
        "How it works.",
        "## Credit",
    ]
    assert cells[-3:-1] == [answer, how]
    assert cells[-1].metadata["slideshow"] == {"slide_type": "slide"}
    assert "](../02/1-beginner.slides.html#top)" in cells[0].source
    assert "](../../../notebooks/01/a.md)" in cells[0].source


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_no_deck_shows_a_widgets_python_repr(decks, path):
    """A widget cannot be drawn on a slide: its repr ("IntProgress(...)") stays off it too."""
    assert widget_reprs(decks[path]) == []


def test_a_plain_widgets_output_is_left_out_and_an_explorers_kept():
    progress = ipywidgets.IntProgress(value=0, min=0, max=1, description="training")
    explorer = {
        "image/png": "iVBORw0KGgo=",
        "text/plain": "Training explorer: ...",
        WIDGET_VIEW: {"model_id": "0", "version_major": 2, "version_minor": 0},
    }
    cell = nbformat.v4.new_code_cell("train_surrogates()")
    cell.outputs = [
        nbformat.v4.new_output("display_data", progress._repr_mimebundle_()),
        nbformat.v4.new_output("display_data", explorer),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell])
    notebook = ROOT / "notebooks" / "03" / "1-beginner.ipynb"
    kept = for_slides(nb, notebook, deck_path(notebook)).cells[0].outputs
    assert [output.data for output in kept] == [explorer]


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_relative_links_lead_to_decks_or_files(decks, path):
    links = re.findall(r'<a href="([^"#:]+)(?:#[^"]*)?"', decks[path])
    assert not [link for link in links if link.endswith(".ipynb")]
    for link in links:
        assert (deck_path(path).parent / link).is_file(), link


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_a_deck_holds_the_notice_it_shows_without_its_assets(decks, path):
    """Hidden at first; the deck's own script shows it if reveal.js did not load."""
    notice = re.search(r'<p ([^>]*\bid="deck-needs-assets"[^>]*)>([^<]*)</p>', decks[path])
    assert notice and re.search(r"\bhidden\b", notice[1]) and notice[2].strip() == NEEDS_ASSETS
    assert decks[path].index("deck-needs-assets") < decks[path].index('<div class="reveal">')


def test_a_notebook_from_elsewhere_gets_its_deck_at_the_top(tmp_path):
    assert deck_path(tmp_path / "tall.ipynb", tmp_path / "out") == tmp_path / "out/tall.slides.html"
    lesson = NOTEBOOKS_DIR / "01-custom-function" / "1-beginner.ipynb"
    assert deck_path(lesson, tmp_path) == tmp_path / "01-custom-function/1-beginner.slides.html"


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_no_answer_code_shows_before_the_answers_slide(decks, path):
    code = answer_code(nbformat.read(path, as_version=4))
    assert deck_leaks(decks[path], code, ANSWERS_TITLE) == []


def test_the_answers_slides_hold_the_answers_code(decks):
    """The check above can fail: moved before the Answers slide, the answers would show."""
    path = NOTEBOOKS_DIR / "exercises" / "your-own-backward-pass.ipynb"
    code = answer_code(nbformat.read(path, as_version=4))
    moved = decks[path].replace(f'id="{ANSWERS_TITLE}"', 'id="Moved"')
    shown = deck_leaks(moved, code, ANSWERS_TITLE)
    for line in ("return grad_out * 3 * x**2", "with torch.enable_grad():"):
        assert repr(line) in shown


def last_slide(deck: str) -> str:
    return deck[deck.rindex("<section>") :]


@pytest.mark.parametrize("path", NOTEBOOKS, **BY_PATH)
def test_the_last_slide_credits_the_course_with_the_code_notice(decks, path):
    address, _ = credit.source()
    held = credit.notice()
    slide = last_slide(decks[path])
    assert f'<h2 id="{CREDIT_TITLE}">' in slide
    text = re.sub(r"<[^>]+>", "", re.sub(r"</(p|h2)>", " ", slide))  # a paragraph ends a word
    shown = " ".join(html.unescape(text).split())
    assert " ".join(credit.credit_line(address).split()) in shown
    assert held.copyright in shown
    assert " ".join(held.permission.split()) in shown, "the MIT licence's whole notice"
