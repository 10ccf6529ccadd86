"""The doctor against Functions rewritten from public projects (tests/doctor/corpus/).

Each entry is labelled exact, surrogate or buggy, and the label is checked with torch's own
tools: gradcheck passes on an exact one; a surrogate's backward equals its declared
grad_reference; a buggy one fails gradcheck, or passes it and fails gradgradcheck or
gradcheck of forward mode, as recorded. The doctor must then pass exact and surrogate entries clean and name each bug
with the recorded codes, most important first. Where it does not, the case is an expected
failure whose reason quotes what the doctor says and why that is wrong.
"""

import functools
import inspect
import statistics
import time

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
CHAIN_RULE_WORDS = (
    "[chain-rule] backward does not scale with grad_out: when grad_out was doubled and "
    "negated, its gradient for x did not double and change sign."
)
JVP_WORDS = (
    "[jvp] jvp raised NotImplementedError: forward mode is not implemented for the discounted "
    "return"
)
# Where the doctor is wrong about an entry: what it says, and why that is wrong.
GAPS = {
    "lower-bound": f"The doctor says “{CHAIN_RULE_WORDS}” (with no evidence line), but "
    "backward matches the declared grad_reference everywhere: CompressAI's rule passes the "
    "gradient where grad_out < 0, so it depends on grad_out's sign by design. The chain-rule "
    "probe assumes every backward is linear in grad_out, even when the declared rule is not.",
    "guided-relu": f"The doctor says “{CHAIN_RULE_WORDS}” (with no evidence line), but "
    "backward matches the declared grad_reference everywhere: guided backpropagation drops "
    "negative grad_outs by design, so doubling and negating grad_out must change the result. "
    "The chain-rule probe assumes every backward is linear in grad_out, even when the "
    "declared rule is not.",
    "discounted-return": f"The doctor says “{JVP_WORDS}” and that forward mode “gets these "
    "wrong numbers”, but this jvp only refuses, with the NotImplementedError that "
    "torch.autograd.Function.jvp itself raises when a Function defines none, and the doctor "
    "passes a Function without jvp clean: forward mode raises here, it computes nothing wrong.",
}
MAX_MEDIAN_SECONDS = 0.020
TIMED_CHECKS = 5


def cases(*labels: str, doctor: bool = False) -> list:
    """The entries with these labels as pytest parameters; for the doctor's verdicts, each
    known gap is an expected failure."""
    return [
        pytest.param(
            entry,
            id=entry.name,
            marks=[pytest.mark.xfail(strict=True, reason=GAPS[entry.name])]
            if doctor and entry.name in GAPS
            else [],
        )
        for entry in ENTRIES
        if entry.label in labels
    ]


@pytest.fixture(scope="module")
def verdicts() -> dict:
    """The doctor's report on every entry, and the seconds one check of it takes.

    Timed as benchmarks/doctor.py times the catalogue: on one thread, as on Binder (two
    threads on a busy machine spend milliseconds in each tiny parallel kernel), after one
    untimed check of the same Function (torch's first calls load kernels), and as the
    fastest of TIMED_CHECKS checks, as timeit advises: on a shared machine the slower ones
    measure the other processes.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    found = {}
    try:
        for entry in ENTRIES:
            args = (entry.function, entry.reference)
            kwargs = {"grad_reference": entry.grad_reference, "inputs": entry.inputs}
            check_function(*args, **kwargs)
            seconds = []
            for _ in range(TIMED_CHECKS):
                start = time.perf_counter()
                report = check_function(*args, **kwargs)
                seconds.append(time.perf_counter() - start)
            found[entry.name] = report, min(seconds)
    finally:
        torch.set_num_threads(threads)
    return found


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


@pytest.mark.parametrize("entry", cases("exact", "surrogate", doctor=True))
def test_the_doctor_passes_a_correct_function_clean(entry, verdicts):
    report, _ = verdicts[entry.name]
    assert report.ok and report.codes == [], str(report)


@pytest.mark.parametrize("entry", cases("buggy", doctor=True))
def test_the_doctor_names_the_bug_first(entry, verdicts):
    report, _ = verdicts[entry.name]
    assert not report.ok, str(report)
    assert report.codes[0] == entry.codes[0], str(report)
    assert report.codes == list(entry.codes), str(report)


def test_each_gap_is_what_its_reason_quotes(verdicts):
    quoted = {"lower-bound": CHAIN_RULE_WORDS, "guided-relu": CHAIN_RULE_WORDS}
    quoted["discounted-return"] = JVP_WORDS
    assert quoted.keys() == GAPS.keys()
    for name, words in quoted.items():
        report, _ = verdicts[name]
        assert words in str(report) and len(report.codes) == 1, str(report)


def test_the_doctor_checks_each_function_quickly(verdicts):
    seconds = {name: spent for name, (_, spent) in verdicts.items()}
    median = statistics.median(seconds.values())
    slowest = max(seconds, key=seconds.get)
    print(
        f"\ndoctor over {len(seconds)} corpus Functions: median {median * 1000:.1f} ms, "
        f"max {seconds[slowest] * 1000:.1f} ms ({slowest})"
    )
    assert median < MAX_MEDIAN_SECONDS
