"""Pictures among the stored outputs: each gets alt text, an explorer's a way to its sliders.

MyST-NB keeps every format of an output until the page is written, then keeps the one the
builder prefers (its SelectMimeType, priority 4). Before that, while the text beside the
picture is still there, this sets the picture's alt text: an explorer's text alternative
(lessons_lib stores one beside its widget view), or for a plot the titles its cell gives
it. Under an explorer it adds one line: the sliders need a running notebook, and where (the
page's launch links; without them, JupyterLab as the README sets it up, or Colab). A
plain widget's output, its view and only its repr ("IntProgress(...)"), is left out
(tools/widget_stand_ins.py).
"""

import re

from docutils import nodes
from launch_links import page_links
from section_links import section_uri
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from tools import widget_stand_ins

logger = logging.getLogger(__name__)
WIDGET_VIEW = widget_stand_ins.WIDGET_VIEW
MATPLOTLIB_REPR = re.compile(r"^<Figure size [^>]*>$")
TITLE = re.compile(r"""(?:set_title\(|suptitle\(|\btitle=)\s*(["'])(.+?)\1""")
SETUP_HEADING = "Two commands"  # the README's section on running the course


def plot_alt(cell_source: str) -> str:
    """Alt text for a plot: the titles its cell gives it."""
    titles = [match[2] for match in TITLE.finditer(cell_source)]
    return "Plot drawn by the cell above" + (f": {'; '.join(titles)}" if titles else "")


def cell_source(node: nodes.Element) -> str:
    """The code of the notebook cell an output node belongs to."""
    while node is not None and node.get("nb_element") != "cell_code":
        node = node.parent
    if node is None:
        return ""
    sources = [child for child in node.children if child.get("nb_element") == "cell_code_source"]
    return sources[0].astext() if sources else ""


def running_notebook_note(
    launch: list[tuple[str, str]], readme_setup: str | None
) -> nodes.paragraph:
    """The line under an explorer: its sliders need a running notebook, and where to get one.

    launch: the page's launch links; readme_setup: the address of the README's set-up
    section, said when there are none (a reader of the site has no course folder).
    """
    note = nodes.paragraph(classes=["explorer-note"])
    note += nodes.Text("The sliders need a running notebook: ")
    if launch:
        note += nodes.Text("open this one on ")
        for index, (label, url) in enumerate(launch):
            if index:
                note += nodes.Text(" or " if index == len(launch) - 1 else ", ")
            note += nodes.reference("", label, refuri=url)
        note += nodes.Text(".")
        return note
    note += nodes.Text("open this notebook in JupyterLab (see ")
    readme = f"the README, {SETUP_HEADING}"
    note += nodes.reference("", readme, refuri=readme_setup) if readme_setup else nodes.Text(readme)
    note += nodes.Text(") or from the course's GitHub page in Colab.")
    return note


class PicturesWithText(SphinxPostTransform):
    default_priority = 3  # before MyST-NB's SelectMimeType (4) drops the text beside them

    def run(self, **kwargs) -> None:
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            formats = {child["mime_type"]: child for child in bundle.children}
            if widget_stand_ins.is_stand_in({m: c.astext() for m, c in formats.items()}):
                self.leave_out(bundle)
                continue
            text = formats["text/plain"].astext().strip() if "text/plain" in formats else ""
            explorer = WIDGET_VIEW in formats
            if not explorer and MATPLOTLIB_REPR.match(text):
                text = plot_alt(cell_source(bundle))
            for image in bundle.findall(nodes.image):
                image["alt"] = image.get("alt") or text or plot_alt(cell_source(bundle))
            if explorer:
                bundle.parent.insert(bundle.parent.index(bundle) + 1, self.explorer_note())

    @staticmethod
    def leave_out(bundle: nodes.Element) -> None:
        """Remove an output, and its cell's output area if nothing else is left in it."""
        area = bundle.parent
        area.remove(bundle)
        if not area.children and area.get("nb_element") == "cell_code_output":
            area.parent.remove(area)

    def explorer_note(self) -> nodes.paragraph:
        page = self.env.docname
        launch = page_links(self.app, page)
        readme_setup = None
        if not launch:
            readme_setup = section_uri(self.app, page, "README", SETUP_HEADING)
            if readme_setup is None:
                logger.warning(
                    f"the note under an explorer names the README's section "
                    f"{SETUP_HEADING!r}, which the README does not have",
                    location=page,
                )
        return running_notebook_note(launch, readme_setup)


def setup(app: Sphinx) -> dict:
    app.setup_extension("section_links")  # its section_uri finds the README's section
    app.add_post_transform(PicturesWithText)
    return {"parallel_read_safe": True}
