"""Attempts at check_my_surrogate_tests: the answer with one edit, then every pair of edits,
each a slip a learner makes (the doctor without its rule, a rule off the threshold, a property
test never called or asserting less, gradcheck added); with 20 hypothesis examples each."""

import itertools
from dataclasses import dataclass

from lessons_lib.exercises.surrogate_tests_words import ANSWER
from tests.exercises.attempts.loading import load_source

BASE = (
    (ANSWER + "\n")
    .replace("def reference_surrogate_tests(", "def my_surrogate_tests(")
    .replace("max_examples=100", "max_examples=20")
)
DOCTOR_ASSERT = "    assert report.ok, str(report)\n"
LINEAR = (
    '        assert torch.allclose(scaled, c * bump), f"not linear in grad_out at x={point:g}"\n'
)
PEAK = '        assert bump[1] >= bump[0], f"the bump is higher at x={point:g} than at the threshold"\n'
GRADCHECK = (
    DOCTOR_ASSERT
    + "    xs = x.clone().requires_grad_()\n"
    + "    torch.autograd.gradcheck(lambda v: spike.apply(v, 1.0, 0.5), (xs,))\n"
)
RULE = 'surrogate_slope(x, "fast-sigmoid", threshold, width), None, None'
EDITS = {  # label: (text in the answer, what the slip puts there)
    "doctor's result dropped": (DOCTOR_ASSERT, ""),
    "doctor without grad_reference": ("grad_reference=rule, ", ""),
    "rule centred at 0": (RULE, RULE.replace("threshold, width", "0.0, width")),
    "rule 1 wide": (RULE, RULE.replace("threshold, width", "threshold, 1.0")),
    "property never called": ("    linear_and_peaks_at_threshold()\n", ""),
    "no linearity assert": (LINEAR, ""),
    "no peak assert": (PEAK, ""),
    "gradcheck added": (DOCTOR_ASSERT, GRADCHECK),
    "grad_out drawn in [-1, 1]": ("st.floats(-100, 100)", "st.floats(-1, 1)"),
}


@dataclass(frozen=True)
class SuiteAttempt:
    """One learner's my_surrogate_tests: its edits of the answer and the loaded function."""

    label: str
    source: str

    def function(self):
        return load_source(self.source, "surrogate_tests").my_surrogate_tests

    @property
    def property_called(self) -> bool:
        return "    linear_and_peaks_at_threshold()\n" in self.source


def _edited(labels: tuple[str, ...]) -> str | None:
    source = BASE
    for label in labels:
        old, new = EDITS[label]
        if old not in source:
            return None  # an earlier edit removed what this one changes
        source = source.replace(old, new, 1)
    return source


def suite_attempts() -> list[SuiteAttempt]:
    """The answer, each edit alone, then each pair: in a fixed order, duplicates left out."""
    seen, attempts = set(), []
    for size in (0, 1, 2):
        for labels in itertools.combinations(EDITS, size):
            source = _edited(labels)
            if source is not None and source not in seen:
                seen.add(source)
                attempts.append(SuiteAttempt(" + ".join(labels) or "answer", source))
    return attempts
