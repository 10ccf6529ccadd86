"""The slide decks in a real browser, opened from the file as a teacher opens one offline.

Every request a deck makes is recorded, and all must stay on the machine (file:// or
127.0.0.1); any other is refused, so that the test itself never reaches the network. The
first slide shows the notebook's title and the right arrow moves on. No slide is cut: each
one fits reveal.js's 960x700 slide, or it scrolls, its last cell scrolls into view and it
says "more below" until it is scrolled to its end. A tall cell is cut between its blocks;
a diagram keeps its lines; a deck copied without its assets/ folder says what it needs.
"""

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

from tests.test_slides import make_slides
from tools.notebooks import NOTEBOOKS as NOTEBOOKS_DIR
from tools.notebooks import notebook_paths
from tools.slides import NEEDS_ASSETS, build, deck_path

NOTEBOOKS = notebook_paths()
PROJECTOR = {"width": 1280, "height": 720}
PRESENT = ".reveal .slides > section.present > section.present"  # the slide on screen
# data: is no request out (pictures and fonts inlined in the deck); Chromium may report it.
ON_THIS_MACHINE = re.compile(r"^(file://|data:|https?://127\.0\.0\.1[:/])")

# Every slide, sub-slides too, measured shown (reveal.js hides slides far from the current
# one): [index, heading, height] of each that is taller than the slide and cannot scroll to
# its last cell.
CUT_SLIDES = """() => {
  const height = Reveal.getConfig().height;
  return Reveal.getSlides().flatMap((slide, index) => {
    const hidden = [slide, slide.parentElement].map((el) => [el, el.style.display]);
    for (const [el] of hidden) el.style.display = "block";
    let fits = slide.scrollHeight <= height;
    const scrolls = ["auto", "scroll"].includes(getComputedStyle(slide).overflowY);
    if (!fits && scrolls && slide.clientHeight <= height) {
      slide.scrollTop = slide.scrollHeight;
      const last = slide.querySelector(":scope > :nth-last-child(1 of :not(.fit-more))")
        .getBoundingClientRect();
      fits = last.bottom <= slide.getBoundingClientRect().bottom + 1;
      slide.scrollTop = 0;
    }
    for (const [el, display] of hidden) el.style.display = display;
    const heading = slide.dataset.continues || slide.querySelector("h1, h2, h3")?.textContent;
    return fits ? [] : [[index, heading, slide.scrollHeight]];
  });
}"""


# Each slide, shown as CUT_SLIDES shows it and scrolled to its top: [index, whether some of it
# lies below the slide's foot (the lowest box in it, "more below" left out), whether it has
# "more below"].
BELOW_THE_FOOT = """() => {
  const height = Reveal.getConfig().height;
  return Reveal.getSlides().map((slide, index) => {
    const hidden = [slide, slide.parentElement].map((el) => [el, el.style.display]);
    for (const [el] of hidden) el.style.display = "block";
    const scrolled = slide.scrollTop;
    slide.scrollTop = 0;
    const box = slide.getBoundingClientRect();
    const scale = box.height / slide.offsetHeight;
    const boxes = [...slide.querySelectorAll("*")].filter(
      (el) => !el.closest(".fit-more") && el.getClientRects().length  // display: none has none
    );
    const lowest = Math.max(...boxes.map((el) => el.getBoundingClientRect().bottom));
    const result = [index, (lowest - box.top) / scale > height + 1, !!slide.querySelector(".fit-more")];
    slide.scrollTop = scrolled;
    for (const [el, display] of hidden) el.style.display = display;
    return result;
  });
}"""

# Shows the slide that holds `el` once reveal.js's transition has ended: its box stops moving.
GO_TO = """async (el) => {
  const slide = el.closest("section");
  const { h, v } = Reveal.getIndices(slide);
  Reveal.slide(h, v);
  for (let last = ""; ; ) {
    await new Promise((frame) => requestAnimationFrame(frame));
    const now = JSON.stringify(slide.getBoundingClientRect());
    if (now === last) return;
    last = now;
  }
}"""
# Resolves once the browser has drawn twice: a scroll's "scroll" event has been handled.
TWO_FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"

# The lines of a <pre> that the browser wraps onto more than one line.
WRAPPED_LINES = """(pre) => {
  const wrapped = [];
  const texts = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  for (let text; (text = texts.nextNode()); ) {
    let start = 0;
    for (const line of text.data.split("\\n")) {
      if (line.trim()) {
        const range = document.createRange();
        range.setStart(text, start);
        range.setEnd(text, start + line.length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) wrapped.push(line);
      }
      start += line.length + 1;
    }
  }
  return wrapped;
}"""

# Every diagram (a Markdown <pre>) of the deck, each shown: [its first line, its wrapped lines,
# whether it fits its width, whether it scrolls sideways].
DIAGRAMS = f"""() => Reveal.getSlides().flatMap((slide) => {{
  const hidden = [slide, slide.parentElement].map((el) => [el, el.style.display]);
  for (const [el] of hidden) el.style.display = "block";
  const found = [...slide.querySelectorAll(".jp-RenderedMarkdown pre")].map((pre) => [
    pre.textContent.trim().split("\\n")[0],
    ({WRAPPED_LINES})(pre),
    pre.scrollWidth <= pre.clientWidth,
    ["auto", "scroll"].includes(getComputedStyle(pre).overflowX),
  ]);
  for (const [el, display] of hidden) el.style.display = display;
  return found;
}})"""


@pytest.fixture(scope="module")
def built():
    make_slides()


@dataclass
class Deck:
    notebook: Path
    page: object  # playwright's Page
    requested: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(c.source for c in nbformat.read(self.notebook, as_version=4).cells)


@pytest.fixture(scope="module")
def deck_page(browser, built):
    """The page at a projector's size that opens every deck in turn, as a teacher's browser
    tab opens one deck after another (quicker than a new page for each deck)."""
    page = browser.new_page(viewport=PROJECTOR)
    page.route(lambda url: not ON_THIS_MACHINE.match(url), lambda route: route.abort())
    yield page
    page.close()


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=lambda p: str(p.relative_to(NOTEBOOKS_DIR)))
def deck(request, deck_page):
    """A deck open from its file, once fit.js has fitted its slides; what it requested."""
    opened = Deck(request.param, deck_page)

    def requested(request) -> None:
        opened.requested.append(request.url)

    def failed(request) -> None:
        opened.failed.append(f"{request.url}: {request.failure}")

    deck_page.on("request", requested)
    deck_page.on("requestfailed", failed)
    deck_page.goto(deck_path(request.param).as_uri())
    deck_page.wait_for_function("document.documentElement.dataset.slidesFitted !== undefined")
    yield opened
    deck_page.remove_listener("request", requested)
    deck_page.remove_listener("requestfailed", failed)


def test_a_deck_requests_nothing_beyond_the_machine(deck):
    assert [url for url in deck.requested if not ON_THIS_MACHINE.match(url)] == []
    assert deck.failed == []
    loaded = {url.rsplit("/", 1)[-1] for url in deck.requested}
    assert {"reveal.js", "tex-chtml-full.js", "fit.js", "white.css"} <= loaded


def test_the_first_slide_renders_and_the_right_arrow_moves_on(deck):
    page = deck.page
    title = re.search(r"^# (.+)$", deck.text, re.M)[1]
    assert page.evaluate("[Reveal.getIndices().h, Reveal.getIndices().v]") == [0, 0]
    first = page.locator(PRESENT).element_handle()
    heading = first.query_selector("h1")
    assert heading.is_visible() and heading.bounding_box()["height"] > 0
    assert heading.text_content().removesuffix("¶") == title
    page.keyboard.press("ArrowRight")
    page.wait_for_function("Reveal.getIndices().h + Reveal.getIndices().v > 0")
    assert "present" not in first.get_attribute("class")
    assert page.locator(PRESENT).is_visible()
    assert page.locator(PRESENT).bounding_box()["height"] > 0


def test_the_maths_is_typeset(deck):
    if re.search(r"\$[^$\s][^$]*\$", deck.text):
        assert deck.page.locator("mjx-container").count() > 0
    assert deck.page.locator("mjx-merror").count() == 0


def test_no_slide_is_cut(deck):
    assert deck.page.evaluate(CUT_SLIDES) == []


def test_down_scrolls_a_tall_slide_before_moving_on(deck):
    page = deck.page
    at = page.evaluate("""() => {
      const tall = document.querySelector(".reveal .slides section.fit-scroll");
      if (!tall) return null;
      const { h, v } = Reveal.getIndices(tall);
      Reveal.slide(h, v);
      return [h, v];
    }""")
    if at is None:
        pytest.skip("no slide of this deck scrolls")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("Reveal.getCurrentSlide().scrollTop") > 0
    assert page.evaluate("[Reveal.getIndices().h, Reveal.getIndices().v]") == at


def test_a_more_below_marker_shows_exactly_on_slides_that_scroll(deck):
    slides = deck.page.evaluate(BELOW_THE_FOOT)
    assert [index for index, below, _ in slides if below] == [
        index for index, _, marked in slides if marked
    ]


def test_more_below_shows_until_the_slide_is_scrolled_to_its_end(deck):
    page = deck.page
    more = page.query_selector(".fit-more")
    if more is None:
        pytest.skip("no slide of this deck scrolls")
    more.evaluate(GO_TO)
    slide = page.locator(PRESENT).element_handle()
    slide.evaluate("(slide) => (slide.scrollTop = 0)")  # as another test may have left it
    page.evaluate(TWO_FRAMES)
    assert more.is_visible() and more.text_content() == "more below (↓)"
    box, screen = more.bounding_box(), page.viewport_size
    assert box["y"] >= 0 and box["y"] + box["height"] <= screen["height"]  # on screen, unscrolled
    for _ in range(50):  # ↓ as a teacher would press it, until the end is in view
        if "fit-at-end" in slide.get_attribute("class"):
            break
        page.keyboard.press("ArrowDown")
        page.evaluate(TWO_FRAMES)
    assert "present" in slide.get_attribute("class")  # ↓ scrolled, and did not move on
    assert not more.is_visible()
    slide.evaluate("(slide) => (slide.scrollTop = 0)")
    page.evaluate(TWO_FRAMES)
    assert more.is_visible()


def test_diagrams_keep_their_lines(deck):
    """A Markdown <pre> wraps no line, and fits the slide or scrolls sideways inside it."""
    for first_line, wrapped, fits, scrolls in deck.page.evaluate(DIAGRAMS):
        assert wrapped == [], first_line
        assert fits or scrolls, first_line


LESSON_1 = NOTEBOOKS_DIR / "01-custom-function" / "1-beginner.ipynb"


@pytest.mark.parametrize("screen", [PROJECTOR, {"width": 1920, "height": 1080}], ids=str)
def test_lesson_one_diagram_keeps_its_lines_and_is_not_cut(browser, built, screen):
    page = browser.new_page(viewport=screen)
    try:
        page.goto(deck_path(LESSON_1).as_uri())
        page.wait_for_function("document.documentElement.dataset.slidesFitted !== undefined")
        pre = page.locator("pre", has_text="FORWARD: the dish goes out")
        pre.evaluate(GO_TO)
        assert pre.evaluate(WRAPPED_LINES) == []
        assert pre.evaluate("(pre) => pre.scrollWidth <= pre.clientWidth")  # no sideways scroll
        box = pre.bounding_box()
        slide = page.locator(PRESENT).bounding_box()
        assert slide["x"] <= box["x"] and box["x"] + box["width"] <= screen["width"]
        assert box["y"] >= 0 and box["y"] + box["height"] <= screen["height"]
    finally:
        page.close()


def test_a_deck_copied_alone_says_it_needs_the_assets_folder(browser, built, tmp_path):
    alone = tmp_path / "deck.slides.html"
    shutil.copy(deck_path(LESSON_1), alone)
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(alone.as_uri())
        page.wait_for_load_state("load")
        notice = page.locator("#deck-needs-assets")
        assert notice.is_visible() and notice.text_content().strip() == NEEDS_ASSETS
        assert notice.bounding_box()["height"] < 40  # one line
        assert notice.bounding_box()["y"] < 40  # at the top of the page
    finally:
        page.close()


def test_a_deck_with_its_assets_shows_no_notice(deck):
    assert deck.page.locator("#deck-needs-assets").is_hidden()


def tall_notebook() -> nbformat.NotebookNode:
    """One slide of each kind too tall for a slide: paragraphs, list items, table rows, a code
    cell's source and output, and one output that is too tall by itself."""
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    para = "words that fill a line on the slide, " * 3
    code = new_code("\n".join(f"step_{i} = {i}" for i in range(18)), execution_count=1)
    code.outputs = [nbformat.v4.new_output("stream", text="".join(f"out {i}\n" for i in range(12)))]
    longest = new_code("print_all()", execution_count=2)
    longest.outputs = [
        nbformat.v4.new_output("stream", text="".join(f"row {i}\n" for i in range(60)))
    ]
    rows = "".join(f"| row {i} | {para} |\n" for i in range(30))
    nb = nbformat.v4.new_notebook()
    nb.cells = [  # every heading starts a slide, as in the course's notebooks
        new_md("# Tall cells"),
        new_md("## Paragraphs\n\n" + "\n\n".join(f"Paragraph {i}: {para}" for i in range(30))),
        new_md("## Steps\n\n" + "\n".join(f"1. Step {i}: {para}" for i in range(1, 31))),
        new_md("## Table\n\n| name | what |\n|---|---|\n" + rows),
        new_md("## Code"),
        code,
        new_md("## Too tall"),
        longest,
    ]
    for cell in nb.cells:
        if cell.source.startswith("#"):
            cell.metadata.slideshow = {"slide_type": "slide"}
    return nb


def test_a_tall_cell_is_cut_between_its_blocks(browser, built, tmp_path):
    notebook = tmp_path / "tall.ipynb"
    nbformat.write(tall_notebook(), notebook)
    [deck] = build([notebook], out=tmp_path / "slides")
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(deck.as_uri())
        page.wait_for_function("document.documentElement.dataset.slidesFitted !== undefined")
        texts = """(els) => els
          .filter((el) => !el.closest("section").querySelector("#Credit"))  // the last slide's
          .map((el) => el.textContent.split(':')[0].trim())"""
        paragraphs = page.locator(".jp-RenderedMarkdown p").evaluate_all(texts)
        assert paragraphs == [f"Paragraph {i}" for i in range(30)]  # each once, in order
        steps = page.locator("ol > li").evaluate_all("""(items) => items.map((li) => {
          let number = li.parentElement.start - 1;  // as HTML numbers an ordered list
          for (const item of li.parentElement.children) {
            number = item.hasAttribute("value") ? item.value : number + 1;
            if (item === li) return [li.textContent.split(":")[0], number];
          }
        })""")
        assert steps == [[f"Step {i}", i] for i in range(1, 31)]
        rows = page.locator("tbody > tr").evaluate_all(
            "(rows) => rows.map((row) => row.cells[0].textContent.trim())"
        )
        assert rows == [f"row {i}" for i in range(30)]
        slides = page.evaluate("""() => Reveal.getSlides().map((slide) => [
          slide.querySelectorAll("p, ol > li, tbody > tr").length,
          slide.querySelectorAll("table").length === slide.querySelectorAll("thead").length,
          [...slide.querySelectorAll(".jp-InputArea-editor, .jp-OutputArea-output")]
            .map((el) => el.textContent.trim().split("\\n")[0]),
          !!slide.querySelector(".fit-more"),
        ])""")
        for count, head_on_every_table, _, _ in slides:
            assert count < 30 and head_on_every_table
        shown = [code for _, _, code, _ in slides if code]
        assert ["step_0 = 0"] in shown and ["out 0"] in shown  # source, then output
        assert shown.index(["out 0"]) == shown.index(["step_0 = 0"]) + 1
        assert [more for _, _, code, more in slides if more] == [True]
        # The one output too tall for a slide scrolls, on its own, right after its source.
        assert [code for _, _, code, more in slides if more] == [["row 0"]]
        assert shown.index(["row 0"]) == shown.index(["print_all()"]) + 1
        ids = page.evaluate("[...document.querySelectorAll('[id]')].map((el) => el.id)")
        assert len(ids) == len(set(ids))
        assert page.evaluate(CUT_SLIDES) == []
    finally:
        page.close()
