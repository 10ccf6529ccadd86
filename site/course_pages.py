"""The site's pages: in course order from the course map, folded as JupyterLab folds them,
and nothing on them loaded from another site.

Each notebook is adjusted as it is read, never on disk, so it stays as nbval checked it:
the course map (the root page) gets the sidebar's tables of contents, hidden, from
conf.py's course_navigation, its last part followed by any other Markdown page (the ones
the README leads to: tools/site.py copies them); a cell JupyterLab shows folded (the
set-up cell's code, an answer's output) is folded on the page too, one click away; what a
cell prints is one output, as JupyterLab shows it, however many pieces the kernel sent. A
README badge is an image on another site: the page shows its text instead, still a link.

The edition (conf.py's course_edition): the students' folds every answer, the Markdown
ones (cells tagged "answer") too, and names the teacher's guide, which it leaves out,
instead of linking to it; the teacher's shows the answers open.
"""

import json
import posixpath
import re

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError
from sphinx.transforms import SphinxTransform

EDITIONS = ("students", "teacher")
ANSWER_TAG = "answer"
GUIDE = "notebooks/teachers-guide.md"
MARKDOWN_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
# A folded answer's text on the students' pages (tests/answer_leaks.py knows the class).
ANSWER_FOLD = (
    '<details class="course-answer">\n<summary>Show more of the answer</summary>\n\n'
    "{}\n\n</details>"
)


def navigation(app: Sphinx) -> list[tuple[str, list[str]]]:
    """course_navigation, the Markdown pages it does not list added to its last part.

    A notebook it does not list stays out: Sphinx then fails the build, naming it.
    """
    parts = [(caption, list(docnames)) for caption, docnames in app.config.course_navigation]
    listed = {name for _, docnames in parts for name in docnames} | {app.config.root_doc}
    env = app.env
    more = [d for d in sorted(env.found_docs - listed) if env.doc2path(d).suffix == ".md"]
    parts[-1][1].extend(more)
    return parts


def toctree_cell(index: int, caption: str, docnames: list[str]) -> dict:
    """A markdown cell holding a hidden table of contents (docnames from the source root)."""
    entries = "\n".join(f"/{name}" for name in docnames)
    source = f"```{{toctree}}\n:hidden:\n:caption: {caption}\n\n{entries}\n```"
    return {
        "cell_type": "markdown",
        "id": f"site-navigation-{index}",
        "metadata": {},
        "source": source,
    }


# JupyterLab's folding (cell metadata "jupyter") as MyST-NB's cell tags.
FOLDING = {"source_hidden": "hide-input", "outputs_hidden": "hide-output"}


def fold_as_jupyterlab(cell: dict) -> None:
    folded = [tag for key, tag in FOLDING.items() if cell["metadata"].get("jupyter", {}).get(key)]
    if folded:
        cell["metadata"]["tags"] = [*cell["metadata"].get("tags", []), *folded]


def merge_streams(outputs: list[dict]) -> list[dict]:
    """Each run of stdout (or stderr) pieces as one output, as JupyterLab shows it.

    Not MyST-NB's nb_merge_streams: it ends every piece with a new line (a print split as
    "...0.00" and "\nSlopeCube..." gains a blank line) and moves a later print above a
    picture between them.
    """
    merged: list[dict] = []
    for output in outputs:
        previous = merged[-1] if merged else {}
        if output["output_type"] == previous.get("output_type") == "stream" and (
            output["name"] == previous["name"]
        ):
            # On disk a stream's text is a string or a list of lines.
            previous["text"] = "".join(previous["text"]) + "".join(output["text"])
        else:
            merged.append(output)
    return merged


def without_guide_links(markdown: str, docname: str) -> str:
    """markdown with each link to the teacher's guide turned into its name: the students'
    edition leaves the guide out."""

    def named(link: re.Match) -> str:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(docname), link[2]))
        if path.split("#")[0] != GUIDE:
            return link[0]
        label = link[1]
        where = "in the course's repository; this edition of the site leaves it out"
        if label.strip("`") in (GUIDE, posixpath.basename(GUIDE)):
            return f"`{GUIDE}` ({where})"
        return f"{label} (`{GUIDE}`, {where})"

    return MARKDOWN_LINK.sub(named, markdown)


def is_answer(cell: dict) -> bool:
    return ANSWER_TAG in cell["metadata"].get("tags", [])


def for_students(cell: dict, docname: str) -> None:
    """Fold what JupyterLab folds; a Markdown answer, folded as a <details>; no guide link."""
    fold_as_jupyterlab(cell)
    if cell["cell_type"] == "markdown":
        source = without_guide_links("".join(cell["source"]), docname)
        cell["source"] = ANSWER_FOLD.format(source) if is_answer(cell) else source


def for_teachers(cell: dict) -> None:
    """Fold what JupyterLab folds, but the answers: a teacher reads them open."""
    if not is_answer(cell):
        fold_as_jupyterlab(cell)


def prepare_notebook(app: Sphinx, docname: str, source: list[str]) -> None:
    """source-read: fold what JupyterLab folds (the students' edition: every answer), join
    printed pieces as it does; give the course map the tables of contents."""
    students = app.config.course_edition == "students"
    if app.env.doc2path(docname).suffix != ".ipynb":
        if students:
            source[0] = without_guide_links(source[0], docname)
        return
    notebook = json.loads(source[0])
    for cell in notebook["cells"]:
        if students:
            for_students(cell, docname)
        else:
            for_teachers(cell)
        if "outputs" in cell:
            cell["outputs"] = merge_streams(cell["outputs"])
    if docname == app.config.root_doc:
        notebook["cells"] += [toctree_cell(i, *part) for i, part in enumerate(navigation(app))]
    source[0] = json.dumps(notebook)


def check_edition(app: Sphinx, config: Config) -> None:
    if config.course_edition not in EDITIONS:
        raise ConfigError(
            f"SITE_EDITION={config.course_edition!r}: the site's edition is students (the "
            "default: no teacher's guide, answers folded) or teacher."
        )


class RemoteImagesAsText(SphinxTransform):
    """An image from another site (a README badge) becomes its alt text: nothing is fetched."""

    default_priority = 100

    def apply(self, **kwargs) -> None:
        for image in list(self.document.findall(nodes.image)):
            if "://" in image["uri"]:
                image.replace_self(nodes.Text(image.get("alt") or image["uri"]))


def setup(app: Sphinx) -> dict:
    app.add_config_value("course_navigation", [], "env")
    app.add_config_value("course_edition", "students", "env")
    app.connect("config-inited", check_edition)
    app.connect("source-read", prepare_notebook)
    app.add_transform(RemoteImagesAsText)
    return {"parallel_read_safe": True}
