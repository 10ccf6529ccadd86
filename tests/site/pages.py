"""Reading a built site's pages: where a notebook's page is, its visible text and images,
and what a stored output must show on it."""

from html.parser import HTMLParser
from pathlib import Path

import nbformat

from tests.lab_server import ROOT


def page_of(notebook: Path, site: Path) -> Path:
    return site / notebook.relative_to(ROOT).with_suffix(".html")


class PageText(HTMLParser):
    """A page's visible text (scripts and styles left out), its images and their alt text."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.loads: list[str] = []  # what the page makes a browser fetch by itself
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style"):
            self._skip += 1
        if tag == "img":
            self.images.append(attrs)
        if tag in ("script", "img", "iframe") and attrs.get("src"):
            self.loads.append(attrs["src"])
        if tag == "link" and attrs.get("href") and attrs.get("rel") != "canonical":
            self.loads.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def read_page(path: Path) -> PageText:
    parser = PageText()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def words(text: str) -> str:
    return " ".join(text.split())


def shown_words(page: Path) -> str:
    """A page's visible text, its words one space apart, Sphinx's curly apostrophes plain."""
    return words("".join(read_page(page).text)).replace("\u2019", "'")


def shown_text(output: nbformat.NotebookNode) -> str:
    """The text a page must show for a stored output: its HTML's words, else its text."""
    if output.output_type == "stream":
        return output.text
    data = output.get("data", {})
    if "text/html" in data:
        parser = PageText()
        parser.feed(data["text/html"])
        return "".join(parser.text)
    return data.get("text/plain", "")


def site_pages_of(site: Path) -> list[Path]:
    return [p for p in sorted(site.rglob("*.html")) if "_static" not in p.relative_to(site).parts]
