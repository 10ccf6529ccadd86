"""Print the Binder link and README badge for this clone, from its `origin` remote.

    python -m tools.binder_link        (or: make binder-link)

Binder (mybinder.org) builds public GitHub repositories by owner, name and git ref, so
the link needs `origin` on GitHub; the link opens JupyterLab at the course map.
"""

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
BINDER = "https://mybinder.org/v2/gh"
BADGE = "https://mybinder.org/badge_logo.svg"
COURSE_MAP = "lab/tree/notebooks/00-start-here.ipynb"
NEEDS = (
    "Binder builds a public GitHub repository: push this clone to GitHub and name it origin "
    "(git remote add origin https://github.com/OWNER/REPO.git), then run make binder-link again."
)
# https://github.com/o/r(.git), http://..., https://user@github.com/o/r, git://github.com/o/r,
# ssh://git@github.com(:22)/o/r and the scp-like git@github.com:o/r, each with or without .git.
GITHUB = re.compile(
    r"""^(?:(?:https?|git|ssh)://(?:[^@/]+@)?github\.com(?::\d+)?/   # a URL
         |(?:[^@/]+@)?github\.com:)                                  # or scp-like ssh
        (?P<owner>[A-Za-z0-9-]+)/(?P<repo>[A-Za-z0-9._-]+?)(?:\.git)?/?$""",
    re.VERBOSE | re.IGNORECASE,
)


def github_repo(remote_url: str) -> tuple[str, str] | None:
    """(owner, name) of a GitHub remote URL in any of git's forms; None if not GitHub."""
    match = GITHUB.match(remote_url.strip())
    return (match["owner"], match["repo"]) if match else None


def binder_url(owner: str, repo: str, ref: str = "HEAD") -> str:
    """The mybinder.org link that builds owner/repo at ref and opens the course map."""
    # A branch such as feature/x is one path segment in Binder's URL.
    return f"{BINDER}/{owner}/{repo}/{quote(ref, safe='')}?urlpath={COURSE_MAP}"


def badge(url: str) -> str:
    """A Markdown Binder badge linking to url, ready for the README."""
    return f"[![Launch on Binder]({BADGE})]({url})"


def git(*args: str, cwd: Path = ROOT) -> str | None:
    """Output of a git command in cwd, or None when it fails (no remote, no upstream, ...)."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def origin_ref(cwd: Path = ROOT) -> str:
    """The branch on origin that the checked-out branch tracks, else HEAD.

    HEAD makes Binder build the repository's default branch: right for a clone on a local
    branch or a detached commit that GitHub does not have.
    """
    upstream = git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}", cwd=cwd)
    if upstream and upstream.startswith("origin/"):
        return upstream.removeprefix("origin/")
    return "HEAD"


def report(cwd: Path = ROOT) -> tuple[str, int]:
    """What `make binder-link` prints for the clone at cwd, and its exit status."""
    remote = git("remote", "get-url", "origin", cwd=cwd)
    found = github_repo(remote) if remote else None
    if found is None:
        where = f"origin is {remote}, not on GitHub" if remote else "this clone has no origin"
        return f"No Binder link: {where}. {NEEDS}", 1
    url = binder_url(*found, origin_ref(cwd))
    return f"Binder link: {url}\nREADME badge: {badge(url)}", 0


def main() -> int:
    text, status = report()
    print(text, file=sys.stderr if status else sys.stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())
