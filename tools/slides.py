"""Build one reveal.js deck per notebook into build/slides/, every file it loads beside it.

    python -m tools.slides [NOTEBOOK ...]    (default: every notebook; `make slides`)

A deck opens offline, from the file itself: it loads only build/slides/assets/, which holds
reveal.js and MathJax from slides/node_modules (pinned in slides/package-lock.json; `make
slides` runs `npm ci`) and slides/deck/fit.js, which splits a slide too tall for the screen
into sub-slides and marks one that still scrolls. The template, slides/deck/, is nbconvert's
reveal template without its CDN links; a deck copied without assets/ says so. Every heading
starts a slide (tests/test_notebooks.py); the answers a notebook folds away (cells tagged
"answer") wait on a last slide, Answers; links to notebooks lead to decks. The very last
slide credits the course (tools/credit.py), with the notice code copied from it keeps.
"""

import argparse
import os
import re
import sys
from html import escape
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter

from tools import credit, widget_stand_ins
from tools.notebooks import NOTEBOOKS, notebook_paths

ROOT = NOTEBOOKS.parent
DECK_TEMPLATE = ROOT / "slides" / "deck"
NODE_MODULES = ROOT / "slides" / "node_modules"
OUT = ROOT / "build" / "slides"
ASSETS = "assets"  # build/slides/assets/, shared by every deck
ANSWER_TAG = "answer"
ANSWERS_TITLE = "Answers"
POINTER = f"*The answer waits at the end, {ANSWERS_TITLE}.*"
POINTER_ID = "answer-pointer-{}"
NEEDS_ASSETS = "This deck needs the assets/ folder beside it: copy the whole build/slides/ folder."

# Where each file a deck loads comes from, by its path under build/slides/assets/. MathJax's
# single-file build needs nothing else but its fonts; the white theme embeds its own fonts.
ASSET_SOURCES = {
    "reveal/dist/reveal.js": NODE_MODULES / "reveal.js/dist/reveal.js",
    "reveal/dist/reveal.css": NODE_MODULES / "reveal.js/dist/reveal.css",
    "reveal/dist/theme/white.css": NODE_MODULES / "reveal.js/dist/theme/white.css",
    "reveal/LICENSE": NODE_MODULES / "reveal.js/LICENSE",
    "mathjax/tex-chtml-full.js": NODE_MODULES / "mathjax/es5/tex-chtml-full.js",
    "mathjax/output/chtml/fonts/woff-v2": NODE_MODULES / "mathjax/es5/output/chtml/fonts/woff-v2",
    "mathjax/LICENSE": NODE_MODULES / "mathjax/LICENSE",
    "fit.js": DECK_TEMPLATE / "fit.js",
    "fit.css": DECK_TEMPLATE / "fit.css",
}
RELATIVE_LINK = re.compile(r"\]\((?![a-z]+:|#)([^)\s#]+)")  # a Markdown link's target, anchor off


def deck_path(notebook: Path, out: Path = OUT) -> Path:
    """Where a notebook's deck goes: its folder kept, as two lessons share file names (one
    from outside notebooks/ goes to the top)."""
    where = notebook.relative_to(NOTEBOOKS) if notebook.is_relative_to(NOTEBOOKS) else notebook.name
    return out / Path(where).with_suffix(".slides.html")


def is_heading(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "markdown" and cell.source.startswith("#")


def deck_link(target: str, notebook: Path, deck: Path) -> str:
    """A notebook's relative link, from its deck: to the other deck, or to the file."""
    if target.endswith(".ipynb"):  # the decks' folders are the notebooks'
        return target.removesuffix(".ipynb") + ".slides.html"
    return Path(os.path.relpath(notebook.parent / target, deck.parent)).as_posix()


def for_slides(
    nb: nbformat.NotebookNode, notebook: Path, deck: Path, last_slide: str = ""
) -> nbformat.NotebookNode:
    """The notebook as its deck shows it: folded answers last, each run of them under its
    heading, links from the deck, no widgets (nor a plain widget's repr, tools/widget_stand_ins.py);
    the credit slide (Markdown) at the very end."""
    nb.metadata.pop("widgets", None)  # no widget state: explorers show their stored picture
    kept, answers, heading = [], [], ""
    for cell in nb.cells:
        if cell.cell_type == "code":  # a plain widget's repr ("IntProgress(...)") is no slide text
            cell.outputs = [
                out for out in cell.outputs if not widget_stand_ins.is_stand_in(out.get("data", {}))
            ]
        if is_heading(cell):
            heading = cell.source.splitlines()[0].lstrip("#").strip()
        if cell.cell_type == "markdown":
            cell.source = RELATIVE_LINK.sub(
                lambda link: f"]({deck_link(link[1], notebook, deck)}", cell.source
            )
        if ANSWER_TAG not in cell.metadata.get("tags", []):
            kept.append(cell)
        elif kept and kept[-1].get("id") == POINTER_ID.format(len(answers) - 1):
            answers[-1][1].append(cell)  # the same run of answers: one pointer, one slide
        else:
            answers.append((heading, [cell]))
            pointer = nbformat.v4.new_markdown_cell(POINTER)
            pointer.id = POINTER_ID.format(len(answers) - 1)
            kept.append(pointer)
    if answers:
        kept.append(
            slide_cell(
                f"## {ANSWERS_TITLE}\n\nThe course's answers, which the notebook folds away "
                "until a learner opens them: one per slide from here.",
                "slide",
            )
        )
        for heading, cells in answers:
            kept += [slide_cell(f"### {heading}", "subslide"), *cells]
    if last_slide:
        kept.append(slide_cell(last_slide, "slide"))
    nb.cells = kept
    return nb


CREDIT_TITLE = "Credit"


def credit_slide(address: str | None) -> str:
    """The last slide of every deck: the credit line, and the notice code on slides keeps."""
    held = credit.notice()
    notice = "".join(
        f"<p>{escape(paragraph)}</p>"
        for paragraph in [held.copyright, *held.permission.split("\n\n")]
    )
    return (
        f"## {CREDIT_TITLE}\n\n"
        f"{credit.credit_line(address, held)}\n\n"
        "Reusing these slides? Credit them with the line above. "
        f"{credit.ADAPTED}\n\n"
        "The code on these slides is under the MIT licence: a copy keeps this notice.\n\n"
        '<div class="deck-licence" style="font-size: 0.4em; text-align: left;">'
        f"{notice}</div>"
    )


def slide_cell(source: str, slide_type: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(source, metadata={"slideshow": {"slide_type": slide_type}})


def write_atomically(path: Path, data: bytes) -> None:
    """Readers never see half a file: two test workers may build the decks at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    partial.replace(path)


def copy_assets(out: Path) -> None:
    missing = [str(p) for p in ASSET_SOURCES.values() if not p.exists()]
    if missing:
        sys.exit(f"missing {', '.join(missing)}: `make slides` installs them (npm ci in slides/)")
    for name, source in ASSET_SOURCES.items():
        files = sorted(source.iterdir()) if source.is_dir() else [source]
        for file in files:
            target = out / ASSETS / name / file.name if source.is_dir() else out / ASSETS / name
            write_atomically(target, file.read_bytes())


def build(notebooks: list[Path], out: Path = OUT, address: str | None = None) -> list[Path]:
    """Write each notebook's deck and the files the decks load; return the decks' paths.

    address: where the course is published, for the credit slide (tools/credit.py).
    """
    copy_assets(out)
    last_slide = credit_slide(address)
    exporter = SlidesExporter(
        extra_template_basedirs=[str(DECK_TEMPLATE.parent)],
        template_name=DECK_TEMPLATE.name,
        reveal_theme="white",
        reveal_width="960",  # reveal.js scales the slide to the screen; fit.js fits this
        reveal_height="700",
    )
    decks = []
    for notebook in notebooks:
        deck = deck_path(notebook, out)
        assets = Path(os.path.relpath(out / ASSETS, deck.parent)).as_posix()
        exporter.reveal_url_prefix = f"{assets}/reveal"
        html, _ = exporter.from_notebook_node(
            for_slides(nbformat.read(notebook, as_version=4), notebook, deck, last_slide),
            resources={
                "deck_assets": assets,
                "deck_needs_assets": NEEDS_ASSETS,
                "metadata": {"name": notebook.stem},
            },
        )
        write_atomically(deck, html.encode())
        decks.append(deck)
    return decks


def main(argv: list[str] | None = None) -> int:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    ask.add_argument("--repository", help="the course's address for the credit slide")
    args = ask.parse_args(argv)
    address, why = credit.source(args.repository)
    if address is None:
        print(credit.no_address(why, "make slides"))
    decks = build([p.resolve() for p in args.notebooks] or notebook_paths(), address=address)
    print(f"{len(decks)} deck(s) in {OUT.relative_to(ROOT)}/; open one in a browser, offline.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
