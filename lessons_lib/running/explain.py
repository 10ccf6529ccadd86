"""PyTorch's errors that learners meet most, each explained in one plain-English sentence.

Used where a learner's own code raises in a plain cell (lessons_lib.friendly): the sentence
comes first, the full traceback after it. Each entry is matched on words of PyTorch's or
Python's own message, so it explains what the message says, never a guess at the cause.
"""

import re
import traceback

import torch

MISSING_VALUES = (
    "A function was called with fewer values than its def line asks for (the message names "
    "which are missing)."
)

_EXPLAINED = (
    (
        "floating point and complex dtype can require gradients",
        "PyTorch gives gradients only to tensors of floating-point numbers: write 1.0, not 1, "
        "or pass dtype=torch.float32 when you make the tensor.",
    ),
    (
        "does not require grad and does not have a grad_fn",
        "backward was asked of a result that no tensor with requires_grad=True led to: make "
        "the input with requires_grad=True, and keep every step between it and the result "
        "in torch (.detach(), .item(), .numpy() and torch.tensor(...) cut the chain).",
    ),
    (
        "Mismatch in shape",
        "The upstream gradient given to backward has another shape than the output it is for: "
        "give it one number per number of the output, in the same shape.",
    ),
    (
        "Boolean value of Tensor with more than one value is ambiguous",
        "An if, an assert, `and`, `or` or a chained comparison asked a tensor of several "
        "numbers for one True or False: compare whole tensors with torch.equal(a, b) or "
        "(a == b).all(), and combine masks with &, | and ~.",
    ),
    (
        "grad can be implicitly created only for scalar outputs",
        "backward() without an argument needs an output of one number: pass the upstream "
        "gradient, y.backward(grad_out), or add the output up first, y.sum().backward().",
    ),
    (
        "backward through the graph a second time",
        "backward already ran through this graph, and autograd freed what it had saved: run "
        "forward again to build a new graph.",
    ),
    (
        "leaf Variable that requires grad is being used in an in-place operation",
        "A method ending in _ (or +=, *=) changed a tensor that requires grad in place: "
        "compute a new tensor instead (x * 3, not x.mul_(3)).",
    ),
    (
        "modified by an inplace operation",
        "A tensor saved for backward was changed in place before backward ran, and autograd's "
        "version check caught it: build new tensors instead of changing saved ones.",
    ),
    (
        "call numpy() on Tensor that requires grad",
        "NumPy cannot follow a tensor that autograd records: keep the step in torch (or, "
        "outside anything you differentiate, use .detach().numpy()).",
    ),
    (
        "object has no attribute 'apply'",
        ".apply was asked of something that is not a Function class (the message names what "
        "it is). Only the class has apply: MyFunction.apply(x). A name that already holds "
        "MyFunction.apply is called directly, f(x), with no .apply after it.",
    ),
    (
        "must implement either the backward or vjp",
        "The Function has no backward: write @staticmethod def backward(ctx, grad_out).",
    ),
)


def plain_english(error: BaseException) -> str:
    """One sentence on what the error's own message says, or "" when the course has none."""
    message = str(error)
    instance = _function_instance_in(error)
    if instance:
        return (
            f"A {instance} object was used as a number: {instance}(...) makes an instance of "
            f"the Function instead of running it. Run it with {instance}.apply(...)."
        )
    if "required positional argument" in message:
        return _missing_values(error)
    return next((text for words, text in _EXPLAINED if words in message), "")


def _missing_values(error: BaseException) -> str:
    """The sentence for a call with too few values; when the line that raised passed that call
    straight into another, as in check_edge_test(my_edge_test()), how to pass the function
    itself, named as on that line."""
    called = re.match(r"(\w+)\(\) missing \d+ required positional argument", str(error))
    frames = traceback.extract_tb(error.__traceback__)
    line = (frames[-1].line or "") if frames else ""
    if called is None:
        return MISSING_VALUES
    name = called.group(1)
    outer = re.search(rf"\b(\w+)\(\s*{re.escape(name)}\(\s*\)\s*[,)]", line)
    if outer is None:
        return MISSING_VALUES
    given = outer.group(1)
    return (
        f"{MISSING_VALUES} To pass {name} itself to {given}, write its name without brackets: "
        f"{given}({name}), not {given}({name}())."
    )


def _function_instance_in(error: BaseException) -> str:
    """The name of a Function subclass whose instance the TypeError's message names, else ""."""
    if not isinstance(error, TypeError) or "'" not in str(error):
        return ""
    named = set(str(error).split("'")[1::2])
    return next((cls.__name__ for cls in _functions() if cls.__name__ in named), "")


def _functions() -> list[type]:
    """Every subclass of torch.autograd.Function defined so far."""
    found, todo = [], list(torch.autograd.Function.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found
