"""`make site`: the course as a static website, built from the stored outputs (tools/site.py).

The pages in a browser (nothing fetched from elsewhere, search, phone width) are in
tests/ui/test_site_in_browser.py; here, what the build writes and what stops it.
"""

import importlib
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from tests.answer_leaks import answer_code, page_leaks
from tests.lab_server import ROOT
from tools.credit import credit_line
from tools.notebooks import notebook_paths
from tools.site import OUT, broken_links, stage

SITE = OUT["students"]
TEACHERS_SITE = OUT["teacher"]
GUIDE = "notebooks/teachers-guide.html"
EXERCISE = ROOT / "notebooks" / "exercises" / "your-own-backward-pass.ipynb"
REPOSITORY = "https://github.com/ada/backward-course"
HUB = "https://hub.example.edu"
EXPLORER = "application/vnd.jupyter.widget-view+json"
LAUNCH_MENU = "dropdown-launch-buttons"  # the theme's rocket menu
NO_BUTTONS = "No launch buttons (Binder, Colab) on the notebooks' pages: "
TO_ADD_THEM = "; set SITE_REPOSITORY=https://github.com/OWNER/REPO to add them."
NO_BUTTONS_EMPTY_SETTING = f"{NO_BUTTONS}SITE_REPOSITORY is empty{TO_ADD_THEM}"


def page_of(notebook: Path, site: Path) -> Path:
    return site / notebook.relative_to(ROOT).with_suffix(".html")


def build_site(
    course: Path, out: Path, edition: str = "students", **env: str
) -> subprocess.CompletedProcess:
    where = ["--course", str(course), "--out", str(out)]
    return subprocess.run(
        [sys.executable, "-m", "tools.site", "--edition", edition, *where],
        cwd=ROOT,
        env=os.environ | env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def copy_of_the_course(into: Path) -> Path:
    """The course's files a site is built from (what tools/site.py copies), to break."""
    stage(ROOT, into)
    return into


def make_site(*args: str) -> subprocess.CompletedProcess:
    """`make site` itself, for a clone whose repository is not known."""
    done = subprocess.run(
        ["make", "-s", "site", *args],
        cwd=ROOT,
        env=os.environ | {"SITE_REPOSITORY": ""},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\(\d+ pages, \d+ MiB\) in \d+ s\.", done.stdout), done.stdout
    assert NO_BUTTONS_EMPTY_SETTING in done.stdout.splitlines(), done.stdout
    return done


@pytest.fixture(scope="module")
def site() -> Path:
    """build/site/: the students' edition, `make site`'s default."""
    assert "the students' edition: " in make_site().stdout
    return SITE


@pytest.fixture(scope="module")
def teachers_site() -> Path:
    """build/site-teacher/: `make site EDITION=teacher`."""
    assert "the teacher's edition: " in make_site("EDITION=teacher").stdout
    return TEACHERS_SITE


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


def site_pages_of(site: Path) -> list[Path]:
    return [p for p in sorted(site.rglob("*.html")) if "_static" not in p.relative_to(site).parts]


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
    site, tmp_path
):
    out = tmp_path / "site"
    done = build_site(ROOT, out, SITE_REPOSITORY=REPOSITORY, SITE_HUB=HUB)
    assert done.returncode == 0, done.stderr
    assert NO_BUTTONS not in done.stdout
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


def load_site_module(name: str):
    """One of site/'s Sphinx extensions (not a package: conf.py puts its folder on the path)."""
    sys.path.insert(0, str(ROOT / "site"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "site"))


def load_launch_links():
    return load_site_module("launch_links")


def test_make_site_says_why_a_clone_without_a_github_origin_gets_no_launch_buttons():
    site_tool = importlib.import_module("tools.site")
    origin = subprocess.run(
        ["git", "remote", "get-url", "origin"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    on_github = re.search(r"github\.com[:/]", origin) is not None
    expected = None if on_github else f"{NO_BUTTONS}this clone has no GitHub origin{TO_ADD_THEM}"
    assert site_tool.no_launch_buttons(None) == expected
    assert site_tool.no_launch_buttons("") == NO_BUTTONS_EMPTY_SETTING
    assert site_tool.no_launch_buttons(REPOSITORY) is None


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


def test_a_read_more_whose_heading_is_gone_stops_the_build_naming_it(tmp_path):
    course = copy_of_the_course(tmp_path / "course")
    developer = course / "notebooks" / "01-custom-function" / "2-developer.ipynb"
    heading = "Mistake 3: a wrong derivative that runs fine"
    nb = nbformat.read(developer, as_version=4)
    renamed = [cell for cell in nb.cells if cell.cell_type == "markdown" and heading in cell.source]
    assert renamed
    for cell in renamed:
        cell.source = cell.source.replace(heading, "Mistake 3, renamed")
    nbformat.write(nb, developer)
    done = build_site(course, tmp_path / "site", SITE_REPOSITORY="")
    assert done.returncode == 1
    assert (
        f"an output cites Lesson 1 developer track, “{heading}”, "
        "but notebooks/01-custom-function/2-developer has no such heading"
    ) in done.stderr, done.stderr


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_the_repository_is_origin_on_github_as_make_links_reads_it(tmp_path):
    launch = load_launch_links()
    git(tmp_path, "init", "-q")
    assert launch.repository(None, None, cwd=tmp_path) is None, "no origin: no buttons"
    git(tmp_path, "remote", "add", "origin", "/srv/git/backward-course.git")
    assert launch.repository(None, None, cwd=tmp_path) is None, "origin not on GitHub"
    git(tmp_path, "remote", "set-url", "origin", "git@github.com:ada/backward-course.git")
    found = launch.repository(None, None, cwd=tmp_path)
    assert (found.owner, found.name, found.binder_ref, found.branch) == (
        "ada",
        "backward-course",
        "HEAD",
        None,
    )
    assert launch.repository("", None, cwd=tmp_path) is None, "an empty setting: none"
    named = launch.repository(REPOSITORY, "spring", cwd=tmp_path)
    assert (named.binder_ref, named.branch) == ("spring", "spring")


def test_a_repository_setting_not_on_github_is_refused(tmp_path):
    done = build_site(ROOT, tmp_path / "site", SITE_REPOSITORY="https://gitlab.com/ada/course")
    assert done.returncode != 0
    assert "SITE_REPOSITORY='https://gitlab.com/ada/course' is not a GitHub" in done.stderr


def one_notebook_course(tmp_path: Path, change) -> tuple[Path, str]:
    """A course of one notebook (lesson 1's beginner track), changed by change(notebook)."""
    relative = "notebooks/01-custom-function/1-beginner.ipynb"
    course = tmp_path / "course"
    (course / relative).parent.mkdir(parents=True)
    shutil.copy(ROOT / "README.md", course)
    nb = nbformat.read(ROOT / relative, as_version=4)
    change(nb)
    nbformat.write(nb, course / relative)
    return course, relative


def first_code_cell_after_setup(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return [cell for cell in nb.cells if cell.cell_type == "code"][1]


def test_an_edited_code_cell_stops_the_build_with_one_line_naming_the_notebook(tmp_path):
    def edit(nb):
        first_code_cell_after_setup(nb).source += "\nprint('one more line')"

    course, relative = one_notebook_course(tmp_path, edit)
    done = build_site(course, tmp_path / "site")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"{relative} has stale outputs (its code changed since they were recorded): "
        "run `make notebooks` to record them again."
    ]
    assert not (tmp_path / "site").exists()


def test_a_notebook_without_stored_outputs_stops_the_build_with_one_line(tmp_path):
    def clear(nb):
        cell = first_code_cell_after_setup(nb)
        cell.execution_count, cell.outputs = None, []

    course, relative = one_notebook_course(tmp_path, clear)
    done = build_site(course, tmp_path / "site")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"{relative} has code cells with no stored outputs: "
        "run `make notebooks` to record them again."
    ]


def test_a_notebook_recorded_before_the_digest_counts_as_stale(tmp_path):
    course, relative = one_notebook_course(tmp_path, lambda nb: nb.metadata.pop("course"))
    done = build_site(course, tmp_path / "site")
    assert done.returncode == 1 and relative in done.stderr and "stale" in done.stderr


def test_a_broken_link_on_a_page_fails_the_build_naming_the_page_and_the_link(tmp_path):
    course = copy_of_the_course(tmp_path / "course")
    guide = course / "notebooks" / "teachers-guide.md"
    guide.write_text(
        guide.read_text() + '\n<a href="../notebooks/nowhere.html">a page that is not there</a>\n'
    )
    done = build_site(course, tmp_path / "site", "teacher")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "notebooks/teachers-guide.html: broken link '../notebooks/nowhere.html' (no such file)"
    ]


def test_a_markdown_link_to_a_missing_page_fails_the_build_naming_the_page(tmp_path):
    course = copy_of_the_course(tmp_path / "course")
    guide = course / "notebooks" / "teachers-guide.md"
    guide.write_text(guide.read_text() + "\nSee [the old notes](old-notes.md).\n")
    done = build_site(course, tmp_path / "site", "teacher")
    assert done.returncode == 1
    assert re.search(r"teachers-guide\.md:\d+: WARNING: .*'old-notes\.md'", done.stderr), (
        done.stderr
    )


def test_the_link_check_names_missing_files_and_anchors(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "page.html").write_text(
        '<h1 id="top">A</h1><a href="#top">ok</a><a href="#gone">gone</a>'
        '<a href="../b.html#here">ok</a><a href="../b.html#there">no anchor</a>'
        '<img src="../missing.png" alt="x"><a href="https://example.org/x">web</a>'
        '<a href="mailto:a@example.org">mail</a>'
    )
    (tmp_path / "b.html").write_text('<p id="here">B</p><a href="a/page.html">ok</a>')
    assert broken_links(tmp_path) == [
        "a/page.html: broken link '#gone' (no such anchor)",
        "a/page.html: broken link '../b.html#there' (no such anchor)",
        "a/page.html: broken link '../missing.png' (no such file)",
    ]
