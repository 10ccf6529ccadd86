"""Every page's footer: the course's credit line, and what to keep when copying its code.

The line is tools/credit.py's, for the repository `make credit` names: conf.py's
course_repository (SITE_REPOSITORY) when set, else origin. The footer links to the
README's Licence section, which says the same at length.
"""

import html

from sphinx.application import Sphinx
from sphinx.config import Config

from tools import credit

LICENCE_SECTION = ("README", "licence")  # the README's "## Licence", as MyST anchors it


def read_source(app: Sphinx, config: Config) -> None:
    app.course_credit_source = credit.source(config.course_repository)


def linked(text: str, address: str | None) -> str:
    """text, escaped, with the course's address and the licence's as links."""
    escaped = html.escape(text, quote=False)
    for url in filter(None, (address, credit.CC_BY)):
        escaped = escaped.replace(url, f'<a href="{url}">{url}</a>', 1)
    return escaped


def footer(address: str | None, licence_uri: str | None) -> str:
    more = f' (<a href="{licence_uri}">Licence</a>)' if licence_uri else ""
    return (
        f'<p class="course-credit">{linked(credit.credit_line(address), address)}</p>'
        f'<p class="course-credit-reuse">Reusing the text or pictures: copy the line above. '
        f"{html.escape(credit.ADAPTED, quote=False)} "
        f"{html.escape(credit.KEEP_CODE, quote=False)}{more}</p>"
    )


def add_footer(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    """html-page-context: the theme's extra footer, the only item conf.py keeps."""
    address, _ = app.course_credit_source
    readme, anchor = LICENCE_SECTION
    licence = None
    if readme in app.env.all_docs:
        licence = f"{app.builder.get_relative_uri(pagename, readme)}#{anchor}"
    context["theme_extra_footer"] = footer(address, licence)


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", read_source)
    app.connect("html-page-context", add_footer)
    return {"parallel_read_safe": True}
