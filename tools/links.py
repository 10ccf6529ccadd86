"""Print the Binder, Colab and class hub links and README badges for this clone's `origin`.

    python -m tools.links [--hub https://hub.example.edu]     (or: make links HUB=...)

Binder (mybinder.org), Colab and nbgitpuller all read a public GitHub repository by owner,
name and branch, so every link needs `origin` on GitHub. Binder and the hub link open
JupyterLab at the course map; Colab opens one notebook, so each notebook gets its link.
"""

import argparse
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
COURSE_MAP = "notebooks/00-start-here.ipynb"
BINDER = "https://mybinder.org/v2/gh"
BADGE = "https://mybinder.org/badge_logo.svg"
COLAB = "https://colab.research.google.com/github"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
GUESSED_BRANCH = "main"
# The class on Kubernetes (hub/z2jh) pulls the course from its image's own git copy, where
# branch course is the commit the image was built from: notebooks match its lessons_lib.
IMAGE_COURSE = "file:///srv/lessons"
IMAGE_BRANCH = "course"
NEEDS = (
    "Binder, Colab and nbgitpuller read a public GitHub repository: push this clone to GitHub "
    "and name it origin ({}), then run make links again."
)
EXAMPLE_ORIGIN = "https://github.com/OWNER/REPO.git"
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
    return f"{BINDER}/{owner}/{repo}/{quote(ref, safe='')}?urlpath=lab/tree/{COURSE_MAP}"


def badge(url: str) -> str:
    """A Markdown Binder badge linking to url, ready for the README."""
    return f"[![Launch on Binder]({BADGE})]({url})"


def colab_url(owner: str, repo: str, branch: str, notebook: str) -> str:
    """Colab's link to a notebook (path from the repository's root) on a branch of owner/repo."""
    # Unlike Binder's, a GitHub blob URL keeps feature/x as two segments; quote each segment.
    path = "/".join(quote(part, safe="") for part in f"{branch}/{notebook}".split("/"))
    return f"{COLAB}/{owner}/{repo}/blob/{path}"


def colab_badge(url: str) -> str:
    """A Markdown Colab badge linking to url, ready for the README."""
    return f"[![Open In Colab]({COLAB_BADGE})]({url})"


def nbgitpuller_path(query: dict[str, str]) -> str:
    """The server-relative nbgitpuller path for query (repo, branch, targetpath, urlpath)."""
    return "git-pull?" + urlencode(query, quote_via=quote, safe="/")


def hub_url(hub: str, owner: str, repo: str, branch: str | None) -> str:
    """The hub link that pulls owner/repo into each learner's home and opens the course map.

    nbgitpuller clones into a folder named after the repository; without a branch it pulls
    the repository's default branch.
    """
    query = {"repo": f"https://github.com/{owner}/{repo}"}
    if branch:
        query["branch"] = branch
    query["urlpath"] = f"lab/tree/{repo}/{COURSE_MAP}"
    return f"{hub.rstrip('/')}/hub/user-redirect/{nbgitpuller_path(query)}"


def image_course_path() -> str:
    """The nbgitpuller path that pulls the course from a hub/z2jh image's own copy."""
    folder = IMAGE_COURSE.rsplit("/", 1)[-1]  # nbgitpuller pulls into the address's last part
    query = {"repo": IMAGE_COURSE, "branch": IMAGE_BRANCH}
    return nbgitpuller_path({**query, "urlpath": f"lab/tree/{folder}/{COURSE_MAP}"})


def is_web_address(url: str) -> bool:
    """Whether url is a plain http(s) address with a host: a hub's, not a typo or a path."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and not parts.query


def notebooks(root: Path) -> list[str]:
    """Every notebook under root/notebooks/, as paths from root, in course (sorted) order."""
    found = (root / "notebooks").glob("**/*.ipynb")
    return sorted(
        p.relative_to(root).as_posix() for p in found if ".ipynb_checkpoints" not in p.parts
    )


def git(*args: str, cwd: Path = ROOT) -> str | None:
    """Output of a git command in cwd, or None when it fails (no remote, no upstream, ...)."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def naming_origin(cwd: Path = ROOT, url: str = EXAMPLE_ORIGIN) -> str:
    """The git command that makes url the clone's origin: `git remote add` where it has no
    origin, `git remote set-url` where it has one (add would fail: origin exists)."""
    verb = "add" if git("remote", "get-url", "origin", cwd=cwd) is None else "set-url"
    return f"git remote {verb} origin {url}"


def tracked_branch(cwd: Path = ROOT) -> str | None:
    """The branch on origin that the checked-out branch tracks, if any."""
    upstream = git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}", cwd=cwd)
    if upstream and upstream.startswith("origin/"):
        return upstream.removeprefix("origin/")
    return None


def origin_ref(cwd: Path = ROOT) -> str:
    """The branch on origin that the checked-out branch tracks, else HEAD.

    HEAD makes Binder build the repository's default branch: right for a clone on a local
    branch or a detached commit that GitHub does not have.
    """
    return tracked_branch(cwd) or "HEAD"


def origin_default_branch(cwd: Path = ROOT) -> str | None:
    """origin's default branch as this clone last heard it (git clone or set-head records it)."""
    head = git("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD", cwd=cwd)
    return head.removeprefix("origin/") if head and head.startswith("origin/") else None


def report(cwd: Path = ROOT, hub: str | None = None) -> tuple[str, int]:
    """What `make links` prints for the clone at cwd, and its exit status."""
    remote = git("remote", "get-url", "origin", cwd=cwd)
    found = github_repo(remote) if remote else None
    if found is None:
        where = f"origin is {remote}, not on GitHub" if remote else "this clone has no origin"
        return f"No links: {where}. {NEEDS.format(naming_origin(cwd))}", 1
    owner, repo = found
    binder = binder_url(owner, repo, origin_ref(cwd))
    # Colab needs a branch name where Binder takes HEAD: guess only when git cannot tell.
    known = tracked_branch(cwd) or origin_default_branch(cwd)
    branch = known or GUESSED_BRANCH
    colab = [colab_url(owner, repo, branch, notebook) for notebook in notebooks(cwd)]
    lines = [f"Binder link: {binder}", "Colab links, one per notebook:"]
    lines += [f"  {url}" for url in colab]
    if not known:
        lines.append(
            f"Note: the Colab links guess branch {GUESSED_BRANCH}: origin's default branch is "
            "unknown here (git remote set-head origin --auto looks it up)."
        )
    course_map = colab_url(owner, repo, branch, COURSE_MAP)
    lines.append(f"README badges: {badge(binder)} {colab_badge(course_map)}")
    if hub:
        lines.append(f"Class hub link: {hub_url(hub, owner, repo, known)}")
        lines.append(
            "Kubernetes class hub link (hub/z2jh: the course from the hub's image): "
            f"{hub.rstrip('/')}/hub/user-redirect/{image_course_path()}"
        )
    else:
        lines.append(
            "Class hub link: run make links HUB=https://your-hub for the link that pulls the "
            "course into each learner's home on your JupyterHub (nbgitpuller)."
        )
    return "\n".join(lines), 0


def main(argv: list[str] | None = None) -> int:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--hub", help="the class hub's address, e.g. https://hub.example.edu")
    args = ask.parse_args(argv)
    if args.hub is not None and not is_web_address(args.hub):
        print(
            f"--hub needs the hub's http(s) address, e.g. make links HUB=https://hub.example.edu "
            f"(got {args.hub!r}).",
            file=sys.stderr,
        )
        return 2
    text, status = report(hub=args.hub)
    print(text, file=sys.stderr if status else sys.stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())
