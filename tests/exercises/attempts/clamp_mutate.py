"""Mutations of test code at the AST level: each operator looks at one node and offers
replacements (a description and the new node, or a list of statements for a statement).
`mutants(source)` applies each offer at each site, in a fixed order, one mutant per offer.

The operators are those a learner's test can go wrong by: the points chosen (exactly 0 and
1, whole numbers), the grad_out sent (ones, one value repeated, negative, missing), the
expected rule, the comparison (== or allclose for torch.equal, `assert` for `return`), what
is returned, requires_grad forgotten, forward called by hand, torch.clamp instead of the
candidate, gradcheck's result dropped, a property test never called, a raise of one's own.
"""

import ast
import copy
import random
import warnings
from collections.abc import Callable, Iterator

Offer = tuple[str, ast.AST | list[ast.stmt]]
Operator = Callable[[ast.AST], list[Offer]]


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _stmts(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def _src(node: ast.AST) -> str:
    return ast.unparse(node)


def _is_call(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and _src(node.func).split(".")[-1] in names


# --- statements -------------------------------------------------------------------------


def delete_statement(node: ast.AST) -> list[Offer]:
    """Leave one statement out (a def's body keeps a `pass`)."""
    if isinstance(node, ast.stmt) and not isinstance(node, ast.FunctionDef | ast.Return):
        return [(f"delete `{_src(node).splitlines()[0][:60]}`", [])]
    if isinstance(node, ast.Return):
        return [("delete the return line", [])]
    return []


def assert_forms(node: ast.AST) -> list[Offer]:
    """An assert turned into a return, a dropped expression, a negation, or a raise of one's own."""
    if not isinstance(node, ast.Assert):
        return []
    test = _src(node.test)
    return [
        ("assert -> return", [ast.Return(node.test)]),
        ("assert dropped, expression kept", [ast.Expr(node.test)]),
        ("assert negated", [ast.Assert(_expr(f"not ({test})"), node.msg)]),
        (
            "assert -> if not: raise ValueError",
            _stmts(f"if not ({test}):\n    raise ValueError('wrong')"),
        ),
        ("assert -> print", [ast.Expr(_expr(f"print({test})"))]),
    ]


def return_forms(node: ast.AST) -> list[Offer]:
    """What a test gives back: the comparison, bool() of it, True, None, the gradient, a tuple."""
    if not isinstance(node, ast.Return) or node.value is None:
        return []
    value = _src(node.value)
    return [
        ("return -> assert", [ast.Assert(node.value, None)]),
        ("return -> assert, then return True", _stmts(f"assert {value}\nreturn True")),
        ("return bool(...)", [ast.Return(_expr(f"bool({value})"))]),
        ("return not ...", [ast.Return(_expr(f"not ({value})"))]),
        ("return True", [ast.Return(_expr("True"))]),
        ("return None", [ast.Return(None)]),
        ("return x.grad", [ast.Return(_expr("x.grad"))]),
        ("return (result,)", [ast.Return(_expr(f"({value},)"))]),
        ("return the comparison as a string", [ast.Return(_expr(f"str({value})"))]),
        ("print instead of return", [ast.Expr(_expr(f"print({value})"))]),
        (
            "raise when wrong",
            _stmts(f"if not ({value}):\n    raise AssertionError('x.grad is wrong')\nreturn True"),
        ),
    ]


def raise_first(node: ast.AST) -> list[Offer]:
    """A raise of the learner's own as the def's first line (an unfinished test)."""
    if not isinstance(node, ast.FunctionDef):
        return []
    offers = []
    for exc in ("NotImplementedError('not written yet')", "RuntimeError('TODO')", "SystemExit(1)"):
        copy_ = copy.deepcopy(node)
        copy_.body = _stmts(f"raise {exc}") + copy_.body
        offers.append((f"raise {exc} first", [copy_]))
    return offers


# --- expressions ------------------------------------------------------------------------


def constants(node: ast.AST) -> list[Offer]:
    """A number changed: to exactly 0 or 1 (the kinks), 0.5, its negative, tenfold."""
    if not isinstance(node, ast.Constant) or type(node.value) not in (int, float):
        return []
    v = node.value
    values = [0.0, 1.0, 0.5, -v, v * 10, 2.0]
    seen, offers = {v}, []
    for new in values:
        if new not in seen:
            seen.add(new)
            offers.append((f"constant {v!r} -> {new!r}", ast.Constant(new)))
    return offers


def _literal_list(node: ast.AST) -> list[float] | None:
    if isinstance(node, ast.List) and node.elts:
        try:
            values = [ast.literal_eval(e) for e in node.elts]
        except ValueError:
            return None
        if all(type(v) in (int, float) for v in values):
            return values
    return None


def lists(node: ast.AST) -> list[Offer]:
    """A list of numbers changed as a whole: one value repeated, whole numbers, reversed,
    its first number alone, with 0 and 1 added, all negated."""
    values = _literal_list(node)
    if values is None:
        return []
    as_list = lambda vs: _expr(repr(vs))  # noqa: E731
    offers = [
        ("list: first value repeated", as_list([values[0]] * len(values))),
        ("list: ones", as_list([1.0] * len(values))),
        ("list: whole numbers", as_list([round(v) for v in values])),
        ("list: reversed", as_list(values[::-1])),
        ("list: first number only", as_list(values[:1])),
        ("list: negated", as_list([-v for v in values])),
        ("list: 0 and 1 added", as_list([*values, 0.0, 1.0])),
    ]
    return [(d, e) for d, e in offers if _src(e) != _src(node)]


def tensor_keywords(node: ast.AST) -> list[Offer]:
    """torch.tensor's keywords: requires_grad forgotten, dtype dropped or made an integer."""
    if not _is_call(node, "tensor"):
        return []
    offers = []
    names = [k.arg for k in node.keywords]
    if "requires_grad" in names:
        c = copy.deepcopy(node)
        c.keywords = [k for k in c.keywords if k.arg != "requires_grad"]
        offers.append(("requires_grad forgotten", c))
    if "dtype" in names:
        c = copy.deepcopy(node)
        c.keywords = [k for k in c.keywords if k.arg != "dtype"]
        offers.append(("dtype dropped (float32)", c))
    c = copy.deepcopy(node)
    c.keywords = [k for k in c.keywords if k.arg != "dtype"] + [
        ast.keyword("dtype", _expr("torch.int64"))
    ]
    offers.append(("dtype=torch.int64", c))
    return offers


def backward_calls(node: ast.AST) -> list[Offer]:
    """How grad_out is sent: missing, ones by .sum(), ones_like, negated, a wrong shape."""
    if _is_call(node, "backward") and isinstance(node.func, ast.Attribute):
        y = _src(node.func.value)
        offers = [("backward() with no grad_out", _expr(f"{y}.backward()"))]
        offers.append(("y.sum().backward()", _expr(f"{y}.sum().backward()")))
        if node.args:
            g = _src(node.args[0])
            offers += [
                ("grad_out -> ones_like", _expr(f"{y}.backward(torch.ones_like({g}))")),
                ("grad_out negated", _expr(f"{y}.backward(-{g})")),
                ("grad_out -> its first value", _expr(f"{y}.backward({g}[:1])")),
                ("grad_out -> .mean() of it", _expr(f"{y}.backward({g}.mean())")),
            ]
        return offers
    if _is_call(node, "grad") and len(node.args) == 3:
        y, x, g = (_src(a) for a in node.args)
        return [
            ("autograd.grad without grad_out", _expr(f"torch.autograd.grad({y}, {x})")),
            ("autograd.grad of the sum", _expr(f"torch.autograd.grad({y}.sum(), {x})")),
            (
                "autograd.grad grad_out -> ones_like",
                _expr(f"torch.autograd.grad({y}, {x}, torch.ones_like({g}))"),
            ),
            ("autograd.grad grad_out.abs()", _expr(f"torch.autograd.grad({y}, {x}, {g}.abs())")),
        ]
    return []


def comparisons(node: ast.AST) -> list[Offer]:
    """torch.equal(a, b) as a == b, allclose, (a == b).all(), swapped, tolist() ==."""
    if not (_is_call(node, "equal") and len(node.args) == 2):
        return []
    a, b = (_src(x) for x in node.args)
    return [
        ("torch.equal -> ==", _expr(f"{a} == {b}")),
        ("torch.equal -> allclose", _expr(f"torch.allclose({a}, {b})")),
        ("torch.equal -> (a == b).all()", _expr(f"({a} == {b}).all()")),
        ("torch.equal swapped", _expr(f"torch.equal({b}, {a})")),
        ("torch.equal -> tolist() ==", _expr(f"{a}.tolist() == {b}.tolist()")),
        ("torch.equal -> is", _expr(f"{a} is {b}")),
    ]


def operators(node: ast.AST) -> list[Offer]:
    """A comparison or mask operator changed: < for <=, and for &, == for <=, * for +."""
    offers = []
    swaps = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq}
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in swaps:
        c = copy.deepcopy(node)
        c.ops = [swaps[type(node.ops[0])]()]
        offers.append((f"{type(node.ops[0]).__name__} -> {type(c.ops[0]).__name__}", c))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr):
        word = "and" if isinstance(node.op, ast.BitAnd) else "or"
        offers.append(
            (
                f"& -> {word}",
                ast.BoolOp(ast.And() if word == "and" else ast.Or(), [node.left, node.right]),
            )
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        offers.append(("* -> +", ast.BinOp(node.left, ast.Add(), node.right)))
        offers.append(("operands of * swapped", ast.BinOp(node.right, ast.Mult(), node.left)))
    return offers


def candidate_calls(node: ast.AST) -> list[Offer]:
    """The candidate not used: forward by hand, torch.clamp, the course's own Clamp01."""
    text = _src(node)
    if text == "Clamp01Candidate.apply":
        return [
            ("apply -> torch.clamp", _expr("(lambda t: torch.clamp(t, 0, 1))")),
            ("apply -> the course's Clamp01.apply", _expr("Clamp01.apply")),
            ("apply -> forward by hand", _expr("(lambda t: Clamp01Candidate.forward(None, t))")),
            ("apply -> Clamp01Candidate()", _expr("Clamp01Candidate()")),
        ]
    return []


def gradcheck_calls(node: ast.AST) -> list[Offer]:
    """gradcheck's result dropped (raise_exception=False), asserted, or given float32."""
    if isinstance(node, ast.Expr) and _is_call(node.value, "gradcheck"):
        call = _src(node.value)[:-1]
        return [
            (
                "gradcheck raise_exception=False, dropped",
                [ast.Expr(_expr(call + ", raise_exception=False)"))],
            ),
            (
                "gradcheck raise_exception=False, asserted",
                [ast.Assert(_expr(call + ", raise_exception=False)"), None)],
            ),
            ("gradcheck with eps=1e-2", [ast.Expr(_expr(call + ", eps=1e-2)"))]),
        ]
    return []


def property_tests(node: ast.AST) -> list[Offer]:
    """A property test: never called, unbounded floats, fewer examples, no @settings."""
    if isinstance(node, ast.FunctionDef) and any("given" in _src(d) for d in node.decorator_list):
        c = copy.deepcopy(node)
        c.decorator_list = [d for d in c.decorator_list if "settings" not in _src(d)]
        return (
            [("property test without @settings", [c])]
            if len(c.decorator_list) < len(node.decorator_list)
            else []
        )
    if _is_call(node, "floats") and node.args:
        return [("st.floats unbounded", _expr("st.floats()"))]
    if isinstance(node, ast.keyword) and node.arg == "max_examples":
        return [("max_examples=5", ast.keyword("max_examples", ast.Constant(5)))]
    return []


OPERATORS: tuple[Operator, ...] = (
    delete_statement,
    assert_forms,
    return_forms,
    raise_first,
    constants,
    lists,
    tensor_keywords,
    backward_calls,
    comparisons,
    operators,
    candidate_calls,
    gradcheck_calls,
    property_tests,
)


# --- the engine -------------------------------------------------------------------------


def _sites(tree: ast.AST) -> list[ast.AST]:
    return list(ast.walk(tree))


def _replace(tree: ast.AST, target: ast.AST, new: ast.AST | list[ast.stmt]) -> Callable[[], None]:
    """Put `new` where `target` is in `tree` (a list of statements splices into a body, an
    emptied body gets a `pass`); give back what puts `target` back."""
    for parent in ast.walk(tree):
        for fname, value in ast.iter_fields(parent):
            if isinstance(value, list) and any(v is target for v in value):
                before = list(value)
                i = next(i for i, v in enumerate(value) if v is target)
                value[i : i + 1] = new if isinstance(new, list) else [new]
                if not value and fname == "body":
                    value.append(ast.Pass())
                return lambda value=value, before=before: value.__setitem__(slice(None), before)
            if value is target:
                if isinstance(new, list):
                    new = new[0] if new else ast.Pass()
                setattr(parent, fname, new)
                return lambda parent=parent, fname=fname: setattr(parent, fname, target)
    raise ValueError("target not in tree")


def _offers(tree: ast.AST, ops: tuple[Operator, ...]) -> list[tuple[int, str, ast.AST | list]]:
    """(site, description, replacement) of every offer, in a fixed order."""
    return [
        (index, description, new)
        for index, node in enumerate(_sites(tree))
        if index > 0  # the Module itself
        for op in ops
        for description, new in op(node)
    ]


def _apply(tree: ast.AST, index: int, new: ast.AST | list) -> str | None:
    """The source of `tree` with site `index` replaced, or None when it does not compile."""
    undo = _replace(tree, _sites(tree)[index], new)  # in place, then put back: no copies
    try:
        text = ast.unparse(tree)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "assertion is always true": a learner's slip too
            compile(text, "<mutant>", "exec")
    except (SyntaxError, ValueError, TypeError, AttributeError):
        return None
    finally:
        undo()
    return text


def mutants(source: str, ops: tuple[Operator, ...] = OPERATORS) -> Iterator[tuple[str, str]]:
    """(description, source) of each single mutation of `source`, in a fixed order."""
    tree = ast.parse(source)
    for index, description, new in _offers(tree, ops):
        text = _apply(tree, index, new)
        if text is not None:
            yield description, text


def one_mutant(source: str, rng: random.Random) -> tuple[str, str] | None:
    """One mutation of `source` at a site chosen by `rng` (None when none compiles)."""
    tree = ast.parse(source)
    sites = _sites(tree)
    order = list(range(1, len(sites)))
    rng.shuffle(order)
    for index in order:
        offers = [offer for op in OPERATORS for offer in op(sites[index])]
        if offers:
            description, new = rng.choice(offers)
            text = _apply(tree, index, new)
            if text is not None:
                return description, text
    return None
