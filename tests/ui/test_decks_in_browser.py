"""The slide decks in a real browser, opened from the file as a teacher opens one offline.

Every request a deck makes is recorded, and all must stay on the machine (file:// or
127.0.0.1); any other is refused, so that the test itself never reaches the network. The
first slide shows the notebook's title and the right arrow moves on. No slide is cut: each
one fits reveal.js's 960x700 slide, or it scrolls and its last cell scrolls into view.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

from tests.test_slides import make_slides
from tools.notebooks import NOTEBOOKS as NOTEBOOKS_DIR
from tools.notebooks import notebook_paths
from tools.slides import deck_path

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
      const last = slide.lastElementChild.getBoundingClientRect();
      fits = last.bottom <= slide.getBoundingClientRect().bottom + 1;
      slide.scrollTop = 0;
    }
    for (const [el, display] of hidden) el.style.display = display;
    const heading = slide.dataset.continues || slide.querySelector("h1, h2, h3")?.textContent;
    return fits ? [] : [[index, heading, slide.scrollHeight]];
  });
}"""


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


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=lambda p: str(p.relative_to(NOTEBOOKS_DIR)))
def deck(request, browser, built):
    """A deck open from its file at a projector's size, once fit.js has fitted its slides."""
    opened = Deck(request.param, browser.new_page(viewport=PROJECTOR))
    page = opened.page
    page.on("request", lambda r: opened.requested.append(r.url))
    page.on("requestfailed", lambda r: opened.failed.append(f"{r.url}: {r.failure}"))
    page.route(lambda url: not ON_THIS_MACHINE.match(url), lambda route: route.abort())
    page.goto(deck_path(request.param).as_uri())
    page.wait_for_function("document.documentElement.dataset.slidesFitted !== undefined")
    yield opened
    page.close()


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
