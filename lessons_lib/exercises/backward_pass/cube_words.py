"""The words of check_cube (Part 1 of "Your own backward pass"): its case names, its fixes
for what the doctor finds and its hint ladder, all in the beginner track's words.
"""

from lessons_lib.exercises.base import Hint, Wanted
from lessons_lib.exercises.one_gradient import OneGradientWords
from lessons_lib.running import Failure, Run
from lessons_lib.sections import read_more

CUBE_HINT_CALL = "check_cube(Cube, hint={})"


# Part 1's one pointer, to the beginner track's heading where grad_out * 3 * x**2 is read.
READ_BEGINNER = read_more("notepad-cube")


CUBE_HINTS = (
    Hint(
        "the idea",
        "Remember the kitchen line: each cook takes the number that arrives from the cook "
        "after her, multiplies it by her own slope, and passes the product on. Cube's own "
        "slope at x is 3·x². The number that arrives is the upstream gradient. backward must "
        "give back their product, not the slope alone.",
    ),
    Hint(
        "where it lives",
        "The upstream gradient is backward's second argument, grad_out. The line before the "
        "TODO already reads x back from the notepad, and 3 * x**2 is the slope. Multiply "
        "the two with *.",
    ),
    Hint("the answer", "backward's last line:", "return grad_out * 3 * x**2"),
)


FORWARD = "forward computes x³"


ONE_GRADIENT = "backward gives back one tensor, shaped like x"


MULTIPLIES = "backward multiplies grad_out by the slope 3·x²"


DOCTOR = "the gradient doctor finds no problems"


# Plain words for what a beginner's Cube can still get wrong after the three checks above.
DOCTOR_FIXES = {
    "mutates-grad-out": (
        "backward changed grad_out itself (with *= or a method whose name ends in _). grad_out "
        "is not Cube's to change: other steps may read it later. Make a new tensor instead: "
        "return grad_out * 3 * x**2."
    ),
    "mutates-saved": (
        "backward changed x itself (with a method whose name ends in _, such as x.pow_(2), "
        "or with *=). That x is the caller's own tensor, read back from the notepad: after "
        "one training step it would hold x² instead of x. Make a new tensor instead: "
        "3 * x**2."
    ),
    "ctx-tensor": (
        "forward wrote x on the notepad as ctx.x = x. Tensors go on the notepad the official "
        "way, as the starter had it: ctx.save_for_backward(x) in forward, then "
        "(x,) = ctx.saved_tensors in backward."
    ),
}

WANTED = Wanted("check_cube", "your Cube class", "check_cube(Cube)", wants_class=True)


def backward_error_fix(run: Run) -> str:
    """A fix for the errors a beginner's one-line backward raises, from the run's facts."""
    failure = run.failure
    message = failure.message if failure is not None else ""
    if run.saved == 0 and "saved_tensors" in (failure.line if failure is not None else ""):
        return (
            f"forward saved nothing: ctx.saved_tensors was empty when backward read it on the "
            f"line {failure.line}. Put the starter's ctx.save_for_backward(x) back in forward, "
            "before its return line."
        )
    if "is not defined" in message:
        return (
            "backward uses a name that does not exist there. Inside backward, the upstream "
            "gradient is called grad_out (its second argument) and x comes from the line "
            "(x,) = ctx.saved_tensors."
        )
    if "tuple" in message and run.saved:
        return (
            "The error names a tuple. ctx.saved_tensors is a tuple (a group) of the saved "
            "tensors, even when it holds one: take x out of it with the starter's line "
            "(x,) = ctx.saved_tensors."
        )
    return f"Read the error, then fix the line of backward it names{_on(failure)}."


def _on(failure: Failure | None) -> str:
    return f" ({failure.line})" if failure is not None and failure.line else ""


ONE_GRADIENT_WORDS = OneGradientWords(
    ONE_GRADIENT,
    backward_error_fix,
    count="backward gave back {count} things, but forward takes one input (x), so backward "
    "gives back exactly one: the gradient for x.",
    none="backward gave back nothing (None), so no gradient reaches the steps before Cube. "
    "Did the word return go missing from its last line?",
    kind="backward gave back {kind}, but it must give back a tensor with one number per "
    "number of x, computed from grad_out and x.",
    size="backward gave back {got} number(s) for {want} numbers of x. Keep one number per "
    "number of x: no .sum() and no picking out single numbers.",
)
