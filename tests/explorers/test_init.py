"""explorers: what the package exports, and its layers: gradient/ and steps/ share only its base."""

import ast
from pathlib import Path

import pytest

import lessons_lib
import lessons_lib.explorers as explorers

PACKAGE = Path(explorers.__file__).parent


@pytest.mark.parametrize("name", explorers.__all__)
def test_every_exported_name_works_from_the_package_and_from_lessons_lib(name):
    assert callable(getattr(explorers, name))
    assert getattr(lessons_lib, name) is getattr(explorers, name)


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, by its full name."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(("one", "other"), [("gradient", "steps"), ("steps", "gradient")])
def test_neither_explorer_imports_the_other(one, other):
    files = sorted((PACKAGE / one).glob("*.py"))
    assert len(files) >= 4
    crossing = {
        f"{path.name} imports {module}"
        for path in files
        for module in imported_modules(path)
        if module.startswith(f"lessons_lib.explorers.{other}")
    }
    assert crossing == set()


def test_the_shared_parts_import_neither_explorer():
    for path in PACKAGE.glob("*.py"):
        if path.name == "__init__.py":
            continue  # the front door names both explorers
        modules = imported_modules(path)
        assert not [
            m
            for m in modules
            if m.startswith(("lessons_lib.explorers.gradient", "lessons_lib.explorers.steps"))
        ], path.name
