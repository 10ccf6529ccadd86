"""What stops `make site`, in one line naming the page or notebook: stale or missing outputs,
a Read more whose heading is gone, a broken link."""

import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from tests.lab_server import ROOT
from tests.site.build import build_site, copy_of_the_course, install_mathjax
from tools.site import broken_links


@pytest.fixture(scope="module")
def mathjax() -> None:
    """A build that gets as far as its links has copied MathJax in first."""
    install_mathjax()


HEADING = "Mistake 3: a wrong derivative that runs fine"  # lesson 1's developer track
READ_MORE_GONE = (
    f"an output cites Lesson 1 developer track, “{HEADING}”, "
    "but notebooks/01-custom-function/2-developer has no such heading"
)
MISSING_PAGE = re.compile(r"teachers-guide\.md:\d+: WARNING: .*'old-notes\.md'")


@pytest.fixture(scope="module")
def two_warnings(tmp_path_factory) -> subprocess.CompletedProcess:
    """One build (the teacher's edition, which has the guide) of a copy of the course with
    two faults Sphinx warns of: a heading a Read more cites renamed, and a Markdown link to
    a page that is not there. Either warning stops the build (-W); each test reads its own."""
    tmp_path = tmp_path_factory.mktemp("two-warnings")
    course = copy_of_the_course(tmp_path / "course")
    developer = course / "notebooks" / "01-custom-function" / "2-developer.ipynb"
    nb = nbformat.read(developer, as_version=4)
    renamed = [cell for cell in nb.cells if cell.cell_type == "markdown" and HEADING in cell.source]
    assert renamed
    for cell in renamed:
        cell.source = cell.source.replace(HEADING, "Mistake 3, renamed")
    nbformat.write(nb, developer)
    guide = course / "notebooks" / "teachers-guide.md"
    guide.write_text(guide.read_text() + "\nSee [the old notes](old-notes.md).\n")
    return build_site(course, tmp_path / "site", "teacher", SITE_REPOSITORY="")


def test_a_read_more_whose_heading_is_gone_stops_the_build_naming_it(two_warnings):
    assert two_warnings.returncode == 1
    assert READ_MORE_GONE in two_warnings.stderr, two_warnings.stderr


def test_a_markdown_link_to_a_missing_page_fails_the_build_naming_the_page(two_warnings):
    assert two_warnings.returncode == 1
    assert MISSING_PAGE.search(two_warnings.stderr), two_warnings.stderr


def test_the_two_faults_are_all_that_build_warns_of(two_warnings):
    """Each warning comes from one of the two faults; with -W, any one of them stops the build."""
    *warned, last = two_warnings.stderr.strip().splitlines()
    assert (
        warned and last == "Sphinx stopped the build: its warnings are above, each naming a page."
    )
    for line in warned:
        assert line.endswith(": WARNING: " + READ_MORE_GONE) or MISSING_PAGE.search(line), line


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


def test_a_broken_link_on_a_page_fails_the_build_naming_the_page_and_the_link(tmp_path, mathjax):
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
