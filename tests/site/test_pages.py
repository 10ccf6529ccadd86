"""What `make site` writes: a page for every notebook, in course order, each stored output on
its page, answers folded for students and open for teachers, nothing loaded from elsewhere,
launch buttons only when the repository is known."""

import importlib
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from tests.answer_leaks import answer_code, page_leaks
from tests.lab_server import ROOT
from tests.site.build import (
    HUB,
    NO_BUTTONS,
    REPOSITORY,
    SITE,
    build_site,
    install_mathjax,
    load_site_module,
    make_site,
)
from tests.site.pages import page_of, read_page, shown_text, shown_words, site_pages_of, words
from tests.widget_reprs import widget_reprs
from tools.credit import credit_line
from tools.notebooks import notebook_paths

GUIDE = "notebooks/teachers-guide.html"
EXERCISE = ROOT / "notebooks" / "exercises" / "your-own-backward-pass.ipynb"
EXPLORER = "application/vnd.jupyter.widget-view+json"
LAUNCH_MENU = "dropdown-launch-buttons"  # the theme's rocket menu


@pytest.fixture(scope="module")
def site() -> Path:
    """build/site/: the students' edition, `make site`'s default."""
    assert "the students' edition: " in make_site().stdout
    return SITE


@pytest.fixture(scope="module")
def teachers_build(tmp_path_factory) -> tuple[Path, str]:
    """The teacher's edition, as `make site EDITION=teacher HUB=...` builds it (the next
    test), with launch buttons for REPOSITORY: its folder, and what the build printed. One
    build serves both (a build takes about 9 s of CPU): the buttons (site/launch_links.py)
    do not depend on the edition."""
    install_mathjax()
    out = tmp_path_factory.mktemp("site-teacher") / "site"
    done = build_site(ROOT, out, "teacher", SITE_REPOSITORY=REPOSITORY, SITE_HUB=HUB)
    assert done.returncode == 0, done.stderr
    assert "the teacher's edition: " in done.stdout
    return out, done.stdout


def test_make_site_runs_the_build_for_its_edition_and_hub():
    """What teachers_build runs is `make site EDITION=teacher HUB=...`'s recipe (make -n)."""
    done = subprocess.run(
        ["make", "-n", "-s", "site", "EDITION=teacher", f"HUB={HUB}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    recipe = f"SITE_HUB='{HUB}' .venv/bin/python -m tools.site --edition 'teacher'"
    assert done.stdout.strip().splitlines()[-1] == recipe, done.stdout


@pytest.fixture(scope="module")
def teachers_site(teachers_build) -> Path:
    return teachers_build[0]


def test_make_site_writes_a_page_for_every_notebook_and_the_readme(site):
    for notebook in notebook_paths():
        assert page_of(notebook, site).is_file(), notebook
    for page in ("README.html", "search.html"):
        assert (site / page).is_file(), page
    home = (site / "index.html").read_text()
    assert 'url=notebooks/00-start-here.html"' in home, "the home page is the course map"


COURSE_ORDER = [
    "01-custom-function/1-beginner.html",
    "01-custom-function/3-researcher.html",
    "exercises/your-own-backward-pass.html",
    "02-checking-gradients/1-beginner.html",
    "exercises/check-your-clamp01.html",
    "03-surrogate-gradients/1-beginner.html",
    "03-surrogate-gradients/2-developer.html",
    "03-surrogate-gradients/3-researcher.html",
    "exercises/choose-your-surrogate.html",
]


def sidebar_order(site: Path, hrefs: list[str]) -> list[int]:
    page = (site / "notebooks" / "00-start-here.html").read_text()
    nav = page[page.index("bd-docs-nav") :]
    return [nav.index(f'href="{href}"') for href in hrefs]


def test_the_sidebar_lists_the_pages_in_course_order(site, teachers_site):
    positions = sidebar_order(site, [*COURSE_ORDER, "../README.html"])
    assert positions == sorted(positions)
    positions = sidebar_order(
        teachers_site, [*COURSE_ORDER, "teachers-guide.html", "../README.html"]
    )
    assert positions == sorted(positions)


def test_the_students_edition_leaves_the_guide_out_and_names_where_it_is(site):
    assert not (site / GUIDE).exists()
    for page in site_pages_of(site):
        assert "teachers-guide.html" not in page.read_text(), page.relative_to(site)
    course_map = shown_words(site / "notebooks" / "00-start-here.html")
    assert (
        "Teachers: the teacher's guide (notebooks/teachers-guide.md, in the course's "
        "repository; this edition of the site leaves it out) has timings"
    ) in course_map
    assert "teachers-guide" not in (site / "searchindex.js").read_text()


def test_the_teachers_edition_has_the_guide_in_the_sidebar(teachers_site):
    guide = shown_words(teachers_site / GUIDE)
    assert "Teacher's guide: writing your own backward pass" in guide
    course_map = (teachers_site / "notebooks" / "00-start-here.html").read_text()
    assert 'href="teachers-guide.html"' in course_map


@pytest.mark.parametrize("notebook", notebook_paths(), ids=lambda p: p.stem)
def test_no_answer_code_shows_unfolded_on_the_students_pages(site, notebook):
    html = page_of(notebook, site).read_text()
    assert page_leaks(html, answer_code(nbformat.read(notebook, as_version=4))) == []


def unfolded(html: str) -> str:
    """A page with every fold opened for good: each <details> a plain <div>."""
    return re.sub(r"<(/?)details\b", r"<\1div", html)


def test_the_answers_are_on_the_students_page_folded(site):
    """The check above can fail: unfolded, the same page shows the answers' code."""
    html = page_of(EXERCISE, site).read_text()
    code = answer_code(nbformat.read(EXERCISE, as_version=4))
    shown = page_leaks(unfolded(html), code)
    for line in ("return grad_out * 3 * x**2", "with torch.enable_grad():"):
        assert repr(line) in shown
    assert html.count('<details class="course-answer">') == 2, "its two folded explanations"


def test_the_teachers_edition_shows_the_answers_open(teachers_site):
    html = page_of(EXERCISE, teachers_site).read_text()
    assert "course-answer" not in html
    for classes in re.findall(r'<div class="(cell tag_answer[^"]*)"', html):
        assert "tag_hide" not in classes
    code = answer_code(nbformat.read(EXERCISE, as_version=4))
    assert repr("return grad_out * 3 * x**2") in page_leaks(html, code)


def test_every_page_ends_with_the_course_credit(site):
    line = words(credit_line(None))  # this clone names no repository: no address in it
    for page in site_pages_of(site):
        if page == site / "index.html":
            continue  # the redirect to the course map
        text = words("".join(read_page(page).text))
        assert line in text, page.relative_to(site)
        assert "keep its copyright line and the licence's permission notice" in text


@pytest.mark.parametrize("notebook", notebook_paths(), ids=lambda p: p.stem)
def test_every_stored_output_is_on_its_page(site, notebook):
    page = read_page(page_of(notebook, site))
    text = words("".join(page.text))
    pictures = 0
    for cell in nbformat.read(notebook, as_version=4).cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data and "text/html" not in data:
                pictures += 1
            elif EXPLORER not in data:
                shown = words(shown_text(output))[:80]
                assert shown in text, f"{cell.source[:60]!r} shows {shown!r}"
    pngs = [img for img in page.images if img.get("src", "").endswith(".png")]
    assert len(pngs) == pictures


def test_an_explorer_shows_its_picture_with_its_text_and_how_to_move_its_sliders(site):
    notebook = ROOT / "notebooks" / "01-custom-function" / "1-beginner.ipynb"
    explorers = [
        output
        for cell in nbformat.read(notebook, as_version=4).cells
        for output in cell.get("outputs", [])
        if EXPLORER in output.get("data", {})
    ]
    html = page_of(notebook, site).read_text()
    assert "application/vnd.jupyter.widget" not in html, "no widget view, no widget state"
    page = read_page(page_of(notebook, site))
    alts = [img.get("alt") for img in page.images]
    for explorer in explorers:
        assert explorer.data["text/plain"] in alts
    notes = re.findall(r'<p class="explorer-note">(.*?)</p>', html, re.S)
    assert len(notes) == len(explorers)
    # No launch links on this build: a reader of the site has no course folder either.
    readme = '<a class="reference external" href="../../README.html#two-commands">'
    for note in notes:
        assert words(note) == (
            "The sliders need a running notebook: open this notebook in JupyterLab (see "
            f"{readme}the README, Two commands</a>) or from the course's GitHub page in Colab."
        )
    assert 'id="two-commands"' in (site / "README.html").read_text()


def test_no_page_shows_a_widgets_python_repr(site, teachers_site):
    """The training explorer's progress bar stores only "IntProgress(...)" beside its view."""
    for page in [*site_pages_of(site), *site_pages_of(teachers_site)]:
        assert widget_reprs(page.read_text()) == [], page


def test_every_picture_has_alt_text(site):
    for page in sorted(site.rglob("*.html")):
        for img in read_page(page).images:
            assert (img.get("alt") or "").strip(), f"{page.relative_to(site)}: {img}"


def test_no_page_loads_anything_from_another_site(site):
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.relative_to(site).parts:
            continue
        remote = [src for src in read_page(page).loads if re.match(r"(https?:)?//", src)]
        assert remote == [], page.relative_to(site)


def test_maths_is_typeset_by_mathjax_served_from_the_site(site):
    page = (site / "notebooks" / "02-checking-gradients" / "3-researcher.html").read_text()
    assert 'src="../../_static/mathjax/tex-chtml.js"' in page
    assert r"\(" in page, "inline maths is left for MathJax"
    fonts = site / "_static" / "mathjax" / "fonts" / "mathjax-newcm-font" / "chtml" / "woff2"
    assert list(fonts.glob("*.woff2"))


def test_search_is_sphinxs_own_index_in_the_site(site):
    index = (site / "searchindex.js").read_text()
    assert "save_for_backward" in index


def test_without_a_repository_no_page_has_launch_buttons(site):
    for notebook in notebook_paths():
        html = page_of(notebook, site).read_text()
        assert LAUNCH_MENU not in html
        assert 'href="https://mybinder.org' not in html
        assert 'href="https://colab.research.google.com' not in html


def test_with_a_repository_each_notebook_launches_itself_on_binder_colab_and_the_hub(
    teachers_build,
):
    out, printed = teachers_build
    assert NO_BUTTONS not in printed
    html = (out / "notebooks" / "01-custom-function" / "1-beginner.html").read_text()
    path = "notebooks/01-custom-function/1-beginner.ipynb"
    binder = f"https://mybinder.org/v2/gh/ada/backward-course/HEAD?urlpath=lab/tree/{path}"
    colab = f"https://colab.research.google.com/github/ada/backward-course/blob/main/{path}"
    hub = (
        "https://hub.example.edu/hub/user-redirect/git-pull?"
        f"repo=https%3A//github.com/ada/backward-course&amp;urlpath=lab/tree/backward-course/{path}"
    )
    assert LAUNCH_MENU in html
    note = re.search(r'<p class="explorer-note">(.*?)</p>', html, re.S)[1]
    for url in (binder, colab, hub):
        assert f'href="{url}"' in note
        assert html.count(url.replace("&amp;", "&")) + html.count(url) >= 2, "and in the menu"
    readme = (out / "README.html").read_text()
    assert LAUNCH_MENU not in readme, "only a notebook has launch buttons"
    credit = words(credit_line("https://github.com/ada/backward-course"))
    assert credit in words("".join(read_page(out / "README.html").text)), "the footer's"


class OutputBoxes(HTMLParser):
    """The classes of each code cell's output boxes on a page, cell by cell."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[list[str]] = []
        self._open: list[list[str]] = []  # the classes of each div open around the parser

    def handle_starttag(self, tag, attrs):
        if tag != "div":
            return
        classes = (dict(attrs).get("class") or "").split()
        if self._open and "cell_output" in self._open[-1]:
            self.cells[-1].append(" ".join(classes))
        if "cell_output" in classes:
            self.cells.append([])
        self._open.append(classes)

    def handle_endtag(self, tag):
        if tag == "div":
            self._open.pop()


def test_what_a_cell_prints_is_one_box_as_in_jupyterlab(site):
    for notebook in notebook_paths():
        boxes = OutputBoxes()
        boxes.feed(page_of(notebook, site).read_text())
        assert boxes.cells, notebook
        for outputs in boxes.cells:
            kinds = ["stream" if "stream" in box.split() else box for box in outputs]
            assert ["stream", "stream"] not in [kinds[i : i + 2] for i in range(len(kinds))], (
                f"{notebook.name}: two printed boxes in a row in one cell"
            )
    # The kernel sent this print in pieces: the label, then the tensor.
    page = (site / "notebooks" / "01-custom-function" / "3-researcher.html").read_text()
    assert "hessian of the sum:\n tensor([[ 6.," in page


def test_printed_pieces_join_as_sent_and_keep_their_place_among_other_outputs():
    merge_streams = load_site_module("course_pages").merge_streams

    def stream(text, name="stdout"):
        return {"output_type": "stream", "name": name, "text": text}

    picture = {"output_type": "display_data", "data": {"text/plain": "<Figure>"}}
    outputs = [
        stream("Cube  loss = 0.00"),
        stream(["\nSlopeCube", "  loss = 64.00\n"]),
        stream("warning\n", "stderr"),
        picture,
        stream("after the picture\n"),
    ]
    assert merge_streams(outputs) == [
        stream("Cube  loss = 0.00\nSlopeCube  loss = 64.00\n"),
        stream("warning\n", "stderr"),
        picture,
        stream("after the picture\n"),
    ]


def test_a_reports_read_more_links_to_the_section_it_names(site):
    sections = importlib.import_module("lessons_lib.sections")
    tracks = tuple(sections.TRACK_NAMES.values())
    linked = 0
    for notebook in notebook_paths():
        page = page_of(notebook, site)
        html = page.read_text()
        # A citation's text right after the label: it is not inside a link.
        for cited in re.findall(r"<i>(?:Read more|Further reading):</i> ([^<]*)", html):
            assert not cited.startswith(tracks), f"{page.name}: {cited!r} is not a link"
        for href in re.findall(
            r'<i>Read more:</i> <a class="reference internal" href="([^"]*)"', html
        ):
            file, _, anchor = href.partition("#")
            target = page.parent / file if file else page
            assert f'id="{anchor}"' in target.read_text(), f"{page.name}: {href}"
            linked += 1
    assert linked >= 10, "the developer track and the exercises cite sections"
    developer = page_of(ROOT / "notebooks" / "01-custom-function" / "2-developer.ipynb", site)
    assert (
        '<i>Read more:</i> <a class="reference internal" '
        'href="#mistake-3-a-wrong-derivative-that-runs-fine">Lesson 1 developer track, '
        "“Mistake 3: a wrong derivative that runs fine”</a>"
    ) in developer.read_text()
    exercise = page_of(ROOT / "notebooks" / "exercises" / "your-own-backward-pass.ipynb", site)
    assert 'href="../01-custom-function/2-developer.html#mistake-4-breaking-the-chain"' in (
        exercise.read_text()
    )
