"""Mutated source made into real functions: written to a .py file in a temporary folder on
sys.path and imported, so inspect.getsource reads it as it reads a learner's notebook code."""

import hashlib
import importlib
import sys
import tempfile
from pathlib import Path
from types import ModuleType

# What a learner's notebook has imported by the time they write their checks.
PRELUDE = """\
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd import Function

from lessons_lib import Clamp01
"""

_FOLDER: Path | None = None


def folder() -> Path:
    """The one temporary folder, on sys.path, that holds every attempt's module."""
    global _FOLDER
    if _FOLDER is None:
        _FOLDER = Path(tempfile.mkdtemp(prefix="clamp_attempts_"))
        sys.path.insert(0, str(_FOLDER))
    return _FOLDER


def load_module(source: str) -> ModuleType:
    """Import `source` (with the notebook's imports above it) as a fresh module."""
    text = PRELUDE + "\n\n" + source
    name = "clamp_attempt_" + hashlib.sha1(text.encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    path = folder() / f"{name}.py"
    path.write_text(text)
    importlib.invalidate_caches()
    return importlib.import_module(name)


def load_function(source: str, name: str) -> object:
    """The function `name` defined by `source`."""
    return getattr(load_module(source), name)
