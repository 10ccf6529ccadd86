"""Links to the course's sections: a report's "Read more" in a stored output becomes a link.

lessons_lib.sections.TAUGHT names the heading that teaches each idea, and the doctor's and
the exercises' HTML reports cite it as `cite` writes it (Lesson 1 developer track,
“Mistake 3: a wrong derivative that runs fine”). On the site each such citation in an
output links to that heading on its page. A cited heading that no page has is a Sphinx
warning, which stops the build: a citation never becomes a link that leads nowhere.
"""

import html
import importlib.util
import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging


def load_sections():
    """lessons_lib/sections.py alone: the package's __init__ would import torch (2 s)."""
    path = Path(__file__).resolve().parent.parent / "lessons_lib" / "sections.py"
    spec = importlib.util.spec_from_file_location("course_sections", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # where its dataclasses look themselves up
    spec.loader.exec_module(module)
    return module


sections = load_sections()
logger = logging.getLogger(__name__)
THIS_NOTEBOOK = "This notebook"  # how an exercise cites itself: a link only on its own page


def section_ids(app: Sphinx, docname: str) -> dict[str, str]:
    """Each heading's text on a page and its anchor, read once a build from its doctree."""
    if docname not in app.course_section_ids:
        found: dict[str, str] = {}
        for section in app.env.get_doctree(docname).findall(nodes.section):
            if section["ids"]:
                found.setdefault(section[0].astext(), section["ids"][0])  # the first of a name
        app.course_section_ids[docname] = found
    return app.course_section_ids[docname]


def section_uri(app: Sphinx, fromdoc: str, todoc: str, heading: str) -> str | None:
    """The address of heading on todoc's page, from fromdoc's; None if it has no such heading.

    The heading is spelled as in the notebook's Markdown: its backticks are not in the text.
    """
    if todoc not in app.env.all_docs:
        return None
    anchor = section_ids(app, todoc).get(heading.replace("`", ""))
    return f"{app.builder.get_relative_uri(fromdoc, todoc)}#{anchor}" if anchor else None


def docname(section: sections.Section) -> str:
    return f"notebooks/{section.notebook.removesuffix('.ipynb')}"


def citations(page: str) -> dict[str, sections.Section]:
    """Each section as a stored HTML output cites it, for the citations page may hold."""
    found = {}
    for section in set(sections.TAUGHT.values()):
        if sections.TRACK_NAMES[section.notebook] == THIS_NOTEBOOK and docname(section) != page:
            continue
        found[html.escape(sections.cite(section))] = section
    return found


class ReadMoreLinks(SphinxPostTransform):
    default_priority = 5  # after MyST-NB's SelectMimeType (4) has kept each output's HTML

    def run(self, **kwargs) -> None:
        page = self.env.docname
        cited = citations(page)
        # Longest first, so no citation is cut short by another that starts it.
        pattern = re.compile("|".join(map(re.escape, sorted(cited, key=len, reverse=True))))
        links: dict[str, str | None] = {}

        def link(match: re.Match) -> str:
            text = match[0]
            if text not in links:
                section = cited[text]
                target = docname(section)
                uri = section_uri(self.app, page, target, section.heading)
                if uri is None:
                    logger.warning(
                        f"an output cites {sections.cite(section)}, but {target} has no such "
                        "heading",
                        location=page,
                    )
                links[text] = uri
            if links[text] is None:
                return text
            return f'<a class="reference internal" href="{html.escape(links[text])}">{text}</a>'

        for raw in list(self.document.findall(nodes.raw)):
            if "html" not in raw.get("format", "").split():
                continue
            source = raw.astext()
            linked = pattern.sub(link, source)
            if linked != source:
                raw.clear()
                raw += nodes.Text(linked)


def setup(app: Sphinx) -> dict:
    app.course_section_ids = {}
    app.add_post_transform(ReadMoreLinks)
    return {"parallel_read_safe": True}
