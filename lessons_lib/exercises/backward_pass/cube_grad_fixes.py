"""What to change in a learner's cube_grad: the fix for a wrong value, a wrong result, a
None and each error, told from what happened and from the learner's own source.
"""

import ast
import traceback
from collections.abc import Callable

import torch

from lessons_lib.exercises.backward_pass.answers import cube_grad
from lessons_lib.exercises.backward_pass.cube_grad_words import (
    COPY,
    CUT_CHAIN,
    FUNCTORCH,
    GRAD_OUT_SHAPE,
    GRAD_WRT_UNTRACKED,
    GRAD_WRT_UNUSED,
    ITEM,
    LEAF_IN_PLACE,
    NUMPY,
    READ,
    RECORDING_OFF,
    REQUIRES_GRAD,
    SAVED_IN_PLACE,
    SCALAR_BACKWARD,
    SCALAR_GRAD,
    TWICE,
)
from lessons_lib.running import Failure, first_line
from lessons_lib.running.reading import (
    assignment_to,
    first_parameter,
    function_tree,
    returned,
    source_text,
)
from lessons_lib.watch import Usage


def own_check_note(candidate: Callable) -> str:
    """Why a dtype check the learner wrote did not fire for a torch.int64 tensor; "" if none."""
    tree = function_tree(candidate)
    if tree is None:
        return ""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare | ast.Call):
            continue
        text = ast.unparse(node)
        if isinstance(node, ast.Call) and text.startswith("isinstance(") and "int" in text:
            return (
                f"Your own check did not fire: `{text}` asks whether x is a Python number, and "
                "x is a tensor whatever numbers it holds. Ask the tensor: x.is_floating_point(). "
            )
        if isinstance(node, ast.Compare) and "dtype" in text:
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            attrs = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            if names & {"int", "float"}:
                return (
                    f"Your own check did not fire: in `{text}`, int and float are Python's "
                    "types, and a tensor's dtype is never one of them (it is torch.int64, "
                    "torch.float32, ...). Ask the tensor: x.is_floating_point(). "
                )
            if attrs & {"int", "int32"}:
                return (
                    f"Your own check did not fire: in `{text}`, torch.int is torch.int32, but "
                    "this tensor is torch.int64 (what torch.tensor([1, 2, 3]) makes). "
                    "Integers come in many dtypes (int8 to int64, uint8, bool), so ask "
                    "x.is_floating_point() instead of listing them. "
                )
    if "dtype" in ast.unparse(tree):
        return (
            "Your own check did not fire for this torch.int64 tensor. Ask "
            "x.is_floating_point(), which is False for every integer dtype. "
        )
    return ""


def fix_for_values(got: torch.Tensor, x: torch.Tensor) -> tuple[str, str]:
    """What to change when the shape and dtype are right but the numbers are not."""
    if torch.allclose(got, x.detach() ** 3, equal_nan=True):
        fix = (
            "cube_grad returned Cube's output, x**3, not its gradient. Return the gradient "
            "of the sum with respect to your copy of x."
        )
        return fix, ""
    if x.numel() > 1 and torch.allclose(got * x.numel(), cube_grad(x), rtol=1e-5, atol=1e-6):
        fix = (
            f"Each number is the course's divided by {x.numel()}, the number of elements: "
            "cube_grad differentiated the mean, not the sum. Take .sum() of Cube.apply's result."
        )
        return fix, ""
    fix = (
        "The numbers differ from the course's cube_grad: the gradient of x**3 is 3 * x**2 at "
        "every element. Check your Cube with check_function(Cube, lambda x: x**3), and that "
        "cube_grad differentiates Cube.apply(...).sum()."
    )
    return fix, READ["gradient"]


def fix_for_result(
    got: object, want: torch.Tensor, x: torch.Tensor, candidate: Callable, leaked_into: str
) -> str:
    if got is None:
        return _fix_for_none(x, candidate, leaked_into)
    if isinstance(got, bool | int | float):
        return (
            f"cube_grad returned a Python {type(got).__name__}, not a tensor: return the "
            "gradient tensor itself, without .item() or float(...)."
        )
    if isinstance(got, tuple | list) and any(isinstance(g, torch.Tensor) for g in got):
        kind = type(got).__name__
        if "autograd.grad" in source_text(candidate):  # a fact of the source, not a guess
            return (
                f"cube_grad returned a {kind} holding the gradient: torch.autograd.grad returns "
                "a tuple, one gradient per tensor you asked about. Unpack it, (grad,) = "
                "torch.autograd.grad(...), and return grad."
            )
        return f"cube_grad returned a {kind} holding the gradient: return the tensor itself."
    if type(got).__module__ == "numpy":
        return "cube_grad returned a NumPy array: return the torch tensor, without .numpy()."
    if not isinstance(got, torch.Tensor):
        return "Return a torch.Tensor shaped like x (not a number, a list or a tuple)."
    if got.shape != want.shape:
        return (
            f"The gradient has one number per element of x, so its shape is x's shape "
            f"{tuple(want.shape)}. Do not sum, flatten or index it."
        )
    return (
        f"Keep the dtype of x ({want.dtype}): build everything from x without .float(), "
        ".double(), torch.tensor(...) or a fixed dtype, and PyTorch keeps it for you."
    )


def _fix_for_none(x: torch.Tensor, candidate: Callable, leaked_into: str) -> str:
    """Why cube_grad gave back None; leaked_into names the caller's tensor whose .grad it filled.

    Every story here is checked against what happened: whether the caller's tensor (or w,
    which a non-leaf x was made from) received the gradient, and whether cube_grad reused
    the caller's name for its copy (`x = x.clone()...`), so that `x.grad` is the copy's.
    """
    returns = returned(candidate)
    if returns == []:
        return (
            "cube_grad has no return line, so Python gives back None: end it with return and "
            "the gradient you computed."
        )
    param = first_parameter(candidate)
    renamed = assignment_to(candidate, param)  # e.g. "x = x.clone().requires_grad_(True)"
    reads_grad = any(r.endswith(".grad") for r in returns or ())
    source = source_text(candidate)
    if leaked_into:
        if param and f"{param}.grad" in (returns or ()) and not renamed and not x.is_leaf:
            return (
                f"cube_grad returned {param}.grad, and this x is the result of other steps "
                f"(x = w * 2), not a leaf: PyTorch fills .grad only for leaf tensors, so x.grad "
                f"stays None, and backward passed the gradient on into w.grad instead. " + COPY
            )
        if renamed and f"{param}.grad" in (returns or ()):
            what = (
                f"`{renamed}` gives the name {param} to your copy, so `return {param}.grad` "
                "returned the copy's .grad, which is None"
            )
        else:
            what = "cube_grad returned None"
        onward = "on to it" if leaked_into == "x" else "through it on to w, which x was made from"
        return (
            f"{what}, and the gradient went into the caller's {leaked_into}.grad instead: a "
            f"copy made with {_copy_step(source, param)} stays connected to the caller's "
            f"tensor, so backward passes the gradient {onward} and keeps none for the copy. "
            "Make the copy with x.detach(), which cuts it off, then switch on requires_grad."
        )
    if reads_grad and "autograd.grad" in source:
        what = f"cube_grad returned {returns[0]}"
        if renamed and f"{param}.grad" in returns:
            what = (
                f"`{renamed}` gives the name {param} to your copy, so `return {param}.grad` "
                "returned the copy's .grad"
            )
        return (
            f"{what}, which is None: torch.autograd.grad gives the gradient back and stores it "
            "in no .grad. Keep what it returns, (grad,) = torch.autograd.grad(...), and return "
            "grad."
        )
    if reads_grad and ".backward(" not in source:
        return (
            f"cube_grad returned {returns[0]}, which is None because nothing asked autograd "
            "for a gradient. Call .backward() on the sum of Cube.apply's result, or better, "
            "take the gradient from torch.autograd.grad, which returns it."
        )
    non_leaf = (
        "PyTorch fills .grad only for leaf tensors, and this x is the result of other steps, "
        "so x.grad stays None. " + COPY
    )
    if param and f"{param}.grad" in (returns or ()):
        if renamed:
            return (
                f"`{renamed}` gives the name {param} to your copy, so `return {param}.grad` "
                "returned the copy's .grad, which is None. Return the gradient itself: take "
                "it from torch.autograd.grad, which returns it."
            )
        if not x.is_leaf:
            return non_leaf
        return (
            f"cube_grad returned {param}.grad, the caller's own .grad, which is None: the "
            "gradient went to your copy, not to the caller's tensor. Return the copy's "
            "gradient, or better, take it from torch.autograd.grad, which returns it."
        )
    if not x.is_leaf:
        return non_leaf
    return "cube_grad returned None: return the gradient tensor, shaped like x."


def _copy_step(source: str, param: str) -> str:
    """How the learner's copy was made, in their words where the source says: "x.clone()"."""
    if f"{param}.clone(" in source:
        return f"{param}.clone()"
    return "a PyTorch step on x (x.clone(), x * 1, x.to(...))"


def clone_note(candidate: Callable) -> str:
    """A sentence for a copy made with clone(), which stays connected to the caller's x."""
    source = source_text(candidate)
    if ".clone(" not in source or ".detach(" in source:
        return ""
    return (
        "A copy made with x.clone() stays connected to the caller's tensor, so backward "
        "passes the gradient on to it. "
    )


def alias_note(fn: Callable) -> str:
    """A sentence for `copy = x`, which names the caller's tensor twice and copies nothing."""
    param = first_parameter(fn)
    tree = function_tree(fn)
    if tree is None or not param:
        return ""
    for node in ast.walk(tree):
        plain = isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)
        if plain and node.value.id == param and isinstance(node.targets[0], ast.Name):
            alias = node.targets[0].id
            return (
                f"`{alias} = {param}` gives the same tensor a second name; it does not copy "
                f"it, so switching on {alias}.requires_grad switches it on for {param}. "
            )
    return ""


def fix_for_error(error: Exception, usage: Usage) -> tuple[str, str]:
    """What to change, for the errors learners' cube_grads raise; and where it is taught."""
    message = str(error)
    if usage.forward_direct:  # whatever broke next, this came first
        return (
            "cube_grad called Cube.forward(...) itself. Call Cube.apply(copy) instead: apply "
            "creates the notepad ctx, runs forward, and puts Cube's backward into the graph.",
            READ["apply"],
        )
    if "One of the differentiated Tensors does not require grad" in message:
        return GRAD_WRT_UNTRACKED, ""  # the inputs= of torch.autograd.grad, not the output
    if "appears to not have been used in the graph" in message:
        return GRAD_WRT_UNUSED, ""
    if "backward through the graph a second time" in message:
        return TWICE, ""
    if "Mismatch in shape" in message and "grad_output" in message:
        return GRAD_OUT_SHAPE, ""
    if "does not require grad" in message:  # "element 0 of tensors does not require grad"
        if usage.recorded:
            return CUT_CHAIN, ""
        if "recording off" in usage.applies:
            return RECORDING_OFF, ""
        return REQUIRES_GRAD, READ["use-cube"]
    if "implicitly created only for scalar outputs" in message:
        if _torch_call(error) == "grad":
            return SCALAR_GRAD, ""
        return SCALAR_BACKWARD, ""
    if "call numpy() on Tensor that requires grad" in message:
        return NUMPY, ""
    if "cannot be converted to Scalar" in message:
        return ITEM, ""
    if "leaf Variable that requires grad is being used in an in-place operation" in message:
        return LEAF_IN_PLACE, ""
    if "modified by an inplace operation" in message:
        return SAVED_IN_PLACE, READ["saved"]
    if "it must override the setup_context staticmethod" in message:
        return f"{_where(error)} {FUNCTORCH}", ""
    if "must implement either the backward or vjp" in message:
        return "Your Cube has no backward: write @staticmethod backward(ctx, grad_out).", ""
    if isinstance(error, UnboundLocalError):  # a NameError whose name is not set
        return (
            f"cube_grad {first_line(error)}: it reads that variable on a line before the one "
            "that gives it its value. Give it its value first.",
            "",
        )
    if isinstance(error, NameError):
        return (
            f"{error.name} does not exist where cube_grad was written: run the cell that "
            "defines it first, or check the spelling.",
            "",
        )
    if isinstance(error, NotImplementedError):
        return "Write the body of cube_grad (it still raises NotImplementedError).", ""
    failure = Failure.of("cube_grad", error)
    if failure.own:
        return (
            f"This is your own {'assert' if isinstance(error, AssertionError) else 'raise'}, on "
            f"the line {failure.line}: cube_grad refused this input. Every kind of input here "
            "is an ordinary one a caller may pass, so cube_grad should accept it: loosen that "
            "condition.",
            "",
        )
    return (
        f"{_where(error)} Every kind of input here is ordinary, so cube_grad should handle it "
        "without special cases.",
        "",
    )


def _where(error: Exception) -> str:
    """Where the error came through the learner's code, or that it came through none."""
    failure = Failure.of("cube_grad", error)
    if failure.line:
        return f"Read the error above: it came through your line `{failure.line}`; fix that line."
    return (
        "Read the error above: it was raised outside your code, and the traceback passes "
        "through no line of your own code."
    )


def _torch_call(error: BaseException) -> str:
    """Which torch entry point raised: "backward" (tensor.backward), "grad" or ""."""
    for frame in traceback.extract_tb(error.__traceback__):
        path = frame.filename.replace("\\", "/")
        if frame.name == "backward" and path.endswith("torch/_tensor.py"):
            return "backward"
        if frame.name == "grad" and path.endswith("torch/autograd/__init__.py"):
            return "grad"
    return ""
