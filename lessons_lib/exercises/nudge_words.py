"""The words of check_nudge: its case names, its fixes for the usual slips and its hint
ladder, in words a beginner on lesson 2 knows."""

from lessons_lib.exercises.base import Hint, Wanted

HINT_CALL = "check_nudge(my_nudge, hint={})"
HINTS = (
    Hint(
        "the idea",
        "Nudge x up by h and down by h, and run f at both places. How far apart are the two "
        "results? Divide that by how far apart the two nudged places are.",
    ),
    Hint(
        "the Python",
        "f(x + h) is f just above x and f(x - h) is f just below it; the two places are "
        "2 * h apart. Python multiplies and divides before it adds and subtracts, so put "
        "brackets around each part.",
    ),
    Hint(
        "the answer", "my_nudge's whole body is one line:", "return (f(x + h) - f(x - h)) / (2 * h)"
    ),
)
RUNS = "my_nudge runs and gives back one number"
NEVER_CALLED_F = (
    "my_nudge never called f, so it cannot measure the step it is given. Work only with f, "
    "x and h: call f(x + h) and f(x - h), not numbers left over from earlier cells (such as "
    "up and down)."
)


SAME_FOR_EVERY_H = (
    "my_nudge gave back the same number, {got}, for h = {small} and for h = {wide}: its "
    "answer does not change with the h it is given. Use the h that my_nudge is given, in "
    "f(x + h), f(x - h) and 2 * h, not a number of your own."
)


WANTED = Wanted("check_nudge", "your function my_nudge", "check_nudge(my_nudge)", wants_class=False)

# The usual slips on x³ at 3, each named by the number it gives (nudge._cube_fix).
UP_ONLY = "my_nudge nudged x upwards only: it measured between x and x + h. Nudge both ways, to x + h and to x - h, so the two places sit evenly around x."

DOWN_ONLY = "my_nudge nudged x downwards only: it measured between x - h and x. Nudge both ways, to x + h and to x - h, so the two places sit evenly around x."

DIVIDED_BY_H = "my_nudge gave twice the right number: it divided by h, but x + h and x - h are 2 * h apart. Divide by that whole distance."

DIVIDE_THEN_MULTIPLY = "Python read '/ 2 * h' as 'divide by 2, then multiply by h'. Put brackets around the distance: / (2 * h)."

ONLY_DOWN_DIVIDED = "Python divides before it subtracts, so only f(x - h) was divided. Put brackets around the difference: (f(x + h) - f(x - h))."

ONLY_DOWN_DIVIDED_AND_MULTIPLIED = "Python divides and multiplies before it subtracts, so only f(x - h) was divided, and then multiplied by h. Put brackets around the difference and around the distance: (f(x + h) - f(x - h)) / (2 * h)."

NOT_PER_NUDGE = "my_nudge gave back how far f moved, but not per unit of nudge. Divide it by the distance between the two nudged places."

DIVIDED_BY_2_ONLY = "my_nudge divided by 2 but not by h. The two nudged places are 2 * h apart: divide by that whole distance."

MULTIPLIED_BY_DISTANCE = (
    "my_nudge multiplied by the distance between the two places. A slope divides by it."
)

SIGN_FLIPPED = "The sign is flipped: my_nudge subtracted the upper value from the lower one. Take f just above x minus f just below it: f(x + h) - f(x - h)."

NUDGED_THE_RESULT = "my_nudge gave exactly 1, as if it nudged f's result instead of x. The nudge goes inside the brackets: f(x + h), not f(x) + h."
