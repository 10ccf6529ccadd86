"""The doctor against Functions rewritten from public projects (tests/doctor/corpus/).

Each entry is labelled exact, surrogate or buggy, and the label is checked with torch's own
tools: gradcheck passes on an exact one; a surrogate's backward equals its declared
grad_reference; a buggy one fails gradcheck, or passes it and fails gradgradcheck or
gradcheck of forward mode, as recorded. The doctor must then pass exact and surrogate
entries clean and name each bug with the recorded codes, most important first.
benchmarks/doctor.py --corpus times the doctor on them.
"""

import functools
import inspect

import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck

from lessons_lib import check_function
from lessons_lib.doctor.samples import default_inputs
from tests.doctor.corpus import ENTRIES

CHECKS = {
    "gradcheck": gradcheck,
    "gradgradcheck": gradgradcheck,
    "gradcheck(check_forward_ad=True)": functools.partial(gradcheck, check_forward_ad=True),
}


def cases(*labels: str) -> list:
    """The entries with these labels as pytest parameters."""
    return [pytest.param(entry, id=entry.name) for entry in ENTRIES if entry.label in labels]


@pytest.fixture(scope="module")
def verdicts() -> dict:
    """The doctor's report on every entry (benchmarks/doctor.py --corpus times them)."""
    return {
        entry.name: check_function(
            entry.function,
            entry.reference,
            grad_reference=entry.grad_reference,
            inputs=entry.inputs,
        )
        for entry in ENTRIES
    }


def inputs_of(entry) -> tuple:
    """Fresh copies of the entry's inputs (its own or the doctor's sample), floats as leaves."""
    given = default_inputs() if entry.inputs is None else entry.inputs
    return tuple(
        a.detach().clone().requires_grad_(a.is_floating_point())
        if isinstance(a, torch.Tensor)
        else a
        for a in given
    )


def failure(check, entry) -> str | None:
    """Why torch's gradcheck or gradgradcheck fails on the entry, or None if it passes."""
    try:
        check(entry.function.apply, inputs_of(entry))
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


# -- the labels are true --


@pytest.mark.parametrize("entry", cases("exact"))
def test_an_exact_backward_passes_gradcheck(entry):
    assert failure(gradcheck, entry) is None


@pytest.mark.parametrize("entry", cases("surrogate"))
def test_a_surrogate_backward_is_its_declared_rule(entry):
    generator = torch.Generator().manual_seed(7)
    given = inputs_of(entry)
    x_at = next(i for i, a in enumerate(given) if isinstance(a, torch.Tensor) and a.requires_grad)
    for _ in range(3):
        x = torch.randn(given[x_at].shape, dtype=torch.float64, generator=generator) * 3
        args = (*given[:x_at], x.requires_grad_(), *given[x_at + 1 :])
        out = entry.function.apply(*args)
        grad = torch.randn(out.shape, dtype=out.dtype, generator=generator)
        (got,) = torch.autograd.grad(out, x, grad)
        with torch.no_grad():
            want = entry.grad_reference(*args, grad)
        want = want[x_at] if isinstance(want, tuple) else want
        torch.testing.assert_close(got, want, equal_nan=True)


@pytest.mark.parametrize("entry", cases("buggy"))
def test_a_bug_fails_the_recorded_torch_check(entry):
    if entry.check != "gradcheck":  # reverse mode's first derivative is right
        assert failure(gradcheck, entry) is None
    assert failure(CHECKS[entry.check], entry) is not None


def test_each_function_names_its_source_above_its_class():
    for entry in ENTRIES:
        comment = inspect.getcomments(entry.function) or ""
        repository, path = entry.source.split(", ", 1)
        assert comment.startswith(f"# After: {repository}, "), entry.name
        assert path.rsplit("/", 1)[-1] in comment, entry.name


def test_the_corpus_is_large_and_mixed():
    labels = [entry.label for entry in ENTRIES]
    assert len(ENTRIES) >= 26
    assert labels.count("exact") >= 10 and labels.count("surrogate") >= 8
    assert labels.count("buggy") >= 8
    assert len({entry.name for entry in ENTRIES}) == len(ENTRIES)
    assert len({entry.function for entry in ENTRIES}) == len(ENTRIES)


# -- the doctor's verdicts --


@pytest.mark.parametrize("entry", cases("exact", "surrogate"))
def test_the_doctor_passes_a_correct_function_clean(entry, verdicts):
    report = verdicts[entry.name]
    assert report.ok and report.codes == [], str(report)
    assert not [note for note in report.notes if "finite difference" in note], str(report)


@pytest.mark.parametrize("entry", cases("buggy"))
def test_the_doctor_names_the_bug_first(entry, verdicts):
    report = verdicts[entry.name]
    assert not report.ok, str(report)
    assert report.codes[0] == entry.codes[0], str(report)
    assert report.codes == list(entry.codes), str(report)


def test_an_honest_refusal_of_forward_mode_is_a_note_not_a_finding(verdicts):
    report = verdicts["discounted-return"]
    assert report.ok and any("your jvp raises NotImplementedError" in n for n in report.notes)
