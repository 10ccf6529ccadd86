"""The course's credit line and code notice, filled from LICENSE and this clone's origin.

    python -m tools.credit [--repository https://github.com/OWNER/REPO]    (make credit)

CC BY 4.0 asks whoever reuses the text and pictures to name the course and its copyright
holder, keep the copyright notice, link to the licence and to where they took it from, and
say whether they changed it; the MIT licence asks that copied code keep its copyright line
and permission notice. The holder and year are LICENSE's, the address is origin's as `make
links` reads it (tools/links.py): the site's footer and every deck's last slide show the
same line. Without an address it says so in one line, how to give it one, and prints the
rest all the same, with status 0 as `make site` and `make slides` go on: the line lacks
only the link to where the course comes from.
"""

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tools import links

ROOT = links.ROOT
LICENSE = ROOT / "LICENSE"
COURSE = "Write your own backward pass"
CC_BY = "https://creativecommons.org/licenses/by/4.0/"
COPYRIGHT = re.compile(r"^Copyright \(c\) (?P<year>\d{4}(?:-\d{4})?) (?P<holder>.+)$", re.M)
NO_ADDRESS = (
    "No address in the credit line: {why}. Name the course's repository with "
    "{naming_origin}, or pass it: {command} REPOSITORY=https://github.com/OWNER/REPO."
)


@dataclass(frozen=True)
class Notice:
    """LICENSE's copyright line, and the MIT permission notice that follows it."""

    year: str
    holder: str
    permission: str

    @property
    def copyright(self) -> str:
        return f"Copyright (c) {self.year} {self.holder}"


def notice(license_file: Path = LICENSE) -> Notice:
    text = license_file.read_text()
    found = COPYRIGHT.search(text)
    if found is None:
        raise SystemExit(f"{license_file} has no line 'Copyright (c) YEAR HOLDER'.")
    return Notice(found["year"], found["holder"], text[found.end() :].strip())


def web_address(remote: str) -> str | None:
    """Where a reader finds the repository a remote names: GitHub's page, else an http(s)
    address without its credentials or .git; None for a path or another protocol."""
    github = links.github_repo(remote)
    if github:
        return "https://github.com/{}/{}".format(*github)
    parts = urlsplit(remote.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    path = parts.path.removesuffix("/").removesuffix(".git")
    return urlunsplit((parts.scheme, host, path, "", ""))


def source(setting: str | None = None, cwd: Path = ROOT) -> tuple[str | None, str]:
    """(the course's address, why there is none): setting when given, else origin's."""
    if setting is not None:
        found = web_address(setting) if setting.strip() else None
        return found, "" if found else f"{setting!r} is not a web address of a repository"
    remote = links.git("remote", "get-url", "origin", cwd=cwd)
    if remote is None:
        return None, "this clone has no origin"
    found = web_address(remote)
    return found, "" if found else f"origin is {remote}, not a web address"


def no_address(why: str, command: str = "make credit", cwd: Path = ROOT) -> str:
    """The line saying the credit line has no address, and the two ways to give it one."""
    return NO_ADDRESS.format(why=why, naming_origin=links.naming_origin(cwd), command=command)


def credit_line(address: str | None, holder: Notice | None = None) -> str:
    """The line that credits the course's text and pictures, as CC BY 4.0 asks."""
    holder = holder or notice()
    where = f", {address}" if address else ""
    return f'"{COURSE}" © {holder.year} {holder.holder}{where}, licensed under CC BY 4.0 ({CC_BY})'


ADAPTED = (
    'Changed it? Begin the line with "Adapted from" and end it with "; changed:" and what '
    "you changed."
)
KEEP_CODE = (
    "Code copied from the course (lessons_lib, a notebook's code cell, code on a slide) is "
    "under the MIT licence: keep its copyright line and the licence's permission notice "
    "with the copy (on slides, a last slide with both)."
)


def report(setting: str | None = None, cwd: Path = ROOT) -> str:
    """What `make credit` prints; without an address, first the line saying so."""
    address, why = source(setting, cwd)
    held = notice()
    lines = []
    if address is None:
        lines.append(no_address(why, cwd=cwd))
    lines += [
        "The credit line for the course's text and pictures (CC BY 4.0):",
        f"  {credit_line(address, held)}",
        ADAPTED,
        KEEP_CODE,
        f"  {held.copyright}",
        *(f"  {line}" if line else "" for line in held.permission.splitlines()),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--repository", help="the course's address, instead of origin's")
    args = ask.parse_args(argv)
    print(report(args.repository))
    return 0


if __name__ == "__main__":
    sys.exit(main())
