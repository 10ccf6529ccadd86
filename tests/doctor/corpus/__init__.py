"""Custom autograd Functions rewritten from public projects, each with the doctor's due verdict.

exact.py holds Functions whose backward is the true derivative, surrogates.py those with a
deliberate gradient rule, buggy.py those with a real-world mistake. Each class names the
project and file it follows in the comment above it; tests/doctor/test_corpus.py holds the
doctor to each entry's label.
"""

from tests.doctor.corpus import buggy, exact, surrogates
from tests.doctor.corpus.entry import Entry

ENTRIES: list[Entry] = [*exact.ENTRIES, *surrogates.ENTRIES, *buggy.ENTRIES]

__all__ = ["ENTRIES", "Entry"]
