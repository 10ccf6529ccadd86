"""The words of check_spike ("Choose your surrogate", Part 1): case names, fixes and the
hint ladder, in words a beginner on lesson 3 knows."""

from lessons_lib.exercises.base import Hint, Wanted
from lessons_lib.sections import read_more

ANSWER = """\
class MySpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, threshold, width):
        ctx.save_for_backward(x)
        ctx.threshold, ctx.width = threshold, width  # plain numbers: kept on ctx as they are
        return (x >= threshold).to(x.dtype)  # the step, in x's kind of numbers

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        slope = surrogate_slope(x, "fast-sigmoid", ctx.threshold, ctx.width)
        return grad_out * slope, None, None  # None: no gradient for the two numbers
"""

HINT_CALL = "check_spike({name}, hint={})"
HINTS = (
    Hint(
        "the idea",
        "Forward tells the truth: 1 where x reaches the threshold, 0 below it. Backward tells "
        "the useful lie: the upstream gradient grad_out, times the fast-sigmoid bump's height "
        "at x, a bump as tall as can be at the threshold and falling off either side. The "
        "threshold and the width are plain numbers, not tensors, so nothing learns them: "
        "their gradients are None.",
    ),
    Hint(
        "the PyTorch calls",
        "x >= threshold gives True and False; .to(x.dtype) turns them into 1 and 0 of x's "
        'kind. surrogate_slope(x, "fast-sigmoid", ctx.threshold, ctx.width) is the bump\'s '
        "height at each x. backward gives back one thing per input of forward: "
        "return grad_out * slope, None, None.",
    ),
    Hint("the answer", "The whole class:", ANSWER),
)
READ_TRUE_GRADIENT = read_more("true-gradient")
READ_BUMP = read_more("surrogate-bump")
WANTED = Wanted("check_spike", "your MySpike class", "check_spike(MySpike)", wants_class=True)

STEP = "forward is the step: 1 where x reaches the threshold, 0 below it"
KIND = "forward keeps x's kind of numbers (float32 in, float32 out; float64 in, float64 out)"
THREE = "backward gives back three things: a gradient for x, None for each number"
CENTRED = "backward's slope is the fast-sigmoid bump, centred on the threshold"
SCALES = "backward scales with grad_out"

WRITE_STEP = "Write forward's last line as: return (x >= threshold).to(x.dtype)"
STRICT = (
    "forward gave 0 at x = {t:g}, exactly at the threshold. The step fires where x reaches "
    "the threshold, so compare with >=, not >. "
)
AT_ZERO = (
    "forward's step is at 0, not at the threshold {t:g}: compare x with threshold, the "
    "number forward receives, not with 0. "
)
PLACEHOLDER = (  # the first message a learner sees: the idea, not the line
    "forward still gives back the placeholder ... from the starter. Replace it with the step: "
    "whether each x reaches threshold (True or False), turned into 1s and 0s of x's own kind."
)
STEP_STAYED = (
    "with threshold {t:g}, forward still jumped at x = {main:g}, where it jumps for the first "
    "threshold: compare x with threshold, the number forward receives, not a fixed number. "
)
BUMP_STAYED = (
    "With {settings}, backward gave back the bump for {main}: the threshold and width are "
    "written into backward. Use ctx.threshold and ctx.width, the numbers forward received. "
)
WIDTH_STAYED = (
    "With {settings}, backward's bump was {w:g} wide, the first setting's width: the width "
    "is written into backward. Use ctx.width, the number forward received. "
)
THRESHOLD_STAYED = (
    "With {settings}, backward's bump was centred at {t:g}, the first setting's threshold: "
    "the threshold is written into backward. Use ctx.threshold, the number forward received. "
)
STEP_OTHERWISE = "forward's numbers are not the step's 1s and 0s. "
STOPPED = "{stage} stopped with an error: {kind}: {message}"
STOPPED_ON = "{stage} stopped with an error on {x_kind} x: {kind}: {message}"
# Where the error came from, read off the traceback: the learner's line, or their own raise.
CAME_THROUGH = "The error came through your line `{line}`. "
OWN_STATEMENT = "This is your own {statement}, on your line `{line}`. "
READ_THE_ERROR = "Read the error, fix that line. "
# The run in the other kind of numbers, on the same numbers, did not raise: only x's kind differs.
ONLY_THE_KIND = (
    "{stage} ran on {ran} x with the same numbers, threshold and width: only x's kind of "
    "numbers differed. "
)
# Said when torch's own message names heaviside and "different dtypes".
HEAVISIDE_KINDS = (
    "torch.heaviside refuses two tensors of different kinds of numbers, as its message says. "
    "Make its second tensor from x, so that it follows x's kind: "
    "torch.heaviside(x - threshold, torch.ones_like(x)); or write the step as "
    "(x >= threshold).to(x.dtype)."
)
FIXED_KIND = (
    "Look {place} for a tensor of one fixed kind, whatever x holds (torch.tensor(...), "
    "torch.ones(...) and torch.zeros(...) make PyTorch's default kind), and make it from x so "
    "that it follows x's kind: torch.ones_like(x), torch.zeros_like(x), x.new_tensor(...)."
)
FIXED_KIND_STEP = FIXED_KIND + " Or write the step as (x >= threshold).to(x.dtype)."
OWN_KIND = "{stage} must take x of either kind: loosen or remove that {statement}."
KIND_EXPECTED = "x's own kind out: torch.float32 for float32 x, torch.float64 for float64 x"
KIND_GOT = "forward gave back {got} numbers for {x_kind} x"
KIND_FIX = (
    "forward turns True and False into numbers of a fixed kind ({got}), whatever x holds. "
    "Write .to(x.dtype) instead: it keeps x's kind, so a float32 network stays float32 and a "
    "float64 one float64."
)
KIND_OTHER = "forward changes x's kind of numbers. Write .to(x.dtype): it keeps x's kind."
KIND_WHOLE = (
    "forward's 1s and 0s are right, but as True and False or whole numbers autograd cannot "
    "send a gradient back through them, so backward never runs. Write .to(x.dtype): the same "
    "1s and 0s, in x's own kind of decimal numbers."
)
NO_WAY_BACK = "forward's True and False or whole numbers cannot carry a gradient back to x"
LIST = (
    "backward gave back a list, and autograd reads a list as one thing. Give back the three "
    "as a tuple: return grad_out * slope, None, None (no square brackets)."
)
GAVE_NONE = (
    "backward gave back nothing (None): did you forget the word return? It gives back "
    "grad_out * slope, None, None."
)
THREE_EXPECTED = "(a tensor shaped like x, None, None)"
FORWARD_NAME = (
    "backward cannot see forward's {name}: each method has its own names. forward keeps the "
    "number on the notepad (ctx.{name} = {name}); backward reads it back as ctx.{name}."
)
BACKWARD_ERROR = (
    "Read the error, then fix backward. It gives back grad_out * slope, then None, None."
)
COUNT = (
    "forward takes three inputs (x, threshold, width), so backward gives back three things, "
    "in the same order: the gradient for x, then None, None."
)
NOT_NONE = (
    "backward gave back {what} for the {which}, a plain number. Nothing learns a plain "
    "number, so its gradient is None: return grad_out * slope, None, None."
)
FIRST_NOT_TENSOR = (
    "backward's first result must be a tensor with one number per number of x: grad_out * slope."
)
CENTRED_EXPECTED = "{want}  (the fast-sigmoid bump at x = {x}, threshold {t:g}, width {w:g})"
WITH_ONES = "With grad_out all ones, backward gave back the slope itself. "
ZEROS = (
    "backward gave back all zeros: the step's true gradient, which moves nothing. The useful "
    'lie is the bump: grad_out * surrogate_slope(x, "fast-sigmoid", ctx.threshold, ctx.width).'
)
CENTRED_AT_ZERO = (
    "backward's bump is centred at 0, not at the threshold {t:g}: it is tallest where x is 0. "
    "The bump measures the distance from the threshold: pass ctx.threshold to surrogate_slope "
    "(or use x - ctx.threshold in the formula)."
)
ONES = (
    "backward gave back 1 for every number: that is straight-through, not the fast-sigmoid "
    "bump. Multiply grad_out by the bump's height at x."
)
WIDTH_ONE = (
    "backward's bump is 1 wide, not {w:g} wide: pass ctx.width to surrogate_slope (or divide "
    "by ctx.width in the formula)."
)
BUMP_OTHERWISE = (
    "backward's numbers are not the fast-sigmoid bump's heights. The bump is "
    '1 / (2·width·(1 + |x - threshold| / width)²): surrogate_slope(x, "fast-sigmoid", '
    "ctx.threshold, ctx.width) computes it."
)
SCALES_STOPPED = "backward stopped with an error for grad_out = {g}: {kind}: {message}"
SCALES_NO_GRADIENT = (
    "for grad_out = {g}, backward gave back no tensor of decimal numbers shaped like x first: {got}"
)
SCALES_FORWARD_STOPPED = "forward stopped with an error on the run with grad_out = {g}: {error}"
ONLY_GRAD_OUT = (
    "With grad_out all ones, backward gave back a gradient for x, for the same x, threshold "
    "and width: only grad_out differed. backward must take any grad_out: "
    "return grad_out * slope, None, None."
)
SCALES_EXPECTED = "{want}  (grad_out = {g} times the slope backward gave for grad_out all ones)"
IGNORES = (
    "backward gave back the same numbers for grad_out = {g} as for grad_out all ones: it "
    "ignores grad_out. The upstream gradient is a rate to pass on: multiply it by the slope."
)
CLAMPED = (
    "backward's numbers stop growing where grad_out is beyond 1 or -1: grad_out was "
    "clipped to [-1, 1]. Multiply the whole grad_out by the slope."
)
SIGN_LOST = (
    "backward's numbers lost grad_out's sign: they are |grad_out| times the slope. Multiply "
    "grad_out itself, sign and all, by the slope."
)
SCALES_OTHERWISE = "backward should give back grad_out times the slope, for any grad_out."
