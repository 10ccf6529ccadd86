"""record: the first finding of each code is kept, with where it was found; notes once."""

import torch

from lessons_lib import Cube
from lessons_lib.doctor.findings import Finding
from lessons_lib.doctor.record import Record
from lessons_lib.doctor.samples import sample_sets


def record_at(sample_index: int) -> Record:
    samples = sample_sets(None)
    record = Record(Cube, lambda x: x**3, None, samples[0].inputs)
    record.sample = samples[sample_index]
    return record


def test_the_first_finding_of_a_code_is_kept_and_a_later_sample_says_where():
    record = record_at(1)
    record.add(Finding("gradient", "first", "why", "fix", ("at x = 1",)))
    record.add(Finding("gradient", "second", "why", "fix", ("at x = 2",)))
    (kept,) = record.found.values()
    assert kept.what == "first" and kept.evidence[-1].startswith("(found among the ")
    assert record.has("gradient") and not record.has("chain-rule")


def test_a_note_is_kept_once_and_the_names_come_from_forward():
    record = record_at(0)
    record.note("n")
    record.note("n")
    assert record.notes == ["n"] and record.names == ["x"]
    assert (
        record.intended_for(record.sample, None, lambda out, k: torch.ones_like(out), 0) is not None
    )
