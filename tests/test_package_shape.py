"""The package's shape: rooms small enough to hold in one's head, a light import, a true map."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lessons_lib"
MODULES = sorted(PACKAGE.rglob("*.py"))
LIMITS = {"module": 450, "class": 160, "function": 80}  # lines
SCRIPTS = sorted(PACKAGE.rglob("*.js"))  # the explorers' front end: held to the module limit


def tracked_sources() -> list[Path]:
    """Every .py and .js file git tracks here (tests, tools, benchmarks, site/ too), bar npm's."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "*.py", "*.js"], cwd=ROOT, capture_output=True, text=True
    )
    paths = (ROOT / name for name in listed.stdout.split("\0") if name)
    return sorted(p for p in paths if "node_modules" not in p.parts and p.is_file())


SOURCES = tracked_sources()


def units(path: Path) -> list[tuple[str, str, int]]:
    """Every class and function in a module: (kind, qualified name, lines)."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                found.append((kind, prefix + child.name, child.end_lineno - first + 1))
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(path.read_text()), "")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_room_is_too_big(path):
    too_big = [
        f"{kind} {name}: {lines} lines" for kind, name, lines in units(path) if lines > LIMITS[kind]
    ]
    lines = len(path.read_text().splitlines())
    if lines > LIMITS["module"]:
        too_big.append(f"module: {lines} lines")
    assert too_big == []


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_script_is_longer_than_a_module_may_be(path):
    assert len(path.read_text().splitlines()) <= LIMITS["module"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_file_of_the_repository_is_longer_than_a_module_may_be(path):
    assert len(path.read_text().splitlines()) <= LIMITS["module"]


def test_the_repository_has_sources_to_check_beyond_the_package():
    assert {p.parent.name for p in SOURCES} >= {"tests", "tools", "benchmarks", "lessons_lib"}, (
        "git ls-files found too little: is this a clone?"
    )


def test_the_package_has_scripts_to_check():
    assert len(SCRIPTS) > 1, "the front end's parts moved: update SCRIPTS"


def test_the_limits_catch_a_room_too_big(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMITS["function"]))
    module = tmp_path / "big.py"
    module.write_text(f"def big():\n{body}")
    assert units(module) == [("function", "big", LIMITS["function"] + 1)]


@pytest.mark.parametrize("folder", sorted(p.parent for p in PACKAGE.rglob("__init__.py")))
def test_every_subpackage_says_what_it_exports_or_what_it_holds(folder):
    init = ast.parse((folder / "__init__.py").read_text())
    assert ast.get_docstring(init), f"{folder.name}/__init__.py has no docstring"


def test_importing_the_package_loads_nothing_heavy():
    """Binder gives a learner 1-2 GB: the explorers' and one exercise's tools load on use."""
    heavy = ["hypothesis", "matplotlib", "anywidget", "ipywidgets"]
    code = (
        "import sys, lessons_lib\n"
        "from lessons_lib import Cube, RoundSTE, check_function, research\n"
        "from lessons_lib import check_cube, check_cube_grad, check_nudge, check_straight_through\n"
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert loaded.stdout.strip() == "[]"


def test_the_surface_gives_every_name_it_lists():
    import lessons_lib

    for name in lessons_lib.__all__:
        assert getattr(lessons_lib, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        lessons_lib.nothing_here  # noqa: B018


def readme_map() -> list[str]:
    """The paths in the README's "What is where" tree, with their folders spelled out."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## What is where\n+```\n(.*?)```", readme, re.S)[1]
    paths, folders = [], []
    for line in block.splitlines():
        # an entry: its folders' rails, a branch (none at the top), a name; anything else is a note
        match = re.match(r"((?:│   |    )*)(├── |└── )?(\S+)", line)
        if not match or (match[1] and not match[2]) or match[3][0] in "│├└":
            continue
        depth = len(match[1]) // 4 + (1 if match[2] else 0)
        folders[depth:] = []
        paths.append("".join(folders) + match[3])
        if match[3].endswith("/"):
            folders.append(match[3])
    return paths


def test_the_readme_map_is_the_package_tree_and_names_every_module():
    named = {p for p in readme_map() if p.startswith("lessons_lib/")}
    files = {
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*")
        if p.suffix in {".py", ".js"}
        and "__pycache__" not in p.parts
        # a subpackage's __init__ only gathers its names; the top one is the import surface
        and (p.name != "__init__.py" or p.parent == PACKAGE)
    }
    folders = {f"{Path(f).parent}/" for f in files}
    assert files - named == set(), "modules the README's map does not name"
    assert named - files - folders == set(), "names in the README's map that are not in the tree"


def test_every_file_of_the_package_the_course_names_exists():
    """Notebooks and guides cite files learners may open: a move must update them."""
    texts = [*ROOT.glob("notebooks/**/*.ipynb"), *ROOT.glob("notebooks/*.md"), *ROOT.glob("*.md")]
    cited = {
        (str(path.relative_to(ROOT)), name)
        for path in texts
        for name in re.findall(r"lessons_lib/[\w/]+\.(?:py|js)", path.read_text())
    }
    assert cited, "no citation found: the pattern is wrong"
    assert {(where, name) for where, name in cited if not (ROOT / name).exists()} == set()
