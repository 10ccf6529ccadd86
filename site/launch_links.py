"""Launch buttons on each notebook's page: Binder, Colab and the class hub, as `make links`.

The links are tools/links.py's, for the same repository and branch: origin on GitHub, or
conf.py's course_repository (SITE_REPOSITORY) when set; an empty setting, or a clone whose
origin is not on GitHub, gives none. `make links` opens Binder and the hub at the course
map; a notebook's page opens them at that notebook.
"""

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

from tools import links


@dataclass(frozen=True)
class Repository:
    owner: str
    name: str
    binder_ref: str  # what Binder builds: a branch, or HEAD (the default branch)
    branch: str | None  # the branch Colab and the hub open, when known


def repository(setting: str | None, branch: str | None, cwd: Path = links.ROOT):
    """The GitHub repository the notebooks open from, or None.

    setting None: origin, read as `make links` reads it; "": none; else a GitHub address.
    """
    if setting is None:
        remote = links.git("remote", "get-url", "origin", cwd=cwd)
        found = links.github_repo(remote) if remote else None
        if found is None:
            return None
        known = branch or links.tracked_branch(cwd) or links.origin_default_branch(cwd)
        return Repository(*found, branch or links.origin_ref(cwd), known)
    if not setting.strip():
        return None
    found = links.github_repo(setting)
    if found is None:
        raise ConfigError(
            f"SITE_REPOSITORY={setting!r} is not a GitHub repository's address "
            "(e.g. https://github.com/OWNER/REPO): Binder, Colab and the hub read GitHub."
        )
    return Repository(*found, branch or "HEAD", branch)


def opened_at(course_map_url: str, notebook: str) -> str:
    """A tools/links.py link that opens the course map, opening notebook instead."""
    if not course_map_url.endswith(links.COURSE_MAP):
        raise ValueError(f"not a course map link: {course_map_url}")
    return course_map_url.removesuffix(links.COURSE_MAP) + quote(notebook)


def launch_links(repo: Repository, notebook: str, hub: str | None) -> list[tuple[str, str]]:
    """(label, address) of each place that runs notebook (its path from the repository)."""
    owner, name = repo.owner, repo.name
    binder = opened_at(links.binder_url(owner, name, repo.binder_ref), notebook)
    colab = links.colab_url(owner, name, repo.branch or links.GUESSED_BRANCH, notebook)
    found = [("Binder", binder), ("Colab", colab)]
    if hub:
        found.append(
            ("the class hub", opened_at(links.hub_url(hub, owner, name, repo.branch), notebook))
        )
    return found


def page_links(app: Sphinx, docname: str) -> list[tuple[str, str]]:
    """The launch links of a page: none unless it is a notebook and the repository is known."""
    if app.course_repository is None or app.env.doc2path(docname).suffix != ".ipynb":
        return []
    # The site's source folder is laid out as the repository: a page's path is its file's.
    return launch_links(app.course_repository, f"{docname}.ipynb", app.config.course_hub)


def read_settings(app: Sphinx, config: Config) -> None:
    hub = config.course_hub
    if hub and not links.is_web_address(hub):
        raise ConfigError(f"SITE_HUB needs the hub's http(s) address (got {hub!r}).")
    app.course_repository = repository(config.course_repository, config.course_branch)


ICONS = {
    "Binder": "_static/images/logo_binder.svg",
    "Colab": "_static/images/logo_colab.png",
    "the class hub": "_static/images/logo_jupyterhub.svg",
}


def add_header_buttons(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    """html-page-context: the theme's launch menu (the rocket), with the links above."""
    found = page_links(app, pagename) if doctree is not None else []
    if not found:
        return
    buttons = [
        {
            "type": "link",
            "text": label,
            "tooltip": f"Run this notebook on {label}",
            "icon": ICONS[label],
            "url": url,
        }
        for label, url in found
    ]
    context["header_buttons"].append(
        {
            "type": "group",
            "tooltip": "Run this notebook",
            "icon": "fas fa-rocket",
            "buttons": buttons,
            "label": "launch-buttons",
        }
    )


def setup(app: Sphinx) -> dict:
    for name in ("course_repository", "course_branch", "course_hub"):
        app.add_config_value(name, None, "env")
    app.connect("config-inited", read_settings)
    # After the theme has made context["header_buttons"] (its own handlers run at 500-501).
    app.connect("html-page-context", add_header_buttons, priority=502)
    return {"parallel_read_safe": True}
