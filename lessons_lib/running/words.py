"""Small words for messages about a learner's values: one place for every exercise's describers."""

import torch


def a_or_an(noun: str) -> str:
    """The noun with its indefinite article: "an int", "a float"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def short(value: object) -> str:
    """A one-line description of a value: its repr, trimmed, plus dtype for tensors."""
    if isinstance(value, torch.Tensor):
        text = " ".join(repr(value.detach()).split())
        if value.dtype != torch.float32 and "dtype=" not in text:
            text = text[:-1] + f", dtype={value.dtype})"
        return text if len(text) <= 120 else text[:117] + "..."
    try:
        text = " ".join(repr(value).split())
    except Exception:  # a learner's object whose repr is broken
        text = f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def plain(value: object) -> str:
    """A short 1-d float tensor as plain numbers, "[0.5, 2, -1, 3]"; anything else as short()."""
    short_1d = isinstance(value, torch.Tensor) and value.dim() == 1 and value.numel() <= 8
    if short_1d and (value.is_floating_point() or value.dtype == torch.int64):
        return "[" + ", ".join(f"{v:g}" for v in value.tolist()) + "]"
    return short(value)


def numbers(t: torch.Tensor | None) -> str:
    """Any tensor's first 8 numbers, flattened, as [a, b, c, ...] (0.001, not 0.00100000004)."""
    if t is None:
        return "nothing"
    values = [f"{v:g}" for v in t.flatten().tolist()[:8]]
    return "[" + ", ".join(values) + (", ...]" if t.numel() > 8 else "]")


def kind_and_size(value: object) -> str:
    """What a value is and how many things it holds: "a tensor holding 3 numbers", "a tuple of
    2 things", "a str"."""
    if isinstance(value, torch.Tensor):
        return f"a tensor holding {value.numel()} numbers"
    if isinstance(value, tuple | list):
        things = "thing" if len(value) == 1 else "things"
        return f"{a_or_an(type(value).__name__)} of {len(value)} {things}"
    return a_or_an(type(value).__name__)


def untracked(output: object) -> str:
    """What forward gave back that autograd cannot follow back to x, as a fact about it."""
    if isinstance(output, tuple) and len(output) == 1:
        output = output[0]
    if not isinstance(output, torch.Tensor):
        return f"forward gave back {kind_and_size(output)}, {short(output)}, not a tensor"
    if output.dtype == torch.bool:
        return f"forward gave back a tensor of True and False (torch.bool), {plain(output)}"
    if not output.is_floating_point():
        return f"forward gave back a tensor of whole numbers ({output.dtype}), {plain(output)}"
    return (
        f"forward gave back {plain(output)}, a tensor with no link back to x (cut off as "
        ".detach(), .item(), .numpy() or torch.tensor(...) cut it)"
    )
