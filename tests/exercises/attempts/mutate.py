"""AST mutations of a learner's source: each operator finds its sites in the tree and gives
one mutant per site and variant; mutants of mutants give the second order.

An operator is a function from a parsed module to (label, mutated module) pairs; it never
changes the tree it is given. `site_operator` builds one from a node predicate and an edit.
Every listing is in the tree's walk order, so the same source always gives the same mutants.
"""

import ast
import difflib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

Operator = Callable[[ast.Module], Iterator[tuple[str, ast.Module]]]
# An edit gives (variant label, replacement) pairs for a node: a node, a list of statements
# (spliced in its place), or None to delete it.
Edit = Callable[[ast.AST], Iterable[tuple[str, object]]]


@dataclass(frozen=True)
class Mutant:
    """A mutated source and the mutations that made it, in order."""

    label: str
    source: str


def parse(source: str) -> ast.Module:
    return ast.parse(source)


def unparse(tree: ast.Module) -> str:
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def diff(before: str, after: str) -> str:
    """A unified diff of two sources, for failure messages."""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "answer", "attempt", lineterm="", n=1
    )
    return "\n".join(lines)


def _parent_slots(tree: ast.AST) -> dict[int, tuple[ast.AST, str, int | None]]:
    """id(node) -> (parent, field, index in the field's list or None)."""
    slots = {}
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        slots[id(child)] = (parent, name, i)
            elif isinstance(value, ast.AST):
                slots[id(value)] = (parent, name, None)
    return slots


def replace(tree: ast.AST, node: ast.AST, new: object) -> None:
    """Put `new` where `node` is in `tree`: a node, a list of statements, or None (delete)."""
    parent, name, index = _parent_slots(tree)[id(node)]
    if index is None:
        setattr(parent, name, new)
        return
    items = getattr(parent, name)
    replacement = [] if new is None else new if isinstance(new, list) else [new]
    items[index : index + 1] = replacement
    if not items and name in ("body", "orelse") and isinstance(parent, ast.stmt):
        items.append(ast.Pass())  # a body cannot be empty
        if name == "orelse":
            items.clear()


Finder = Callable[[ast.Module], list[ast.AST]]


def site_operator(name: str, find: Finder, edit: Edit) -> Operator:
    """An operator that edits each node `find` lists, one site and variant at a time."""

    def operator(tree: ast.Module) -> Iterator[tuple[str, ast.Module]]:
        text = ast.unparse(tree)  # parsing again is much quicker than copy.deepcopy
        for number, site in enumerate(find(tree)):
            for variant, _ in edit(site):
                copied = ast.parse(text)
                twin = find(copied)[number]  # the same site in the copy: same walk order
                new = dict(edit(twin))[variant]  # the edit again, on the copy's own node
                replace(copied, twin, new)
                yield f"{name} #{number} {variant}".strip(), copied

    return operator


def nodes(kind: type | tuple, inside: Sequence[str] = (), where=lambda n: True) -> Finder:
    """A finder: the nodes of type `kind` (within the functions named `inside`, if given)
    for which `where` holds."""

    def find(tree: ast.Module) -> list[ast.AST]:
        scope = [tree]
        if inside:
            scope = [
                n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in inside
            ]
        found, seen = [], set()
        for root in scope:
            for n in ast.walk(root):
                if isinstance(n, kind) and n is not root and id(n) not in seen and where(n):
                    seen.add(id(n))
                    found.append(n)
        return found

    return find


def expression(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def statements(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def mutants(source: str, operators: Sequence[Operator]) -> list[Mutant]:
    """Every first-order mutant of `source` by `operators`, dropping the ones equal to it."""
    tree = parse(source)
    original = unparse(tree)
    found = []
    for operator in operators:
        for label, mutated in operator(tree):
            text = unparse(mutated)
            if text != original:
                found.append(Mutant(label, text))
    return found


def second_order(
    firsts: Sequence[Mutant], operators: Sequence[Operator], every: int = 1
) -> list[Mutant]:
    """Mutants of every `every`-th first-order mutant: two mutations combined."""
    found = []
    for first in firsts[::every]:
        for second in mutants(first.source, operators):
            found.append(Mutant(f"{first.label}; then {second.label}", second.source))
    return found
