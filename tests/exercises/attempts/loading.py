"""Learner source imported as a real module from a file, as a notebook cell's code would be
defined: inspect.getsource and tracebacks see the source, which the checks read."""

import atexit
import hashlib
import importlib.util
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from types import ModuleType

_FOLDER = Path(tempfile.mkdtemp(prefix="learner_attempts_"))
atexit.register(shutil.rmtree, _FOLDER, ignore_errors=True)  # the modules die with the process
_LOADED: dict[str, ModuleType] = {}


def load_source(source: str, stem: str = "attempt") -> ModuleType:
    """Write `source` to a fresh .py file in a temporary folder on sys.path and import it.

    The module's name is `stem` plus a hash of the source, so the same source is imported
    once and different sources never share a module (or a linecache entry).
    """
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    name = f"{stem}_{digest}"
    if name in _LOADED:
        return _LOADED[name]
    if str(_FOLDER) not in sys.path:
        sys.path.append(str(_FOLDER))
    path = _FOLDER / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings of odd mutants ("0.1(x)")
        spec.loader.exec_module(module)
    _LOADED[name] = module
    return module
