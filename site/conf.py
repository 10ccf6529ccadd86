"""Every setting of the course's website (`make site`; tools/site.py builds it).

Sphinx with MyST-NB reads the stored notebooks and executes nothing; sphinx-book-theme
draws the pages. Nothing on a page is fetched from the web when it is read: the theme's
fonts and icons ship with it, MathJax is served from the site itself, and search is
Sphinx's own index.

The source folder is a copy of the course laid out as in the repository (README.md,
notebooks/), so every relative link between pages works as it does on GitHub.

Two editions (SITE_EDITION, set by tools/site.py --edition): the students' (the default)
leaves the teacher's guide out and folds every answer; the teacher's has the guide and
shows the answers open. Every page's footer credits the course (credit_footer.py).
"""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # this folder's extensions, and tools.links

from tools import credit  # noqa: E402 (conf.py's own folder and the repository, above)

project = credit.COURSE
author = credit.notice().holder
copyright = f"{credit.notice().year}, {author}"  # LICENSE's notice; the footer has it all
language = "en"

course_edition = os.environ.get("SITE_EDITION", "students")
TEACHERS_GUIDE = "notebooks/teachers-guide"

extensions = [
    "myst_nb",
    "sphinx.ext.mathjax",
    "course_pages",
    "credit_footer",
    "launch_links",
    "output_pictures",
    "section_links",
]

# The course map is the home page (tools/site.py adds an index.html that leads to it).
root_doc = "notebooks/00-start-here"
exclude_patterns = ["**/.ipynb_checkpoints", "**/.hypothesis"]
if course_edition != "teacher":  # tools/site.py copies it only for the teacher's edition
    exclude_patterns.append(f"{TEACHERS_GUIDE}.md")

# The sidebar in course order: each lesson's three tracks, then its exercise; then the
# pages about the course (the guide in the teacher's edition). course_pages.py adds these to the course map as hidden tables
# of contents, so every page is listed once and a missing one fails the build.
course_navigation = [
    (
        "Lesson 1: writing your own Function",
        [
            "notebooks/01-custom-function/1-beginner",
            "notebooks/01-custom-function/2-developer",
            "notebooks/01-custom-function/3-researcher",
            "notebooks/exercises/your-own-backward-pass",
        ],
    ),
    (
        "Lesson 2: checking your gradients",
        [
            "notebooks/02-checking-gradients/1-beginner",
            "notebooks/02-checking-gradients/2-developer",
            "notebooks/02-checking-gradients/3-researcher",
            "notebooks/exercises/check-your-clamp01",
        ],
    ),
    (
        "Lesson 3: useful lies",
        [
            "notebooks/03-surrogate-gradients/1-beginner",
            "notebooks/03-surrogate-gradients/2-developer",
            "notebooks/03-surrogate-gradients/3-researcher",
            "notebooks/exercises/choose-your-surrogate",
        ],
    ),
    ("About the course", [TEACHERS_GUIDE, "README"] if course_edition == "teacher" else ["README"]),
]

# Launch buttons (launch_links.py): the GitHub repository the notebooks open from, as
# `make links` knows it from origin; SITE_REPOSITORY overrides it (an empty value: none),
# SITE_BRANCH names its branch, SITE_HUB adds the class hub (make site HUB=...).
course_repository = os.environ.get("SITE_REPOSITORY")
course_branch = os.environ.get("SITE_BRANCH") or None
course_hub = os.environ.get("SITE_HUB") or None

# MyST-NB: the stored outputs as they are, never a kernel.
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# An explorer's output holds a widget view, a static picture and a text alternative. A
# widget cannot run on a static page and its state is not stored, so the picture wins;
# output_pictures.py gives it the text as its alt text and a link to a running notebook.
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]

# MathJax from npm (site/package.json), copied into _static/mathjax/ by tools/site.py:
# its font and its speech rules load from there too, never from a CDN.
mathjax_path = "mathjax/tex-chtml.js"
mathjax4_config = {
    "loader": {"paths": {"fonts": "[mathjax]/fonts"}},
    "options": {"sre": {"path": "[mathjax]/sre/mathmaps"}},
}

html_theme = "sphinx_book_theme"
html_title = project
html_copy_source = False  # the notebooks are on the launch buttons' sites, not here
html_show_sourcelink = False
html_last_updated_fmt = None
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "navigation_with_keys": False,
    # The footer is the course's credit (credit_footer.py), LICENSE's notice included.
    "footer_content_items": ["extra-footer.html"],
}
html_static_path = ["_static"]
html_css_files = ["course.css"]
# The narrow screen's menu and contents buttons, wired up (the theme wires hidden twins).
html_js_files = ["sidebar_toggles.js"]
