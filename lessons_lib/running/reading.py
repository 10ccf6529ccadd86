"""Reading a learner's function from its source: its returns, assignments, parameters, and
where in it an error was raised.
"""

import ast
import dis
import inspect
import textwrap
import traceback
import types
from collections.abc import Callable

import torch


def raised_where(error: BaseException, candidate: Callable) -> tuple[str, str]:
    """("own", line) for the learner's own raise or assert, ("torch", line) for an error PyTorch
    raised in the learner's line `line`, ("", "") when the traceback does not say."""
    code = getattr(candidate, "__code__", None)
    frames = traceback.extract_tb(error.__traceback__)
    if code is None or not frames:
        return "", ""
    theirs = [f for f in frames if f.filename == code.co_filename]
    if not theirs:
        return "", ""
    line = (theirs[-1].line or "").strip()
    last = frames[-1]
    if last.filename != code.co_filename:  # raised in a Python file further down
        inside_torch = "/torch/" in last.filename.replace("\\", "/")
        return ("torch" if inside_torch else ""), line
    tree, row = function_tree(candidate), (last.lineno or 0) - code.co_firstlineno + 1
    if tree is None:
        return "", line  # its source cannot be read (exec, a plain REPL): who raised is unknown
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise | ast.Assert) and node.lineno <= row <= node.end_lineno:
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if isinstance(node, ast.Assert) or any(
                k.__name__ in names for k in type(error).__mro__
            ):
                return "own", line
            return "", line  # raised while its message was being worked out
    return "torch", line  # a PyTorch call written in C, such as requires_grad_, raised


def assignment_to(fn: Callable, name: str) -> str:
    """The first `name = ...` line in fn's own body, as source text; "" when there is none."""
    tree = function_tree(fn)
    if tree is None or not name:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return ast.unparse(node)
    return ""


def source_text(fn: Callable) -> str:
    """fn's own def as normalised source text; "" when it cannot be read."""
    tree = function_tree(fn)
    return "" if tree is None else ast.unparse(tree)


def first_parameter(fn: Callable) -> str:
    try:
        return next(iter(inspect.signature(fn).parameters), "")
    except (TypeError, ValueError):  # a callable without a readable signature
        return ""


def function_tree(fn: Callable) -> ast.AST | None:
    """The syntax tree of fn's own def, or None when its source cannot be read."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_name == "<lambda>":
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    return next((n for n in ast.walk(tree) if isinstance(n, defs) and n.name == code.co_name), None)


def returned(fn: Callable) -> list[str] | None:
    """The expressions fn's own return statements give back, as source text ("None" for a
    bare return); None when the source cannot be read (a lambda, a built-in)."""
    func = function_tree(fn)
    if func is None:
        return None
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    found, todo = [], list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (*defs, ast.Lambda, ast.ClassDef)):
            continue  # a nested function's returns are not cube_grad's
        if isinstance(node, ast.Return):
            found.append("None" if node.value is None else ast.unparse(node.value))
        todo.extend(ast.iter_child_nodes(node))
    return found


def backward_of(fn: type) -> Callable | None:
    """A Function's backward as the plain function the learner wrote."""
    backward = getattr(fn, "backward", None)
    return inspect.unwrap(backward) if callable(backward) else None


def outside_tensors(fn: Callable | None) -> dict[str, torch.Tensor]:
    """The tensors fn reads from outside itself (the notebook's globals), by name: a fact of
    its code, not a guess from its numbers."""
    code = getattr(fn, "__code__", None)
    found: dict[str, torch.Tensor] = {}
    if code is None:
        return found
    known = getattr(fn, "__globals__", {})
    codes = [code]
    while codes:  # fn's own code, then any lambda or comprehension inside it
        current = codes.pop()
        for step in dis.get_instructions(current):
            name = step.argval
            is_read = step.opname in ("LOAD_GLOBAL", "LOAD_NAME")
            if is_read and isinstance(known.get(name), torch.Tensor):
                found.setdefault(name, known[name])
        codes.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return found
