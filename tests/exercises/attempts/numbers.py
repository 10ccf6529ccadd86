"""Numbers quoted in a verdict, read back and compared with numbers an attempt produced."""

import math
import re

import torch

_NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)(?![\w])")


def quoted(text: str) -> list[float]:
    """Every number in `text`, in order ("nan" and "inf" too)."""
    return [float(n) for n in _NUMBER.findall(text)]


def flat(value: object) -> list[float] | None:
    """The numbers a value holds, flattened (a tensor, an array, a list of them, a number)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, torch.Tensor):
        return [float(v) for v in value.detach().double().flatten().tolist()]
    if type(value).__module__ == "numpy":
        return flat(torch.as_tensor(value))
    if isinstance(value, list | tuple):
        out = []
        for item in value:
            numbers = flat(item)
            if numbers is None:
                return None
            out += numbers
        return out
    return None


def same(a: list[float] | None, b: list[float] | None, rel: float = 1e-3) -> bool:
    """Equal lists of numbers, to the digits a verdict prints."""
    if a is None or b is None or len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if math.isnan(x) or math.isnan(y):
            if not (math.isnan(x) and math.isnan(y)):
                return False
        elif not math.isclose(x, y, rel_tol=rel, abs_tol=1e-5):
            return False
    return True


def close(a: object, b: object) -> bool:
    """Two values hold the same numbers (to the digits a verdict prints)."""
    return same(flat(a), flat(b))


def printed_as(text: str, numbers: list[float] | None) -> bool:
    """Whether the numbers printed in `text` are `numbers`; a printout cut short with "..."
    matches a prefix (its last, perhaps cut, number left out)."""
    said = quoted(text)
    if numbers is None:
        return False
    if text.rstrip().endswith("..."):
        said = said[:-1]
        return len(said) <= len(numbers) and same(said, numbers[: len(said)])
    return same(said, numbers)
