"""words.nan_and_inf: a NaN or an infinity, written as the arithmetic that made it."""

import pytest
import torch

from lessons_lib.doctor import findings
from lessons_lib.doctor.findings import LESSON_SECTIONS
from lessons_lib.doctor.non_finite import Step
from lessons_lib.doctor.words import nan_and_inf


@pytest.mark.parametrize(
    ("step", "cause", "text"),
    [
        (
            Step("pow", (-15.625, 2 / 3), float("nan")),
            "fractional-power",
            "(-15.62) ** 0.6667 = nan",
        ),
        (Step("pow", (-2.0, 2), float("inf")), "overflow", "(-2) ** 2 = inf"),
        (Step("exp", (1000.0,), float("inf")), "overflow", "exp(1000) = inf"),
        (Step("div", (1.0, 0.0), float("inf")), "zero", "1 / 0 = inf"),
        (Step("div", (0.0, 0.0), float("nan")), "zero-by-zero", "0 / 0 = nan"),
        (Step("log", (0.0,), float("-inf")), "zero", "log(0) = -inf"),
        (Step("sqrt", (-4.0,), float("nan")), "negative-root", "sqrt(-4) = nan"),
        (Step("acos", (2.0,), float("nan")), "undefined", "acos(2) = nan"),
        (Step("rsub", (3.0, 1.0), float("nan")), "undefined", "1 - 3 = nan"),
    ],
)
def test_a_non_finite_step_is_written_as_arithmetic_with_its_cause(step, cause, text):
    assert nan_and_inf.non_finite_cause(step) == cause
    assert nan_and_inf.step_text(step) == text


def test_non_finite_says_nan_or_infinite_as_seen_and_fixes_the_cause_it_traced():
    nan, inf = torch.tensor([float("nan")]), torch.tensor([float("inf")])
    root = nan_and_inf.non_finite(
        "x", ("at x = -4: ...",), nan, [Step("sqrt", (-4.0,), nan.item())]
    )
    assert "is NaN where" in root.what and "sqrt and log give NaN" in root.fix
    assert root.evidence[1] == (
        "there, backward computed sqrt(-4) = nan: the square root or log of a negative number"
    )
    assert root.section == findings.NON_FINITE_UNCOVERED  # 3.3 shows overflow, not this
    overflow = nan_and_inf.non_finite("x", (), inf, [Step("exp", (1000.0,), inf.item())])
    assert overflow.section == LESSON_SECTIONS["non-finite"] + (
        " (the developer tracks do not cover NaN and overflow in a derivative)"
    )
    untraced = nan_and_inf.non_finite("x", (), torch.cat([nan, inf]), [])
    assert "is NaN or infinite where" in untraced.what
    assert "The usual causes of NaN" in untraced.fix and "The usual causes of inf" in untraced.fix
