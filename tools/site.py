"""Build the course as a static, searchable website in build/site/ (`make site`).

    python -m tools.site [--edition students|teacher] [--course DIR] [--out DIR]

The students' edition (the default, into build/site/) leaves the teacher's guide out and
folds every answer; the teacher's (`make site EDITION=teacher`, into build/site-teacher/)
has the guide and shows the answers open.

Sphinx with MyST-NB (settings: site/conf.py) reads the stored notebooks and executes
nothing, so the site shows exactly the outputs nbval checks. It is built from a copy of
the course laid out as in the repository (README.md, notebooks/): every relative link
works as it does on GitHub. A notebook whose outputs are missing or stale stops the build
first, a Sphinx warning (a broken cross-reference, say) or a broken link in the written
pages after; each says in one line what is wrong and where. A site without launch buttons
(no GitHub repository to open the notebooks from) says why in one line.
"""

import argparse
import os
import re
import shutil
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat

from tools import credit
from tools.notebooks import sources_digest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"  # conf.py, its extensions, and MathJax from npm
MATHJAX = SITE / "node_modules" / "mathjax"
MATHJAX_FONT = SITE / "node_modules" / "@mathjax" / "mathjax-newcm-font"
OUT = {"students": ROOT / "build" / "site", "teacher": ROOT / "build" / "site-teacher"}
EDITIONS = tuple(OUT)
EDITION_NAMES = {"students": "the students' edition", "teacher": "the teacher's edition"}
GUIDE = Path("notebooks/teachers-guide.md")  # the teacher's edition's alone
HOME = "notebooks/00-start-here.html"  # conf.py's root_doc, written by Sphinx
RERECORD = "run `make notebooks` to record them again"
# A Markdown link to a local file (not a web address, not an anchor on the same page).
LOCAL_LINK = re.compile(r"\]\((?![a-z]+:|#)([^)\s#]+)")


def notebooks(course: Path) -> list[Path]:
    found = (course / "notebooks").rglob("*.ipynb")
    return sorted(p for p in found if ".ipynb_checkpoints" not in p.parts)


def recording_problem(path: Path) -> str | None:
    """Why a notebook's stored outputs cannot be published, or None when they can."""
    nb = nbformat.read(path, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    if any(cell.get("execution_count") is None for cell in code):
        return "has code cells with no stored outputs"
    if nb.metadata.get("course", {}).get("sources_sha256") != sources_digest(nb):
        return "has stale outputs (its code changed since they were recorded)"
    return None


def recording_problems(course: Path) -> list[str]:
    """One line per notebook that needs recording again, naming it."""
    problems = []
    for path in notebooks(course):
        problem = recording_problem(path)
        if problem:
            problems.append(f"{path.relative_to(course)} {problem}: {RERECORD}.")
    return problems


def stage(course: Path, source: Path, with_guide: bool = True) -> None:
    """Copy the pages into source/, laid out as in the course: the notebooks' folder, the
    README, and every file the README leads to, so its links work on the site too (a
    Markdown file as a page, whose own links are followed; any other file as a download).
    Without the guide (the students' edition), the teacher's guide stays out."""
    shutil.rmtree(source, ignore_errors=True)
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", ".hypothesis", "__pycache__")
    shutil.copytree(course / "notebooks", source / "notebooks", ignore=ignore)
    if not with_guide:
        (source / GUIDE).unlink(missing_ok=True)
    pages = [Path("README.md")]
    while pages:
        page = pages.pop()
        shutil.copy2(course / page, source / page)
        for target in LOCAL_LINK.findall((course / page).read_text()):
            found = (page.parent / unquote(target)).as_posix()
            relative = Path(os.path.normpath(found))
            if not (course / relative).is_file() or (source / relative).exists():
                continue  # a missing file stays a broken link, for Sphinx to name
            if relative == GUIDE and not with_guide:
                continue
            (source / relative).parent.mkdir(parents=True, exist_ok=True)
            if relative.suffix == ".md":
                pages.append(relative)
            else:
                shutil.copy2(course / relative, source / relative)


def vendor_mathjax(out: Path) -> None:
    """MathJax's browser build, its font and its speech rules into out/_static/mathjax/."""
    if not MATHJAX.is_dir():
        raise SystemExit("MathJax is missing from site/node_modules: `make site` installs it.")
    into = out / "_static" / "mathjax"
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    for name in ("tex-chtml.js", "LICENSE"):
        shutil.copy2(MATHJAX / name, into / name)
    for folder in ("a11y", "adaptors", "input", "output", "sre", "ui"):
        shutil.copytree(MATHJAX / folder, into / folder)
    font = into / "fonts" / MATHJAX_FONT.name
    shutil.copytree(MATHJAX_FONT / "chtml", font / "chtml")
    shutil.copy2(MATHJAX_FONT / "package.json", font / "package.json")  # names its licence


def write_home(out: Path) -> None:
    """out/index.html: the course map, the site's home page."""
    (out / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="0; url={HOME}">'
        "<title>Write your own backward pass</title></head>"
        f'<body><a href="{HOME}">The course map: start here</a></body></html>\n'
    )


class Links(HTMLParser):
    """Every local address a page names (href, src) and every id it has."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            elif name in ("href", "src") and value is not None:
                parts = urlsplit(value)
                if not parts.scheme and not parts.netloc:
                    self.targets.append(value)


def read_links(page: Path) -> Links:
    parser = Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def site_pages(out: Path) -> list[Path]:
    """The site's pages: every HTML file but the theme's templates among its static files."""
    return sorted(p for p in out.rglob("*.html") if "_static" not in p.relative_to(out).parts)


def broken_links(out: Path) -> list[str]:
    """One line per link in the site's pages that leads to no file, or to no such anchor."""
    pages = {page: read_links(page) for page in site_pages(out)}
    broken = []
    for page, links in pages.items():
        for target in links.targets:
            parts = urlsplit(target)
            file = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if file.is_dir():
                file = file / "index.html"
            if not file.is_file():
                broken.append(f"{page.relative_to(out)}: broken link {target!r} (no such file)")
            elif parts.fragment and file.suffix == ".html":
                ids = pages[file].ids if file in pages else read_links(file).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(
                        f"{page.relative_to(out)}: broken link {target!r} (no such anchor)"
                    )
    return broken


def build(course: Path, out: Path, edition: str = "students") -> list[str]:
    """Build the site of the course at course/ into out/; the problems that stopped it."""
    problems = recording_problems(course)
    if problems:
        return problems
    # The copied sources and Sphinx's doctrees, afresh every time: Sphinx re-reads a page
    # only when the page changes, not when a file it links to appears or goes.
    work = out.parent / f"{out.name}-work"
    shutil.rmtree(work, ignore_errors=True)
    stage(course, work / "source", with_guide=edition == "teacher")
    from sphinx.cmd.build import build_main

    os.environ["SITE_EDITION"] = edition  # site/conf.py reads it
    shutil.rmtree(out, ignore_errors=True)
    args = ["-b", "html", "-q", "-W", "--keep-going", "-c", str(SITE)]
    args += ["-d", str(work / "doctrees"), str(work / "source"), str(out)]
    if build_main(args) != 0:
        return ["Sphinx stopped the build: its warnings are above, each naming a page."]
    vendor_mathjax(out)
    write_home(out)
    return broken_links(out)


def no_launch_buttons(setting: str | None) -> str | None:
    """Why the notebooks' pages have no launch buttons, in one line; None when they have.

    setting: SITE_REPOSITORY, read as site/launch_links.py reads it (None: origin).
    """
    if str(SITE) not in sys.path:  # site/'s extensions are not a package
        sys.path.insert(0, str(SITE))
    from launch_links import repository

    if repository(setting, None) is not None:
        return None
    why = "SITE_REPOSITORY is empty" if setting is not None else "this clone has no GitHub origin"
    return (
        f"No launch buttons (Binder, Colab) on the notebooks' pages: {why}; "
        "set SITE_REPOSITORY=https://github.com/OWNER/REPO to add them."
    )


def no_credit_address(setting: str | None) -> str | None:
    """Why the footer's credit line names no address, in one line; None when it does."""
    address, why = credit.source(setting)
    if address is not None:
        return None
    return (
        f"No address in the footer's credit line: {why}; "
        "set SITE_REPOSITORY=https://github.com/OWNER/REPO to add it."
    )


def main(argv: list[str] | None = None) -> int:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument(
        "--edition",
        choices=EDITIONS,
        default="students",
        help="students (the default: no teacher's guide, answers folded) or teacher",
    )
    ask.add_argument("--course", type=Path, default=ROOT, help="the course's folder")
    ask.add_argument("--out", type=Path, help="where the site goes (default: by edition)")
    args = ask.parse_args(argv)
    out = (args.out or OUT[args.edition]).resolve()
    started = time.perf_counter()
    problems = build(args.course.resolve(), out, args.edition)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    setting = os.environ.get("SITE_REPOSITORY")
    for missing in (no_launch_buttons(setting), no_credit_address(setting)):
        if missing:
            print(missing)
    pages = len(site_pages(out))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(
        f"The course's website, {EDITION_NAMES[args.edition]}: {out / 'index.html'} ({pages} "
        f"pages, {size / 2**20:.0f} MiB) in {time.perf_counter() - started:.0f} s."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
