"""The mutation operators every exercise can use: delete a statement, change a constant,
swap or replace an operator, wrap what is returned, rename a variable, insert a statement.

Each is built by a function taking the names of the functions it acts in (`inside`), so an
exercise mutates backward only, or my_nudge only; see mutate.py for how operators run.
"""

import ast
from collections.abc import Sequence

from tests.exercises.attempts.mutate import Operator, expression, nodes, site_operator, statements

_OPS = {"*": ast.Mult, "+": ast.Add, "-": ast.Sub, "/": ast.Div, "**": ast.Pow}


def _symbol(op: ast.operator) -> str:
    return next(s for s, kind in _OPS.items() if isinstance(op, kind))


def delete_statement(inside: Sequence[str]) -> Operator:
    """Delete one statement (never a def or class)."""
    simple = (ast.Assign, ast.AugAssign, ast.Expr, ast.Return, ast.If, ast.Raise, ast.With)
    return site_operator("delete statement", nodes(simple, inside), lambda node: [("", None)])


def change_constant(inside: Sequence[str], values: Sequence[object]) -> Operator:
    """Give a number constant each of `values` in turn."""

    def edit(node: ast.Constant):
        return [(f"-> {v!r}", ast.Constant(v)) for v in values if v != node.value]

    number = nodes(ast.Constant, inside, lambda n: type(n.value) in (int, float))
    return site_operator("constant", number, edit)


def swap_operands(inside: Sequence[str]) -> Operator:
    """a op b becomes b op a."""

    def edit(node: ast.BinOp):
        return [("", ast.BinOp(node.right, node.op, node.left))]

    return site_operator("swap operands", nodes(ast.BinOp, inside), edit)


def replace_operator(inside: Sequence[str], symbols: Sequence[str] = tuple(_OPS)) -> Operator:
    """a * b becomes a + b, a - b, ... (each of `symbols` but its own)."""

    def edit(node: ast.BinOp):
        own = _symbol(node.op)
        return [
            (f"{own} -> {s}", ast.BinOp(node.left, _OPS[s](), node.right))
            for s in symbols
            if s != own
        ]

    return site_operator("replace operator", nodes(ast.BinOp, inside), edit)


def wrap_returned(inside: Sequence[str], wrappers: Sequence[str]) -> Operator:
    """return v becomes return <wrapper with {} for v>: "({},)", "{}.sum()", "5", ..."""

    def edit(node: ast.Return):
        value = ast.unparse(node.value) if node.value is not None else "None"
        return [(f"-> {w}", ast.Return(expression(w.format(f"({value})")))) for w in wrappers]

    return site_operator("return", nodes(ast.Return, inside), edit)


def rename(inside: Sequence[str], names: Sequence[str], into: Sequence[str]) -> Operator:
    """One read of a variable in `names` becomes each expression of `into` in turn."""

    def edit(node: ast.Name):
        return [
            (f"{node.id} -> {new.format(node.id)}", expression(new.format(node.id)))
            for new in into
            if new != node.id
        ]

    reads = nodes(ast.Name, inside, lambda n: isinstance(n.ctx, ast.Load) and n.id in names)
    return site_operator("read", reads, edit)


def insert_before_return(inside: Sequence[str], lines: Sequence[str]) -> Operator:
    """Put a statement just before a return: an in-place change, a stray call, ..."""

    def edit(node: ast.Return):
        return [(f"+ {line}", [*statements(line), node]) for line in lines]

    return site_operator("insert", nodes(ast.Return, inside), edit)
