"""Where the gradient doctor looks: the sample, random points, the tails, and the upstream gradients."""

from dataclasses import dataclass

import torch

from lessons_lib.running import InputError, differentiable

WIDE = 10.0  # random points are drawn from [-WIDE, WIDE]
TAILS = (-1e3, 1e3, -1e4, 1e4, -100.0, 100.0, -30.0, 30.0)  # most telling first


def default_inputs() -> tuple[torch.Tensor]:
    """A float64 sample that exposes the classic bugs: signs, 0, (0, 1), >1, half-integers, 2-d."""
    x = torch.tensor(
        [[-2.5, -1.5, -1.0, -0.5], [0.0, 0.25, 0.5, 0.75], [1.0, 1.5, 2.0, 2.5]],
        dtype=torch.float64,
    )
    return (x,)


@dataclass(frozen=True)
class Sample:
    """One set of inputs to check at, and how a report names it."""

    label: str
    inputs: tuple
    first: bool = False  # the learner's own inputs (or the default sample)
    higher: bool = False  # also check double backward and jvp here


def sample_sets(given: tuple | None) -> list[Sample]:
    """The sample (or the learner's inputs), then random values and the tails for x.

    Only the first float tensor (x) moves; every other input stays as the learner gave
    it, because weights, bounds and indices often have to satisfy conditions (a
    contraction, lo < hi) that random values would break.
    """
    base = default_inputs() if given is None else given
    position = next(i for i, a in enumerate(base) if differentiable(a))
    x = base[position]
    if given is None:  # a flat sweep says more than the grid's shape
        x = torch.empty(32, dtype=torch.float64)
    generator = torch.Generator().manual_seed(0)
    random = torch.empty(x.shape, dtype=x.dtype).uniform_(-WIDE, WIDE, generator=generator)

    def with_x(values: torch.Tensor) -> tuple:
        return (*base[:position], values, *base[position + 1 :])

    size = max(1, x.numel())
    tails = [tail_values(x, start) for start in range(0, min(len(TAILS), 4 * size), size)]
    return [
        Sample("the sample" if given is None else "your inputs", base, first=True, higher=True),
        Sample(f"random points in [-{WIDE:g}, {WIDE:g}]", with_x(random), higher=True),
        *(Sample("points in the tails", with_x(t)) for t in tails),
    ]


def tail_values(like: torch.Tensor, start: int) -> torch.Tensor:
    """Large values of both signs, shaped like `like`, all distinct (so sorting has no ties)."""
    count = like.numel()
    # Round r scales every magnitude by 1 + r / rounds < 2, so |x| stays inside [30, 60),
    # [100, 200), [1e3, 2e3) or [1e4, 2e4): no two values can meet.
    rounds = (start + count) // len(TAILS) + 1
    values = [
        TAILS[(start + i) % len(TAILS)] * (1 + ((start + i) // len(TAILS)) / rounds)
        for i in range(count)
    ]
    return torch.tensor(values, dtype=like.dtype).reshape(like.shape)


def validated_inputs(inputs: object) -> tuple:
    """The learner's inputs as a tuple, or an InputError that says what to pass instead."""
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, list | tuple):
        raise InputError(
            f"inputs must be a tuple of arguments for forward, got {type(inputs).__name__}."
        )
    inputs = tuple(inputs)
    complex_inputs = [a for a in inputs if isinstance(a, torch.Tensor) and a.is_complex()]
    if complex_inputs:  # x.double() would drop the imaginary part: no such advice here
        raise InputError(
            "the doctor checks Functions of real floating-point tensors, and does not support "
            f"complex inputs ({complex_inputs[0].dtype} given). Complex tensors do have "
            "gradients in PyTorch: check a complex Function with torch.autograd.gradcheck on "
            "complex128 inputs, which supports them."
        )
    if not any(differentiable(a) for a in inputs):
        dtypes = ", ".join(str(a.dtype) for a in inputs if isinstance(a, torch.Tensor)) or "none"
        raise InputError(
            "inputs need at least one real floating-point tensor, because the doctor checks "
            f"gradients and integer or bool tensors cannot have them (tensor dtypes given: "
            f"{dtypes}). Try x.double()."
        )
    x = next(a for a in inputs if differentiable(a))
    if x.numel() == 0:
        raise InputError(
            f"the first floating-point input is empty (shape {tuple(x.shape)}): give it at "
            "least one value to check at."
        )
    return inputs


def upstream_gradient(output: torch.Tensor, index: int) -> torch.Tensor:
    """A fixed, uneven grad_out per output: a backward that ignores it cannot match by luck.

    Drawn in float64 whatever the output's dtype, so that a Function whose output is float32
    and a reference (or grad_reference) in float64 receive the same grad_out.
    """
    generator = torch.Generator().manual_seed(index)
    drawn = torch.empty(output.shape, dtype=torch.float64).uniform_(0.5, 2.0, generator=generator)
    return drawn.round(decimals=2).to(output.dtype)


def random_directions(inputs: tuple, seed: int) -> list:
    """Random directions, one per float input: for double backward and jvp."""
    generator = torch.Generator().manual_seed(seed)
    return [
        torch.empty_like(a).uniform_(-1.0, 1.0, generator=generator) if differentiable(a) else None
        for a in inputs
    ]


def non_contiguous(values: torch.Tensor) -> torch.Tensor | None:
    """The same values laid out non-contiguously, as a transposed or summed output hands them back.

    Two or more dimensions: stored transposed (what `y.t() * w` sends), so `.view(-1)`
    refuses it. One dimension: every other element of a longer tensor of zeros
    (`torch.zeros(2 * n)[::2]`), so code that reads the memory as if contiguous sees zeros
    between the values. None for a single value, which no layout makes non-contiguous.
    """
    if transposable(values.shape):
        spread = values.mT.contiguous().mT
    else:
        spread = torch.zeros(2 * values.numel(), dtype=values.dtype)[::2].view(values.shape)
        spread.copy_(values)
    return None if spread.is_contiguous() else spread


def transposable(shape: torch.Size) -> bool:
    """Whether non_contiguous stores a tensor of this shape transposed (else strided)."""
    return len(shape) >= 2 and shape[-1] > 1 and shape[-2] > 1
