"""Mutation operators for a learner's torch.autograd.Function: what forward saves on the
notepad, how backward reads it back, in-place changes, and whole-line rewrites."""

import ast
from collections.abc import Sequence

from tests.exercises.attempts.mutate import Operator, expression, nodes, site_operator, statements


def _saves(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and "save_for_backward" in ast.unparse(node)


def _reads_saved(node: ast.AST) -> bool:
    return isinstance(node, ast.Assign) and "saved_tensors" in ast.unparse(node.value)


def notepad(saved: str = "x") -> Operator:
    """forward's save_for_backward dropped, or replaced with a ctx attribute or a detached
    copy; backward's (x,) = ctx.saved_tensors read as a tuple, by index, or from ctx.x."""
    saving = {
        "ctx.x = x": statements(f"ctx.{saved} = {saved}"),
        "ctx.saved = (x,)": statements(f"ctx.saved = ({saved},)"),
        "save x.detach()": statements(f"ctx.save_for_backward({saved}.detach())"),
        "save x twice": statements(f"ctx.save_for_backward({saved}, {saved})"),
        "save x * 2": statements(f"ctx.save_for_backward({saved} * 2)"),
    }
    reading = {
        "x = ctx.saved_tensors": f"{saved} = ctx.saved_tensors",
        "x = ctx.saved_tensors[0]": f"{saved} = ctx.saved_tensors[0]",
        "x = ctx.x": f"{saved} = ctx.{saved}",
        "x, = ctx.saved_tensors": f"{saved}, = ctx.saved_tensors",
        "x = ctx.saved_tensors[-1]": f"{saved} = ctx.saved_tensors[-1]",
        "x = list(ctx.saved_tensors)": f"{saved} = list(ctx.saved_tensors)",
    }

    def edit(node: ast.AST):
        if _saves(node):
            return [(k, v) for k, v in saving.items()]
        return [(k, statements(v)) for k, v in reading.items()]

    find = nodes((ast.Expr, ast.Assign), where=lambda n: _saves(n) or _reads_saved(n))
    return site_operator("notepad", find, edit)


def rewrite_return(inside: Sequence[str], bodies: Sequence[str]) -> Operator:
    """backward's (or forward's) return replaced by a few whole lines, written as a learner
    would: in-place versions, equivalent spellings, slips."""

    def edit(node: ast.Return):
        return [(f"-> {body!r}", statements(body)) for body in bodies]

    return site_operator("rewrite", nodes(ast.Return, inside), edit)


def stray_call(inside: Sequence[str], names: Sequence[str], calls: Sequence[str]) -> Operator:
    """A read of a variable gets a stray call: x.detach(), grad_out.item(), x.numpy()."""

    def edit(node: ast.Name):
        return [(f"{node.id}{c}", expression(f"{node.id}{c}")) for c in calls]

    reads = nodes(ast.Name, inside, lambda n: isinstance(n.ctx, ast.Load) and n.id in names)
    return site_operator("stray", reads, edit)
