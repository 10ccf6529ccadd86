"""One Function of the corpus: what it computes, what its backward is meant to be, and where from."""

from collections.abc import Callable
from dataclasses import dataclass

LABELS = ("exact", "surrogate", "buggy")
CHECKS = ("gradcheck", "gradgradcheck", "gradcheck(check_forward_ad=True)")


@dataclass(frozen=True)
class Entry:
    """A custom Function rewritten from a public project, with the verdict it deserves.

    `label` says what backward is: "exact" (the true derivative of forward), "surrogate"
    (a deliberate rule, given as `grad_reference(*inputs, *grad_outs)`) or "buggy" (a
    mistake such code really makes). A buggy entry names the finding `codes` the doctor
    should give, most important first, and which of torch's `check` (gradcheck, gradgradcheck,
    or gradcheck of forward mode, in float64) shows the mistake.
    """

    name: str
    function: type
    reference: Callable
    label: str
    source: str  # "owner/repo, path (what was taken from it)"
    grad_reference: Callable | None = None
    inputs: tuple | None = None  # None: the doctor's own sample
    codes: tuple[str, ...] = ()
    check: str = ""

    def __post_init__(self) -> None:
        assert self.label in LABELS, self.label
        assert (self.label == "surrogate") == (self.grad_reference is not None), self.name
        assert (self.label == "buggy") == bool(self.codes), self.name
        assert (self.label == "buggy") == (self.check in CHECKS), self.name
