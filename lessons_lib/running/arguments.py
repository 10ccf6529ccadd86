"""What a learner passed to a helper, in words: one place for every refusal in the course.

Every public helper (the doctor, the explorers, each self-check, show_source, ...) checks
its arguments before any work and refuses a wrong or missing one with one line that names
what was passed and what is wanted: "check_cube: you passed the number 5; check_cube wants
your Cube class, as in check_cube(Cube)." The description is read off the value itself, so
the sentence is a fact about the call, never a guess.
"""

import functools
import types

import torch

from lessons_lib.running.errors import LessonError
from lessons_lib.running.policy import as_function
from lessons_lib.running.words import short


class _Missing:
    """The default of a required argument, so that a call without it gets words, not a TypeError."""

    def __repr__(self) -> str:
        return "nothing"


MISSING = _Missing()


class WrongArgumentError(LessonError, TypeError):
    """A helper was given the wrong kind of thing, or nothing; the message says which."""


def what_was_passed(value: object) -> str:
    """A value described as a learner would name it: "the number 5", "Cube.apply", ..."""
    if value is MISSING:
        return "nothing"
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"the value {value}"
    if isinstance(value, int | float | complex):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {short(value)}"
    if isinstance(value, torch.Tensor):
        return f"a tensor, {short(value)}"
    if isinstance(value, list | tuple | dict | set):
        things = "thing" if len(value) == 1 else "things"
        return f"a {type(value).__name__} of {len(value)} {things}"
    function = as_function(value)
    if function is not None:
        if function is value:
            return f"the Function class {function.__name__}"
        return f"{function.__name__}.apply"
    if isinstance(value, torch.autograd.Function):
        name = type(value).__name__
        return f"an instance of {name}, {name}()"
    if isinstance(value, types.ModuleType):
        return f"the module {value.__name__}"
    if isinstance(value, types.BuiltinFunctionType | types.BuiltinMethodType):
        return f"the built-in function {_builtin_name(value)}"
    if isinstance(value, types.FunctionType):
        if value.__name__ == "<lambda>":
            return "a lambda function"
        return f"the function {value.__name__}"
    if isinstance(value, types.MethodType):
        return f"the method {value.__qualname__}"
    if isinstance(value, type):
        return f"the class {value.__name__}"
    return f"an object of type {type(value).__name__}"


def _builtin_name(value: object) -> str:
    """torch.round, len, math.sqrt: the name a learner would have typed."""
    name = getattr(value, "__name__", "?")
    module = getattr(value, "__module__", None)
    if module in (None, "builtins"):
        return name
    return f"{module}.{name}"


def is_plain_function(value: object) -> bool:
    """A function a learner writes (def, lambda, a partial or a method of theirs): not a
    built-in, a class, or a Function's apply."""
    plain = isinstance(value, types.FunctionType | types.MethodType | functools.partial)
    return plain and as_function(value) is None


def wrong_argument(helper: str, value: object, wanted: str, call: str) -> str:
    """The one line a helper answers a wrong argument with: what was passed, what is wanted."""
    return f"{helper}: you passed {what_was_passed(value)}; {helper} wants {wanted}, as in {call}."


def refuse(helper: str, value: object, wanted: str, call: str) -> None:
    """Raise the one-line WrongArgumentError (IPython shows no traceback for it)."""
    raise WrongArgumentError(wrong_argument(helper, value, wanted, call))


def describe_non_function(fn: object, usage: str) -> str:
    """One sentence on what was passed instead of a Function subclass, and what to pass.

    `usage` shows the helper's right call with `{}` for the class, e.g. "explore({})".
    """
    if isinstance(fn, torch.autograd.Function):  # Cube()
        name = type(fn).__name__
        return (
            f"You passed an instance, {name}(); pass the class {name} itself: "
            f"{usage.format(name)}, not an instance {name}()."
        )
    if fn is torch.autograd.Function:
        return "You passed torch.autograd.Function itself; pass your subclass of it."
    if isinstance(fn, torch.nn.Module) or (
        isinstance(fn, type) and issubclass(fn, torch.nn.Module)
    ):
        return "You passed an nn.Module: it calls operations; a Function defines one."
    return f"You passed {what_was_passed(fn)}, not a torch.autograd.Function subclass."
