"""The words of check_straight_through: its case names, its fixes and its hint ladder,
in words a beginner on lesson 1 knows."""

from lessons_lib.exercises.base import Hint, Wanted
from lessons_lib.exercises.one_gradient import OneGradientWords

HINT_CALL = "check_straight_through({name}, hint={})"
HINTS = (
    Hint(
        "the idea",
        "The white lie pretends rounding was not there: whatever arrives at backward from "
        "the later steps is sent on to the earlier ones, unchanged.",
    ),
    Hint(
        "where it lives",
        "What arrives at backward is its second argument, grad_out. backward gives back "
        "the gradient for x with the word return.",
    ),
    Hint("the answer", "backward's whole body is one line:", "return grad_out"),
)
WANTED = Wanted(
    "check_straight_through",
    "your MyRound class",
    "check_straight_through(MyRound)",
    wants_class=True,
)

ROUNDS = "forward rounds every number"
GIVES_ONE = "backward gives back one thing"
PASSES_ON = "backward passes grad_out on"

WRITE_ROUND = "Write forward's last line as: return torch.round(x)"
NOT_ROUNDED = "forward gave the numbers back without rounding them. "
LEAVES_ALONE = "nothing else changes: x, grad_out, the kind of numbers; ctx keeps no tensor"
LEAVES_ALONE_EXPECTED = (
    "x and grad_out as they were, float32 numbers out as in, and no tensor kept on ctx"
)
CHANGED_X = (
    "forward changed x itself, in place (a method ending in _, such as round_): the caller's "
    "numbers changed. Make a new tensor instead: torch.round(x)."
)
CHANGED_GRAD = (
    "backward changed grad_out in place (a method ending in _, or *=): grad_out is not "
    "MyRound's to change. Return it as it arrived."
)
KEPT_ON_CTX = (
    "forward kept a tensor on the notepad as an attribute of ctx. MyRound's backward needs "
    "nothing from forward, so keep nothing; a tensor backward does need goes through "
    "ctx.save_for_backward."
)
SAVED_FOR_BACKWARD = (
    "forward wrote on the notepad with ctx.save_for_backward. Cube needed its x "
    "back; MyRound's backward needs nothing from forward (the white lie passes grad_out back "
    "unchanged), so the notepad stays empty: remove the ctx.save_for_backward line."
)
ROUNDED_HALF_UP = (
    "forward rounded 2.5 up to 3. torch.round sends a number exactly halfway between "
    "two whole numbers to the even one (2.5 becomes 2, 3.5 becomes 4), and the check "
    "compares with torch.round. "
)
ROUNDS_OTHERWISE = "forward does not round the way torch.round does. "

BACKWARD_ERROR = "Read the error, then fix backward. Its whole body is one short line."
PLACEHOLDER = (
    "backward still gives back the placeholder ... from the starter. Replace the ... "
    "with your one line."
)
GAVE_NONE = (
    "backward gave back nothing (None), so no gradient reaches the numbers before this "
    "step. Did you forget the word return?"
)

KIND_CHANGED = (
    "The kind of numbers changed (to {dtype}); x and grad_out already hold the right kind, so "
    "leave out .double(), .int() and .half()."
)
ZEROS = (
    "backward gave back all zeros. That is the honest answer for rounding (a tiny "
    "nudge never changes a rounded number), but with zeros the numbers before this "
    "step never move, so nothing learns. The white lie is to pass grad_out back "
    "unchanged."
)
ONES = (
    "backward gave back 1 for every number, whatever arrived. "
    "{arrived}, and backward should pass on exactly that. Ones only look right when "
    "grad_out happens to be all ones."
)
GAVE_X = (
    "backward gave back x, the numbers that went into forward. backward's job is to "
    "pass on what arrived in grad_out, not the input."
)
GAVE_ROUNDED = (
    "backward gave back forward's rounded numbers. backward's job is to pass on what "
    "arrived in grad_out, not forward's result."
)
FLIPPED = (
    "backward flipped the sign of grad_out, which would push learning the wrong way. "
    "Pass it on as it arrived."
)
SCALED = (
    "backward multiplied grad_out by {scale}. The white lie passes grad_out back "
    "exactly as it arrived, multiplied by nothing."
)
OTHER_VALUES = "{arrived}; backward should give back exactly that."
MYROUND_NEEDS_NO_X = (
    " (Cube saved x on the notepad in forward; MyRound needs no x: the white lie "
    "passes grad_out back unchanged)"
)


ONE_GRADIENT_WORDS = OneGradientWords(
    GIVES_ONE,
    lambda run: BACKWARD_ERROR,
    count="backward gave back {count} things, but forward takes one input (x), so backward "
    "gives back exactly one thing.",
    none=GAVE_NONE,
    kind="backward gave back {kind}, but it must give back a tensor with one number per input "
    "number, like the one that arrived.",
    size="backward gave back {got} number(s) for {want} inputs. Pass grad_out back whole, as "
    "it arrived.",
    placeholder=PLACEHOLDER,
)
