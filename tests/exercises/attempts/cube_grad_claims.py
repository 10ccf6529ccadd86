"""check_cube_grad's claim-checkers: what the learner's cube_grad raised, returned and did to
the caller's tensor, what their own check did, how their Cube was used; verified against
CubeGradFacts (the test's own calls, with the learner's Cube's forward and backward counted)
and against the learner's source, read with ast."""

import ast
import contextlib
import re
import traceback

import torch

from tests.exercises.attempts.claims import YOU_PASSED, claim
from tests.exercises.attempts.cube_grad_facts import USES_CUBE
from tests.exercises.attempts.numbers import close, flat, printed_as


def _calls(a):
    return [*a.facts.calls.values(), a.facts.integer]


def _tree(a) -> ast.FunctionDef | None:
    try:
        module = ast.parse(a.source)
    except SyntaxError:
        return None
    found = [n for n in ast.walk(module) if isinstance(n, ast.FunctionDef)]
    return next((n for n in found if n.name == "cube_grad"), None)


def _returns(a) -> list[str]:
    tree = _tree(a)
    if tree is None:
        return []
    return [
        ast.unparse(n.value) if n.value else "None"
        for n in ast.walk(tree)
        if isinstance(n, ast.Return)
    ]


def _own_raises(a) -> set[str]:
    """The exception kinds cube_grad raises itself (AssertionError for an assert)."""
    tree, kinds = _tree(a), set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Assert):
            kinds.add("AssertionError")
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name):
                kinds.add(target.id)
    return kinds


def _source_has(a, text: str) -> bool:
    tree = _tree(a)
    if tree is None:
        return False
    normal = ast.unparse(tree)
    with contextlib.suppress(SyntaxError):
        text = ast.unparse(ast.parse(text.strip()))
    return text in normal


def _raised(found, a) -> bool:
    """ "it raised K: message[, raised by PyTorch in your line `L`]"."""
    said = found["message"].strip()
    hits = [
        c
        for c in _calls(a)
        if c.raised and c.raised.kind == found["kind"] and c.raised.message.startswith(said[:60])
    ]
    if not hits:
        return False
    if found["line"]:
        return _source_has(a, found["line"]) and found["kind"] not in _own_raises(a)
    return True


def _some_result(test):
    def verify(found, a) -> bool:
        return any(c.raised is None and test(c, found) for c in a.facts.calls.values())

    return verify


def _usage(found, a) -> bool | None:
    u = a.facts.usage
    if u is None:
        return None
    return (u.applies, u.forward_direct, u.backward) == (
        int(found["a"]),
        int(found["f"]),
        int(found["b"]),
    )


def _got(found, a) -> bool | None:
    value = found["value"].strip()
    if not value.startswith(("tensor(", "[", "array(", "(tensor")):
        return None
    text = value.split(" (the course")[0]
    return any(c.raised is None and printed_as(_clean(text), _numbers(c.result)) for c in _calls(a))


def _clean(text: str) -> str:
    return re.sub(r"dtype=[\w.]+|requires_grad=\w+|grad_fn=<\w+>", "", text)


def _numbers(value) -> list[float] | None:
    if isinstance(value, tuple | list):
        out = []
        for v in value:
            out += flat(v) or []
        return out
    return flat(value)


def _no_line_of_theirs(found, a) -> bool:
    """ "the traceback passes through no line of your own code": some call raised, and no
    frame of its traceback is in the attempt's own file."""
    errors = [c.raised_error for c in _calls(a) if c.raised_error is not None]
    own = getattr(getattr(a.learner, "__code__", None), "co_filename", None)
    return bool(errors) and any(
        all(f.filename != own for f in traceback.extract_tb(e.__traceback__)) for e in errors
    )


CUBE_GRAD_CLAIMS = [
    YOU_PASSED,
    claim(
        "it raised <error>",
        r"it raised (?P<kind>\w+): (?P<message>.+?)(?:, raised by PyTorch in your line `(?P<line>[^`]*)`)?$",
        _raised,
        lambda found, a: "raised: " + "; ".join(str(c.raised) for c in _calls(a) if c.raised),
    ),
    claim(
        "it came through your line <line>",
        r"it came through your line `(?P<line>[^`]*)`",
        lambda found, a: _source_has(a, found["line"]),
    ),
    claim(
        "the traceback passes through no line of your own code",
        r"the traceback passes through no line of your own code",
        _no_line_of_theirs,
    ),
    claim(
        "no error; it returned <value>",
        r"no error; it returned (?P<value>.+)$",
        lambda found, a: (
            a.facts.integer.raised is None
            and printed_as(_clean(found["value"]), _numbers(a.facts.integer.result))
        ),
    ),
    claim(
        "cube_grad returned a Python <kind>",
        r"cube_grad returned a Python (?P<kind>\w+), not a tensor",
        _some_result(lambda c, found: type(c.result).__name__ == found["kind"]),
    ),
    claim(
        "torch.autograd.grad returns a tuple",
        r"torch\.autograd\.grad returns a tuple",
        lambda found, a: (
            "autograd.grad" in a.source
            and _some_result(lambda c, f: isinstance(c.result, tuple | list))(found, a)
        ),
    ),
    claim(
        "cube_grad returned a NumPy array",
        r"cube_grad returned a NumPy array",
        _some_result(lambda c, found: type(c.result).__module__ == "numpy"),
    ),
    claim(
        "cube_grad has no return line",
        r"cube_grad has no return line",
        lambda found, a: _returns(a) == [],
    ),
    claim(
        "cube_grad returned <name>.grad",
        r"cube_grad returned (?P<expr>[\w.]+\.grad)\b",
        lambda found, a: found["expr"] in _returns(a),
    ),
    claim(
        "the gradient went into the caller's x.grad (or w.grad)",
        r"the gradient went into the caller's (?P<who>x|w)\.grad instead",
        lambda found, a: any(
            (c.grad_filled if found["who"] == "x" else c.source_grad is not None)
            for c in a.facts.calls.values()
        ),
    ),
    claim(
        "`<line>` gives the name x to your copy",
        r"`(?P<line>[^`]+)` gives the name (?P<name>\w+) to your copy",
        lambda found, a: (
            _source_has(a, found["line"]) and found["line"].startswith(found["name"] + " =")
        ),
    ),
    claim(
        "cube_grad switched on/off requires_grad on the caller's tensor",
        r"cube_grad switched (?P<dir>on|off) requires_grad on the caller's own tensor",
        lambda found, a: any(
            c.requires_grad == ((False, True) if found["dir"] == "on" else (True, False))
            for c in _calls(a)
        ),
    ),
    claim(
        "cube_grad left a gradient in the caller's x.grad",
        r"cube_grad left a gradient in the caller's x\.grad",
        lambda found, a: any(c.grad_filled for c in _calls(a)),
    ),
    claim(
        "cube_grad changed the caller's x in place",
        r"cube_grad changed the caller's x in place",
        lambda found, a: any(c.values_changed for c in _calls(a)),
    ),
    claim(
        "cube_grad returned Cube's output, x**3",
        r"cube_grad returned Cube's output, x\*\*3",
        _some_result(lambda c, found: close(c.result, c.x**3)),
    ),
    claim(
        "the course's divided by <n>: the mean",
        r"Each number is the course's divided by (?P<n>\d+)",
        _some_result(
            lambda c, found: (
                c.x.numel() == int(found["n"])
                and close(c.result, 3 * c.x.double() ** 2 / int(found["n"]))
            )
        ),
    ),
    claim(
        "cube_grad accepted an integer tensor",
        r"cube_grad accepted a (?P<dtype>[\w.]+) tensor and gave back an answer",
        lambda found, a: a.facts.integer.raised is None,
    ),
    claim(
        "your own check fired, but as an assert",
        r"Your own check fired, but as an assert",
        lambda found, a: (
            getattr(a.facts.integer.raised, "kind", "") == "AssertionError"
            and "AssertionError" in _own_raises(a)
        ),
    ),
    claim(
        "your own check fired, but it raised <kind>",
        r"Your own check fired, but it raised (?P<kind>\w+)",
        lambda found, a: (
            getattr(a.facts.integer.raised, "kind", "") == found["kind"]
            and found["kind"] in _own_raises(a)
        ),
        lambda found, a: f"raised {a.facts.integer.raised}; its own raises: {_own_raises(a)}",
    ),
    claim(
        "your own check did not fire: `<its test>`",
        r"Your own check did not fire: (?:`(?P<text>[^`]+)`|for this)",
        lambda found, a: (
            not (a.facts.integer.raised and a.facts.integer.raised.kind in _own_raises(a))
            and (found["text"] is None or _source_has(a, found["text"]))
        ),
    ),
    claim(
        "calls of Cube.apply, of Cube.forward by hand, runs of your backward",
        r"calls of Cube\.apply: (?P<a>\d+), of Cube\.forward by hand: (?P<f>\d+); runs of "
        r"your backward: (?P<b>\d+)",
        _usage,
        lambda found, a: f"counted: {a.facts.usage}",
    ),
    claim(
        "cube_grad called Cube.forward(...) itself",
        r"cube_grad called Cube\.forward\(\.\.\.\) itself",
        lambda found, a: a.facts.usage is not None and a.facts.usage.forward_direct > 0,
    ),
    claim(
        "cube_grad called Cube.apply, but your Cube's backward never ran",
        r"cube_grad called Cube\.apply, but your Cube's backward never ran",
        lambda found, a: (
            a.facts.usage is not None and a.facts.usage.applies > 0 and a.facts.usage.backward == 0
        ),
    ),
    claim(
        "the right numbers without running your Cube at all",
        r"cube_grad got the right numbers without running your Cube at all",
        lambda found, a: (
            a.facts.usage is not None
            and a.facts.usage.backward == 0
            and a.facts.usage.applies == 0
            and a.facts.usage.forward_direct == 0
        ),
    ),
    claim(
        "cube_grad never ran your Cube",
        r"cube_grad never ran your Cube",
        lambda found, a: a.facts.usage is not None and a.facts.usage.backward == 0,
    ),
    claim(
        "no Function named Cube where cube_grad was written",
        r"no Function named Cube where cube_grad was written",
        lambda found, a: a.facts.cube is None,
    ),
    claim(
        "your Cube's backward ignores grad_out",
        r"Your Cube's backward ignores grad_out",
        lambda found, a: (
            a.facts.chain_grad is not None
            and close(a.facts.chain_grad, 3 * torch.tensor([-2.0, -1.0, 0.0, 0.5, 3.0]) ** 2)
        ),
    ),
    claim(
        "your Cube's backward differs from the course's Cube",
        r"Your Cube's backward differs from the course's Cube",
        lambda found, a: a.facts.chain is False,
    ),
    claim(
        "the gradient flowed on through the caller's graph into w",
        r"The gradient flowed on through the caller's graph into w",
        lambda found, a: any(c.source_grad is not None for c in a.facts.calls.values()),
    ),
    claim(
        "right kind of error, but its message does not say what to pass",
        r"Right kind of error, but its message does not say what to pass",
        lambda found, a: (
            getattr(a.facts.integer.raised, "kind", "") in ("TypeError", "ValueError")
            and "float" not in a.facts.integer.raised.message.lower()
        ),
    ),
    claim(
        "<name> does not exist where cube_grad was written",
        r"(?P<name>\S+) does not exist where cube_grad was written",
        lambda found, a: any(
            c.raised and c.raised.kind == "NameError" and f"'{found['name']}'" in c.raised.message
            for c in _calls(a)
        ),
        lambda found, a: "raised: " + "; ".join(str(c.raised) for c in _calls(a) if c.raised),
    ),
    claim(
        "x.requires_grad = <value>",
        r"x\.requires_grad = (?P<v>True|False)",
        lambda found, a: any(str(c.requires_grad[1]) == found["v"] for c in _calls(a)),
    ),
    claim(
        "w.grad = <value>, where x = w * 2",
        r"w\.grad = (?P<v>.+?), where x = w \* 2",
        lambda found, a: any(
            c.source_grad is not None and printed_as(_clean(found["v"]), flat(c.source_grad))
            for c in a.facts.calls.values()
        ),
    ),
    claim(
        "x.grad = <value>",
        r"^  got:\s+x\.grad = (?P<v>.+)$",
        lambda found, a: any(
            c.x_grad is not None and printed_as(_clean(found["v"]), flat(c.x_grad))
            for c in _calls(a)
        ),
    ),
    claim(
        '"got:" <what cube_grad returned>',
        r"^  got:\s+(?P<value>.+)$",
        _got,
        lambda found, a: (
            "returned: "
            + "; ".join(repr(c.result)[:60] for c in a.facts.calls.values() if c.raised is None)
        ),
    ),
]

UNVERIFIED = [
    ("'Work on a private copy ...' and the other fixes' advice", "advice, not a statement"),
    (
        "the words of each PyTorch error's fix (REQUIRES_GRAD, CUT_CHAIN, TWICE, ...)",
        "each explains PyTorch's message, which the 'it raised' claim verifies",
    ),
    (USES_CUBE + " expected line", "what the check wants, not what the code did"),
]
