"""The words of check_cube_grad (Part 2 of "Your own backward pass"): where each problem is
taught, its hint ladder, and the fixes for the errors learners' cube_grads raise.
"""

import inspect

from lessons_lib.exercises.backward_pass.answers import cube_grad
from lessons_lib.exercises.base import Hint, Wanted
from lessons_lib.sections import read_more

# Where each problem is taught (sections.TAUGHT's keys).
READ = {
    "use-cube": read_more("not-a-function"),
    "apply": read_more("apply"),
    "chain": read_more("chain-rule"),
    "gradient": read_more("gradient"),
    "saved": read_more("mutates-saved"),
}


HINT_CALL = "check_cube_grad(cube_grad, hint={})"


def cube_grad_hints() -> tuple[Hint, ...]:
    return (
        Hint(
            "the idea",
            "Let autograd do the differentiating, through your Cube, on a private copy of x: "
            "make a copy that autograd may record, run your Cube on it, add the results up "
            "into one number, and ask for the gradient of that number with respect to the "
            "copy, with recording switched on even where the caller switched it off. Before "
            "all that, refuse a tensor that is not floating-point.",
        ),
        Hint(
            "the PyTorch calls",
            "x.detach() is a new tensor that shares x's numbers (the same memory) and has none "
            "of its history; "
            ".requires_grad_(True) lets autograd record steps on it; Cube.apply(copy) runs "
            "your Function and puts it in the graph; .sum() makes one number; "
            "torch.autograd.grad(total, copy) returns a tuple holding the gradient, and fills "
            "no .grad anywhere; the lines inside `with torch.enable_grad():` record even "
            "within a caller's torch.no_grad(); x.is_floating_point() is False for integer "
            "tensors.",
        ),
        Hint(
            "the answer",
            "the course's tested answer, cube_grad in lessons_lib/exercises/backward_pass/answers.py:",
            inspect.getsource(cube_grad),
        ),
    )


NO_GRAD = "works inside the caller's torch.no_grad()"


RAISE = (
    "if not x.is_floating_point(): raise TypeError('cube_grad needs a floating-point tensor; "
    "try cube_grad(x.float())')."
)


SAY_WHAT_TO_PASS = (
    "Right kind of error, but its message does not say what to pass instead. Name "
    "floating-point values in it, for example 'cube_grad needs a floating-point tensor; try "
    "cube_grad(x.float())'."
)


NO_CUBE = "no name Cube where cube_grad was written"


CUBE_INSTANCE = (
    "A line such as Cube = Cube() replaced your class with an instance of it. Run the cell "
    "that defines class Cube(torch.autograd.Function) again, and call Cube.apply(...) on the "
    "class itself: a Function is never instantiated."
)


RUN_CUBE_CELL = (
    "check_cube_grad looks for your Cube next to your cube_grad: run the cell that defines "
    "class Cube(torch.autograd.Function) first, then the cube_grad cell."
)


COPY = (
    "Work on a private copy, not on the caller's tensor: x.detach() has the same numbers and "
    "none of x's history; switch on requires_grad for the copy, never for x."
)


REQUIRES_GRAD = (
    "Autograd recorded nothing to differentiate: the tensor you pass to Cube.apply needs "
    "requires_grad switched on before the call. Switch it on for your private copy, not for "
    "x: copy = x.detach().requires_grad_(True), then Cube.apply(copy)."
)


CUT_CHAIN = (
    "Cube.apply's result was recorded, but what you differentiated is not connected to it: a "
    "step in between (.detach(), .numpy(), .item(), torch.tensor(...)) cut the chain. Keep "
    "every step from Cube.apply(...) to .sum() a torch operation."
)


GRAD_WRT_UNTRACKED = (
    "torch.autograd.grad(total, inputs) was asked for the gradient with respect to a tensor "
    "that does not require grad, such as the caller's x: ask with respect to your copy, the "
    "tensor you passed to Cube.apply."
)


GRAD_WRT_UNUSED = (
    "torch.autograd.grad(total, inputs) was asked about a tensor that total was not computed "
    "from, such as the caller's x when Cube.apply ran on your copy: ask about the tensor you "
    "passed to Cube.apply."
)


TWICE = (
    "Backward ran twice through the same graph, and the first run had already freed what "
    "Cube saved. Ask for the gradient once, with one .backward() or one torch.autograd.grad."
)


GRAD_OUT_SHAPE = (
    "The tensor you passed to .backward(...) (or as grad_outputs) must have the shape of "
    "Cube.apply's result, one number per element. Simpler: take the .sum() first and call "
    ".backward() with no argument, or torch.autograd.grad(total, copy)."
)


CALLER_NO_GRAD = (
    "The caller switched recording off with torch.no_grad(), and that switch still holds "
    "inside cube_grad, so Cube.apply recorded nothing to differentiate. Switch recording back "
    "on for your own steps: put them inside `with torch.enable_grad():`."
)


RECORDING_OFF = (
    "Cube.apply ran with recording switched off (inside torch.no_grad()), so nothing was "
    "recorded: call it with recording on, for example inside torch.enable_grad()."
)


SCALAR_BACKWARD = (
    ".backward() without an argument needs a single number, but Cube.apply(...) gives one "
    "number per element of x. The task asks for the gradient of the sum: call .sum() first, "
    "then .backward()."
)


SCALAR_GRAD = (
    "torch.autograd.grad(outputs, inputs) without grad_outputs needs outputs to be a single "
    "number, but Cube.apply(...) gives one number per element of x. The task asks for the "
    "gradient of the sum: pass Cube.apply(...).sum()."
)


FUNCTORCH = (
    "torch.func's transforms (grad, vmap, jacrev) refuse a Function written in the classic "
    "form, forward(ctx, x), which is how Cube is written: they need the setup_context form. "
    "Ask autograd directly instead: torch.autograd.grad(total, inputs), or .backward()."
)
NUMPY = (
    ".numpy() leaves PyTorch, and autograd cannot follow steps it did not record. Keep every "
    "step from Cube.apply(...) to .sum() in torch."
)


ITEM = (
    ".item() turns a tensor holding exactly one number into a Python float, and the gradient "
    "has one number per element of x: return the gradient tensor itself, without .item()."
)


LEAF_IN_PLACE = (
    "An in-place operation (a method ending in _, or +=, *=) was used on a tensor that "
    "requires grad. Compute new tensors instead (x * 3, not x.mul_(3)), and never change the "
    "caller's x."
)


SAVED_IN_PLACE = (
    "A tensor Cube saved for backward was changed in place before backward ran, and the "
    "version check caught it. Leave Cube's input alone until the gradient is computed: build "
    "new tensors instead of changing old ones."
)
WANTED = Wanted(
    "check_cube_grad", "your function cube_grad", "check_cube_grad(cube_grad)", wants_class=False
)
