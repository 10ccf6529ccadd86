"""The wrong arguments a learner passes to a check, what each is called in the course's
words, and a verifier for "you passed <what>" sentences.

`wrong_arguments(function, plain)` lists them for a check that wants a Function (`function`
is the learner's class) or a plain function (`plain`): numbers, strings, None, nothing,
tensors, containers, the class where a function is wanted and back, an instance, .apply,
built-ins, a lambda, a call's result, a module; `common_wrong_arguments()` are those every
check gets, the Clamp01 tests' checks too (clamp_arguments). The canonical description of
each (`what_it_is`, what every "you passed <what>" is verified against) is written here from
the value itself, independently of lessons_lib.
"""

import types
from collections.abc import Callable

import torch

from tests.exercises.attempts.distinct import MISSING, Attempt


class Foo:
    """A class that is not a Function: what a learner passes after writing the wrong class."""


def is_function_class(value: object) -> bool:
    return (
        isinstance(value, type)
        and issubclass(value, torch.autograd.Function)
        and value is not torch.autograd.Function
    )


def function_of_apply(value: object) -> type | None:
    owner = getattr(value, "__self__", None)
    if is_function_class(owner) and getattr(value, "__name__", "") == "apply":
        return owner
    return None


def what_it_is(value: object) -> str:
    """The course's description of a passed value: "the number 5", "Cube.apply", ..."""
    if value is MISSING:
        return "nothing"
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"the value {value}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, torch.Tensor):
        return f"a tensor, {' '.join(repr(value.detach()).split())}"
    if isinstance(value, list | tuple | dict):
        n = len(value)
        return f"a {type(value).__name__} of {n} thing{'' if n == 1 else 's'}"
    if is_function_class(value):
        return f"the Function class {value.__name__}"
    if function_of_apply(value) is not None:
        return f"{function_of_apply(value).__name__}.apply"
    if isinstance(value, torch.autograd.Function):
        name = type(value).__name__
        return f"an instance of {name}, {name}()"
    if isinstance(value, types.BuiltinFunctionType):
        module = getattr(value, "__module__", None)
        prefix = f"{module}." if module and module != "builtins" else ""
        return f"the built-in function {prefix}{value.__name__}"
    if isinstance(value, types.FunctionType) and value.__name__ == "<lambda>":
        return "a lambda function"
    if isinstance(value, types.FunctionType):
        return f"the function {value.__name__}"
    if isinstance(value, type):
        return f"the class {value.__name__}"
    if isinstance(value, types.ModuleType):
        return f"the module {value.__name__}"
    return f"an object of type {type(value).__name__}"


def loosely(value: object) -> set[str]:
    """Other true descriptions of a value, looser than the course's: "an int", "a tensor"."""
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    found = {what_it_is(value), f"{article} {kind}"}
    if isinstance(value, torch.Tensor):
        found.add("a tensor")
    if isinstance(value, int | float) and not isinstance(value, bool):
        found.add(f"a number ({value!r})")
    if isinstance(value, types.FunctionType | types.BuiltinFunctionType):
        found.add("a plain Python function")
    if isinstance(value, torch.autograd.Function):
        name = type(value).__name__
        found.add(f"an instance, {name}()")
    if value is torch.autograd.Function:
        found.add("torch.autograd.Function itself")
    return found


def describes(what: str, value: object) -> bool:
    """Whether "you passed <what>" is true of `value`: the course's description (a tensor's
    printout may be cut short with ...), or a looser true one."""
    what = what.strip()
    exact = what_it_is(value)
    if what == exact or what in loosely(value):
        return True
    return what.endswith("...") and exact.startswith(what[:-3]) and what.startswith("a tensor, ")


def should_refuse(value: object, wants_class: bool) -> bool:
    """Whether a check that wants a Function (or a plain function) must refuse `value`."""
    if wants_class:
        return not (is_function_class(value) or function_of_apply(value) is not None)
    plain = callable(value) and not isinstance(value, type | torch.Tensor)
    return value is MISSING or not plain or function_of_apply(value) is not None


def common_wrong_arguments() -> list[tuple[str, object]]:
    """The wrong arguments every check is tried with (the Clamp01 tests' checks too), each with
    a label: numbers, True, a string, None, nothing, a tensor, a list, a dict, a module,
    built-ins. Each check's own list adds the ones its exercise invites."""
    return [
        ("the number 5", 5),
        ("the number 2.5", 2.5),
        ("True", True),
        ("a string", "abc"),
        ("None", None),
        ("nothing", MISSING),
        ("a tensor", torch.tensor([1.0, 2.0])),
        ("a list", [1, 2, 3]),
        ("a dict", {"x": 1}),
        ("a module", torch),
        ("the built-in torch.round", torch.round),
        ("the built-in len", len),
    ]


def wrong_arguments(check: str, right: object, call_result: Callable[[], object]) -> list[Attempt]:
    """Attempts that pass the wrong thing to `check`; `right` is the learner's own answer (a
    Function class or a plain function), `call_result` calls it as a learner would."""

    def learners_plain(x):
        return x

    values = [
        *common_wrong_arguments(),
        ("a string naming the answer", getattr(right, "__name__", "Cube")),
        ("a tuple", (right, right)),
        ("a class that is not a Function", Foo),
        ("a lambda", lambda x: x),
        ("a plain function", learners_plain),
        ("torch.autograd.Function itself", torch.autograd.Function),
    ]
    try:
        values.append(("the result of a call", call_result()))
    except Exception as error:  # a learner's answer that raises: its error object
        values.append(("the result of a call", error))
    if is_function_class(right):
        values += [("an instance", _instance(right)), ("its forward", right.forward)]
    else:
        from lessons_lib.functions import Cube

        values += [
            ("the Function class", Cube),
            ("the Function's apply", Cube.apply),
            ("an instance of a Function", _instance(Cube)),
        ]
    return [Attempt(check, f"argument: {label}", value, argument=True) for label, value in values]


def _instance(cls: type) -> object:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns that a Function should not be instantiated
        return cls()
