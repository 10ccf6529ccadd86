"""The check both beginner tasks make of backward's result: one tensor, shaped like x."""

from collections.abc import Callable
from dataclasses import dataclass

import torch

from lessons_lib.exercises.base import Case
from lessons_lib.running import Run, a_or_an, plain


@dataclass(frozen=True)
class OneGradientWords:
    """An exercise's words for each way backward's result can be wrong; `{}` fields are filled
    with what backward gave back."""

    name: str  # the case's name
    error: Callable[[Run], str]  # the fix, given the run whose backward raised
    count: str  # {count}: how many things backward gave back
    none: str
    kind: str  # {kind}: "an int", "a list", ...
    size: str  # {got}, {want}: how many numbers came back, and how many x has
    placeholder: str = ""  # the starter's `...`, where the task's starter has one


def one_gradient_case(run: Run, x: torch.Tensor, words: OneGradientWords) -> Case:
    """backward ran and gave back exactly one tensor, shaped like x."""
    expected = f"one tensor with {x.numel()} numbers, one per number that went into forward"
    failed = run.failure
    if failed is not None:
        got = f"backward stopped with an error: {failed.kind}: {failed.message}"
        return Case(words.name, False, expected, got, words.error(run))
    grads = list(run.grads)
    while len(grads) > 1 and grads[-1] is None:  # autograd forgives extra trailing Nones
        grads.pop()
    if len(grads) != 1:
        fix = words.count.format(count=len(run.grads))
        return Case(words.name, False, expected, plain(run.grads), fix)
    (grad,) = grads
    if grad is Ellipsis and words.placeholder:
        return Case(words.name, False, expected, "... (the placeholder)", words.placeholder)
    if grad is None:
        return Case(words.name, False, expected, "None", words.none)
    if not isinstance(grad, torch.Tensor):
        fix = words.kind.format(kind=a_or_an(type(grad).__name__))
        return Case(words.name, False, expected, plain(grad), fix)
    if grad.shape != x.shape:
        fix = words.size.format(got=grad.numel(), want=x.numel())
        return Case(words.name, False, expected, plain(grad), fix)
    return Case(words.name, True)
