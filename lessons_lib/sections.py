"""Where the course teaches each idea: one table, for the doctor and every exercise.

Each entry names a notebook and one of its headings, spelled exactly as the notebook spells
it; tests/test_sections.py checks that every heading exists. `cite` writes the pointer a
report prints ("Read more: Lesson 1 developer track, “Mistake 4: breaking the chain”").
"""

from dataclasses import dataclass

L1_BEGINNER = "01-custom-function/1-beginner.ipynb"
L1_DEVELOPER = "01-custom-function/2-developer.ipynb"
L1_RESEARCHER = "01-custom-function/3-researcher.ipynb"
L2_DEVELOPER = "02-checking-gradients/2-developer.ipynb"
L3_DEVELOPER = "03-surrogate-gradients/2-developer.ipynb"
CLAMP_EXERCISE = "exercises/check-your-clamp01.ipynb"
L3_BEGINNER = "03-surrogate-gradients/1-beginner.ipynb"

TRACK_NAMES = {
    L1_BEGINNER: "Lesson 1 beginner track",
    L1_DEVELOPER: "Lesson 1 developer track",
    L1_RESEARCHER: "Lesson 1 researcher track",
    L2_DEVELOPER: "Lesson 2 developer track",
    L3_BEGINNER: "Lesson 3 beginner track",
    L3_DEVELOPER: "Lesson 3 developer track",
    CLAMP_EXERCISE: "This notebook",  # cited only from the exercise itself
}


@dataclass(frozen=True)
class Section:
    """One heading of one notebook (and, in an exercise, the part it belongs to)."""

    notebook: str  # its path under notebooks/
    heading: str  # without the leading #s
    part: str = ""  # "Part 1" in an exercise of two parts


def cite(section: Section) -> str:
    """The section as a report names it: Lesson 1 developer track, “Mistake 4: ...”."""
    where = TRACK_NAMES[section.notebook]
    if section.part:
        where = f"{where}, {section.part}"
    return f"{where}, “{section.heading}”"


def _part(number: int, heading: str) -> Section:
    return Section(CLAMP_EXERCISE, heading, f"Part {number}")


_L2_SWITCHES = (
    "Forward mode, batched gradients, undefined gradients, non-determinism "
    "(optional on a first pass)"
)

# The idea each key names is taught under that heading. Keys that are the doctor's codes
# (findings.CODES) are its "Read more"; the exercises use the same keys where they mean the
# same mistake, and their own keys for the rest.
TAUGHT: dict[str, Section] = {
    # lesson 1, beginner track
    "tensors": Section(L1_BEGINNER, "Tensors and gradients"),
    "notepad-cube": Section(L1_BEGINNER, "The notepad in use: Cube"),
    # lesson 1, developer track
    "not-a-function": Section(L1_DEVELOPER, "A complete custom operation"),
    "apply": Section(L1_DEVELOPER, "apply, never forward"),
    "mutates-input": Section(L1_DEVELOPER, "Why save_for_backward: the version-counter safety net"),
    "mutates-saved": Section(L1_DEVELOPER, "Why save_for_backward: the version-counter safety net"),
    "grad-count": Section(L1_DEVELOPER, "Mistake 2: the wrong number of gradients"),
    "non-tensor-grad": Section(L1_DEVELOPER, "One gradient per forward input"),
    "no-gradient": Section(L1_DEVELOPER, "One gradient per forward input"),
    "mutates-grad-out": Section(L1_DEVELOPER, "Mistake 6: writing into grad_out"),
    "chain-rule": Section(L1_DEVELOPER, "Mistake 4: breaking the chain"),
    "gradient": Section(L1_DEVELOPER, "Mistake 3: a wrong derivative that runs fine"),
    "non-contiguous-grad-out": Section(
        L1_DEVELOPER, "Mistake 7: a backward that assumes grad_out is contiguous"
    ),
    "ctx-tensor": Section(L1_DEVELOPER, "Mistake 1: tensors stashed on ctx"),
    # lesson 1, researcher track
    "non-finite": Section(L1_RESEARCHER, "3.3 A numerically superior hand derivative"),
    "double-backward-further": Section(
        L1_RESEARCHER, "Double backward: differentiable ops, or an honest refusal"
    ),
    "jvp-further": Section(L1_RESEARCHER, "The `setup_context` form, and `torch.func`"),
    "grad-shape-further": Section(L1_RESEARCHER, "1. What you are really defining: a VJP"),
    "undefined-grad-out-further": Section(
        L1_RESEARCHER, "`ctx.mark_non_differentiable`: outputs that carry no gradient"
    ),
    # lesson 2, developer track
    "forward": Section(L2_DEVELOPER, "What gradcheck finds, and what the doctor finds"),
    "doctor": Section(L2_DEVELOPER, "What gradcheck finds, and what the doctor finds"),
    "undefined-grad-out": Section(L2_DEVELOPER, _L2_SWITCHES),
    "jvp": Section(L2_DEVELOPER, _L2_SWITCHES),
    "switches": Section(L2_DEVELOPER, _L2_SWITCHES),
    "double-backward": Section(L2_DEVELOPER, "gradgradcheck: the second derivative"),
    "gradcheck": Section(L2_DEVELOPER, "gradcheck: your backward against finite differences"),
    "float64": Section(L2_DEVELOPER, "float64, and why float32 fails"),
    "kinks": Section(L2_DEVELOPER, "Inputs at kinks"),
    "pytest": Section(L2_DEVELOPER, "Testing a Function in a pytest file"),
    "frozen-input": Section(L2_DEVELOPER, "Frozen inputs: test every `needs_input_grad` pattern"),
    # lesson 3, beginner track
    "true-gradient": Section(L3_BEGINNER, "Training with the true gradient"),
    "surrogate-bump": Section(L3_BEGINNER, "The white lie, generalised"),
    # lesson 3, developer track
    "output-dtype": Section(L3_DEVELOPER, "The output keeps the dtype of its input"),
    "surrogate-centre": Section(L3_DEVELOPER, "The bump belongs at the threshold"),
    "surrogate-testing": Section(L3_DEVELOPER, "How to test a surrogate"),
    # the exercise "Check your Clamp01"
    "clamp": _part(1, "Clamp01: keep numbers between 0 and 1"),
    "corners": _part(1, "The corners at 0 and 1"),
    "choose-grad-out": _part(1, "Choosing the upstream gradient yourself"),
    "your-turn-edges": _part(1, "Your turn: my_edge_test"),
    "must-do": _part(2, "What your checks must do"),
    "sends": _part(2, "What gradcheck sends backward"),
    "every-float": _part(2, "A property test over every float"),
}


def read_more(key: str) -> str:
    """The pointer for one key of TAUGHT."""
    return cite(TAUGHT[key])
