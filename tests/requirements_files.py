"""Read pip requirement files as pip does for pins: `-r FILE` followed, other options skipped."""

import re
from dataclasses import dataclass
from pathlib import Path

REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\S*)")


@dataclass(frozen=True)
class Pin:
    name: str  # normalised as pip compares names: lower case, runs of -_. as one -
    spec: str  # e.g. ==2.13.0+cpu
    source: Path


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(path: Path, follow: bool = True) -> list[Pin]:
    """Every requirement of a file, and (follow) of the files it includes, relative to it."""
    found = []
    for raw in path.read_text().splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line.startswith(("-r ", "--requirement ")):
            if follow:
                found += requirements(path.parent / line.split(None, 1)[1])
        elif (match := REQUIREMENT.match(line)) and not line.startswith("-"):
            found.append(Pin(normalise(match[1]), match[2], path))
    return found


def names(path: Path, follow: bool = True) -> set[str]:
    return {pin.name for pin in requirements(path, follow)}
