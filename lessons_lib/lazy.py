"""Names that load their module on first use (PEP 562), so `import lessons_lib` stays light."""

import importlib
import sys
from collections.abc import Callable


def lazy_names(
    package: str, homes: dict[str, str], wrap: Callable[[str, object], object] | None = None
) -> tuple[Callable, Callable]:
    """A package's `__getattr__` and `__dir__` for names that live in `homes[name]`.

    `wrap(name, value)`, if given, is what the package hands out instead of the value.
    """

    def __getattr__(name: str) -> object:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        if wrap is not None:
            value = wrap(name, value)
        setattr(sys.modules[package], name, value)  # once loaded, a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__
