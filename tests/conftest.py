"""Shared test settings."""

from hypothesis import settings

# The first call into torch is slow; a per-example deadline would only add flakiness.
settings.register_profile("course", deadline=None, max_examples=60)
settings.load_profile("course")
