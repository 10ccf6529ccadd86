"""The words of "Check your Clamp01": where each idea is taught, Part 1's broken Clamp01s in
the beginner tracks' words, Part 2's case names and rule, and both hint ladders.
"""

import inspect

from lessons_lib.broken_clamps import (
    drops_grad_out,
    hardtanh_mask,
    inverted_mask,
    passes_everything,
    relu_mask,
)
from lessons_lib.exercises.base import Hint, Wanted
from lessons_lib.exercises.clamp.answers import edge_test, reference_checks
from lessons_lib.sections import read_more

# Part 1's pointers, into the beginner tracks and Part 1 itself.
EDGE_READ = {
    "tensors": read_more("tensors"),
    "apply": read_more("notepad-cube"),
    "clamp": read_more("clamp"),
    "corners": read_more("corners"),
    "choose": read_more("choose-grad-out"),
    "your turn": read_more("your-turn-edges"),
}


# Part 2's pointers, into the developer tracks and Part 2 itself (and Part 1's section on
# choosing grad_out, the one place the course builds an uneven grad_out step by step).
READ = {
    "apply": read_more("apply"),
    "gradcheck": read_more("gradcheck"),
    "float64": read_more("float64"),
    "switches": read_more("switches"),
    "kinks": read_more("kinks"),
    "pytest": read_more("pytest"),
    "doctor": read_more("doctor"),
    "uneven": read_more("choose-grad-out"),
    "must do": read_more("must-do"),
    "sends": read_more("sends"),
    "every float": read_more("every-float"),
}


EDGE_HINT_CALL = "check_edge_test(my_edge_test, hint={})"


EDGE_UNEVEN = "sends each point its own upstream gradient"


FAILS_CORRECT = "your test fails a correct Clamp01 (see above), so a catch would prove nothing"


# Part 1's broken Clamp01s, in the beginner tracks' words: what is wrong, what catches it.
EDGE_BUGS = (
    (
        passes_everything,
        "a backward that lets every gradient through",
        "Add a point outside 0 to 1, below 0 or above 1: there a correct Clamp01 gives back "
        "0, and this one gives back grad_out.",
    ),
    (
        drops_grad_out,
        "a backward that forgets grad_out",
        "Send an upstream gradient that is not 1. This backward gives back 1 between 0 and "
        "1 whatever arrives, so with a grad_out of 1 it looks right; with 20 it gives back 1 "
        "instead of 20.",
    ),
    (
        inverted_mask,
        "a backward that blocks the gradient between 0 and 1 and lets it through outside",
        "Add a point between 0 and 1: there a correct Clamp01 passes grad_out on.",
    ),
    (
        hardtanh_mask,
        "a backward that also lets the gradient through between -1 and 0",
        "Add a point just below 0, such as -0.5: this backward starts letting the gradient "
        "through at -1 instead of at 0.",
    ),
    (
        relu_mask,
        "a backward that forgets the edge at 1",
        "Add a point above 1, such as 1.5: this backward lets the gradient through "
        "everywhere above 0, also past 1.",
    ),
)


# Where Part 1 teaches what catches each: the rule, shown on points outside and inside the
# range, is in the section on Clamp01; a grad_out other than 1, in the one on choosing it.
EDGE_READ_FOR_BUG = {
    passes_everything: EDGE_READ["clamp"],
    drops_grad_out: EDGE_READ["choose"],
    inverted_mask: EDGE_READ["clamp"],
    hardtanh_mask: EDGE_READ["clamp"],
    relu_mask: EDGE_READ["clamp"],
}


def edge_hints() -> tuple[Hint, ...]:
    return (
        Hint(
            "the idea",
            "A test is worth something only if it fails on a broken Clamp01 and passes a "
            "correct one. Put one point on each side of each edge: below 0 (between -1 and 0), "
            "just above 0, just below 1, and above 1. Give each point its own upstream "
            "gradient, all different, such as 10, 20, 30 and 40. Then write down what a correct "
            "Clamp01 gives back: the upstream gradient where the point is between 0 and 1, "
            "and 0 where it is outside. Leave exactly 0 and 1 out: at those corners either "
            "answer is right.",
        ),
        Hint(
            "the PyTorch calls",
            "x = torch.tensor([...], requires_grad=True) holds the points; grad_out = "
            "torch.tensor([...]) holds one number per point; "
            "Clamp01Candidate.apply(x).backward(grad_out) sends grad_out back through the "
            "Clamp01 you were given, and x.grad is what came back; expected = "
            "torch.tensor([...]) holds what should come back; return torch.equal(x.grad, "
            "expected) gives back True only when every number matches.",
        ),
        Hint(
            "the answer",
            "the course's tested answer, edge_test in lessons_lib/exercises/clamp/answers.py:",
            inspect.getsource(edge_test),
        ),
    )


# Where each bug's kind of check is taught.
READ_FOR_BUG = {
    "passes-everything": READ["gradcheck"],  # shows gradcheck catching this very bug
    "drops-grad-out": READ["uneven"],  # shows this bug hiding behind a grad_out of ones
    "inverted-mask": READ["gradcheck"],  # points on every stretch, inside (0, 1) included
    "hardtanh-mask": READ["doctor"],  # shows it passing gradcheck on points inside (0, 1)
    "no-lower-bound": READ["doctor"],
    "zero-at-one": READ["doctor"],
    "writes-grad-out": READ["doctor"],
    "python-and": READ["doctor"],  # its table: `and` raises on several elements
    "relu-mask": READ["gradcheck"],  # points on every stretch, above 1 included
    "abs-grad-out": READ["sends"],  # shows gradcheck passing it, and what catches it
}


HINT_CALL = "check_my_checks(my_checks, hint={})"


UNEVEN = "asserts the gradient for an uneven grad_out of its own, negative values included"


PROPERTY = "runs a property test that checks the gradient on many inputs drawn by hypothesis"


RULE = (
    "forward is torch.clamp(x, 0, 1); the gradient is grad_out where 0 < x < 1 and 0 where "
    "x < 0 or x > 1; at exactly 0 and 1, where the slope jumps, any value between 0 and "
    "grad_out is right (the course's Clamp01 passes grad_out there, as torch 2.13's clamp(0, 1) "
    "does; a strict mask, and torch 2.14.1's clamp(0, 1), pass 0)"
)


def hints() -> tuple[Hint, ...]:
    return (
        Hint(
            "the idea",
            "A check is worth something only if it fails on broken code. Give the Clamp01 "
            "several inputs at once, in every stretch of the line (below -1, between -1 and "
            "0, inside, above 1) and exactly on 0 and 1; compare forward with torch.clamp; "
            "keep gradcheck's points away from the kinks at 0 and 1, and check the edges "
            "yourself with an uneven grad_out, some of it negative, that must come back "
            "unchanged; assert every number of the gradient: grad_out just inside, 0 just "
            "outside, and anything between 0 and grad_out exactly on 0 and 1. Then let "
            "hypothesis draw many inputs and grad_outs, bounded, and check the same rule, "
            "gradient included, on each.",
        ),
        Hint(
            "the PyTorch calls",
            "clamp = Clamp01Candidate.apply; torch.equal(clamp(x), x.clamp(0, 1)) for forward; "
            "torch.autograd.gradcheck(clamp, (x,)) with x float64, requires_grad=True and no "
            "point near 0 or 1; (grad,) = torch.autograd.grad(clamp(x), x, grad_out) with an "
            "uneven grad_out such as torch.tensor([0.5, 2.0, -1.0, 3.0, ...]), a copy made by "
            "grad_out.clone() to compare with afterwards, grad_out * ((x > 0) & (x < 1)) as "
            "the expected gradient off the edges, and ((grad_out.clamp(max=0) <= grad) & "
            "(grad <= grad_out.clamp(min=0))).all() on them; for random inputs, an inner "
            "function decorated with @given(st.lists(st.tuples(st.floats(-3, 3), "
            "st.floats(-2, 2)), min_size=2)) from hypothesis, which draws a point and a "
            "grad_out for each element, called at the end of my_checks.",
        ),
        Hint(
            "the answer",
            "the course's tested answer, reference_checks in lessons_lib/exercises/clamp/answers.py:",
            inspect.getsource(reference_checks),
        ),
    )


ALSO_MISSED = "Also missed, and what catches each:"
FAILS_CORRECT_TOO = "your checks fail a correct Clamp01 (see above), so a catch would prove nothing"


def test_wanted(check: str, argument: str) -> Wanted:
    """What a Clamp01 exercise's check takes: the learner's test function `argument`."""
    return Wanted(check, f"your function {argument}", f"{check}({argument})", wants_class=False)
