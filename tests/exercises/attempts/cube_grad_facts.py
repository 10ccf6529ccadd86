"""What a learner's cube_grad does, and the oracles for check_cube_grad's cases.

Each case's property, as its name and expected line say: for its kind of input, cube_grad
gives back a tensor of x's shape equal to 3x² (the gradient of the sum of x³), of x's dtype
on the lines that name a dtype (float32, float64; on the others a float tensor of another
dtype counts by its values), and leaves the caller's x alone (its values, requires_grad and .grad; for a non-leaf, the .grad
of what it was made from); an integer tensor gets a TypeError or ValueError whose message
says float; the learner's own Cube's backward ran; that Cube multiplies by grad_out.
RIGHT: every property holds.
"""

import contextlib
import io
import warnings
from dataclasses import dataclass, field

import torch

from tests.exercises.attempts.arguments import is_function_class, what_it_is
from tests.exercises.attempts.distinct import Attempt
from tests.exercises.attempts.function_facts import Raised, describe


def _values(dtype=torch.float32):
    return torch.tensor([-2.0, -1.0, 0.0, 0.5, 3.0], dtype=dtype)


# The inputs, by the case names check_cube_grad prints; the last item says how it is called.
INPUTS = {
    "1-d values": lambda: (_values(), None, False),
    "a 0-d tensor (a single number)": lambda: (torch.tensor(2.0), None, False),
    "an empty tensor": lambda: (torch.tensor([]), None, False),
    "a 2-d tensor": lambda: (torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.5]]), None, False),
    "a float32 tensor": lambda: (_values(torch.float32), None, False),
    "a float64 tensor": lambda: (_values(torch.float64), None, False),
    "a tensor that requires grad is left alone": lambda: (
        torch.tensor([1.0, -2.0], requires_grad=True),
        None,
        False,
    ),
    "a non-leaf (the result of other steps)": lambda: _non_leaf(),
    "works inside the caller's torch.no_grad()": lambda: (_values(), None, True),
}
INTEGER = "an integer tensor is refused with a clear error"
USES_CUBE = "your Cube's backward did the work"
CHAIN = "your Cube's backward multiplies by grad_out"


def _non_leaf():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    return w * 2, w, False


@dataclass
class Call:
    """One call cube_grad(x), and what it did to x."""

    x: torch.Tensor  # x's values before the call
    result: object = None
    raised: Raised | None = None
    raised_error: BaseException | None = None
    values_changed: bool = False
    requires_grad: tuple[bool, bool] = (False, False)  # before, after
    grad_filled: bool = False  # x.grad (a leaf's) is no longer None
    source_grad: torch.Tensor | None = None  # w.grad, for the non-leaf x = w * 2
    x_grad: torch.Tensor | None = None


@dataclass
class Usage:
    applies: int = 0  # forward calls through Cube.apply
    forward_direct: int = 0  # Cube.forward(...) called by hand
    backward: int = 0


@dataclass
class CubeGradFacts:
    calls: dict = field(default_factory=dict)  # case name -> Call
    integer: Call | None = None
    usage: Usage | None = None  # on the 1-d call; None: no Cube beside cube_grad
    cube: type | None = None
    chain: bool | None = None  # the Cube multiplies by grad_out (None: no Cube)
    chain_grad: object = None  # the Cube's gradient for an uneven grad_out


def call(fn, x: torch.Tensor, source=None, no_grad: bool = False) -> Call:
    record = Call(x.detach().clone(), requires_grad=(x.requires_grad, x.requires_grad))
    grad_before = x.grad if x.is_leaf else None
    context = torch.no_grad() if no_grad else contextlib.nullcontext()
    try:
        with context, contextlib.redirect_stdout(io.StringIO()):
            result = fn(x)
        record.result = _detached(result)
    except Exception as error:
        record.raised, record.raised_error = Raised.of(error), error
    record.values_changed = x.shape != record.x.shape or not torch.equal(x.detach(), record.x)
    record.requires_grad = (record.requires_grad[0], x.requires_grad)
    record.grad_filled = x.is_leaf and x.grad is not grad_before
    record.x_grad = x.grad.detach().clone() if x.is_leaf and x.grad is not None else None
    if source is not None and source.grad is not None:
        record.source_grad = source.grad.detach().clone()
    return record


def _detached(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple | list):
        return type(value)(_detached(v) for v in value)
    return value


@contextlib.contextmanager
def counting(cube: type):
    """Count the Cube's forwards (through apply or by hand) and backwards while inside."""
    usage = Usage()
    forward, backward = cube.__dict__.get("forward"), cube.__dict__.get("backward")
    plain_forward, plain_backward = cube.forward, cube.backward

    def counted_forward(ctx, *args, **kwargs):
        if isinstance(ctx, torch.autograd.function.FunctionCtx):
            usage.applies += 1
        else:
            usage.forward_direct += 1
        return plain_forward(ctx, *args, **kwargs)

    def counted_backward(ctx, *args):
        usage.backward += 1
        return plain_backward(ctx, *args)

    cube.forward, cube.backward = staticmethod(counted_forward), staticmethod(counted_backward)
    try:
        yield usage
    finally:
        for name, old in (("forward", forward), ("backward", backward)):
            if old is None:
                delattr(cube, name)
            else:
                setattr(cube, name, old)


def _chain(cube: type) -> tuple[bool, object]:
    """Whether the Cube's gradient is grad_out·3x² for an uneven grad_out, and that gradient."""
    x = _values().requires_grad_(True)
    grad_out = torch.tensor([0.5, 2.0, 3.0, -1.0, 1.5])
    try:
        (got,) = torch.autograd.grad(cube.apply(x * 1), x, grad_out)
    except Exception:
        return False, None
    want = grad_out * 3 * x.detach() ** 2
    right = got is not None and torch.allclose(got.double(), want.double(), rtol=1e-5)
    return right, got


def cube_grad_facts(fn) -> CubeGradFacts:
    facts = CubeGradFacts()
    namespace = getattr(fn, "__globals__", {})
    cube = namespace.get("Cube") if isinstance(namespace, dict) else None
    facts.cube = cube if is_function_class(cube) else None
    with warnings.catch_warnings(), torch.enable_grad():
        warnings.simplefilter("ignore")
        for name, make in INPUTS.items():
            x, source, no_grad = make()
            facts.calls[name] = call(fn, x, source, no_grad)
        facts.integer = call(fn, torch.tensor([1, 2, 3]))
        if facts.cube is not None:
            with counting(facts.cube) as usage:
                call(fn, _values())
            facts.usage = usage
            facts.chain, facts.chain_grad = _chain(facts.cube)
    return facts


DTYPE_CASES = ("a float32 tensor", "a float64 tensor")


def gives_gradient(c: Call, dtype: bool = True) -> bool:
    """3x² in x's shape; in x's dtype too when `dtype`, else any float dtype."""
    got, x = c.result, c.x
    if c.raised or not isinstance(got, torch.Tensor):
        return False
    kind = got.dtype == x.dtype or (not dtype and got.is_floating_point())
    if got.shape != x.shape or not kind:
        return False
    return torch.allclose(got.double(), 3 * x.double() ** 2, rtol=1e-5, atol=1e-6)


def leaves_x_alone(c: Call) -> bool:
    before, after = c.requires_grad
    return not (c.values_changed or before != after or c.grad_filled or c.source_grad is not None)


def refuses_integers(c: Call) -> bool:
    r = c.raised
    return r is not None and r.kind in ("TypeError", "ValueError") and "float" in r.message.lower()


def cube_grad_case_oracles(facts: CubeGradFacts) -> dict[str, bool | None]:
    found = {
        n: gives_gradient(c, dtype=n in DTYPE_CASES) and leaves_x_alone(c)
        for n, c in facts.calls.items()
    }
    found[INTEGER] = refuses_integers(facts.integer)
    found[USES_CUBE] = facts.usage is not None and facts.usage.backward > 0
    found[CHAIN] = bool(facts.chain)
    return found


def is_right(facts: CubeGradFacts) -> bool:
    return all(cube_grad_case_oracles(facts).values())


def cube_grad_signature(attempt: Attempt) -> tuple:
    f = attempt.facts
    if f is None:
        return ("argument", what_it_is(attempt.learner))
    calls = tuple(
        (
            describe(c.result),
            c.raised.kind if c.raised else None,
            c.values_changed,
            c.requires_grad,
            c.grad_filled,
            describe(c.source_grad),
        )
        for c in [*f.calls.values(), f.integer]
    )
    usage = None if f.usage is None else (f.usage.applies, f.usage.forward_direct, f.usage.backward)
    message = f.integer.raised.message if f.integer.raised else ""
    return (calls, usage, f.chain, "float" in message.lower())
