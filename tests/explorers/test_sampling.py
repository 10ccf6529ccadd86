"""sampling: which sample a slider is at, in the kernel as in the browser (front/)."""

import numpy as np

from lessons_lib.explorers.sampling import ON_GRID, sample_index


def test_every_step_of_an_even_grid_is_found_and_nothing_between_or_beyond():
    samples = np.linspace(-1.0, 3.0, 161)
    step = 4.0 / 160
    assert [sample_index(samples, -1.0 + k * step) for k in range(161)] == list(range(161))
    assert sample_index(samples, 0.01) is None
    assert sample_index(samples, -1.0 - step) is None and sample_index(samples, 3.0 + step) is None


def test_a_grid_that_runs_downwards_is_found_too_as_log_steps_from_1_to_1e_15_are():
    samples = -np.arange(61) / 4  # log10 of 1, 10**-0.25, ..., 1e-15
    assert sample_index(samples, -2.5) == 10 and sample_index(samples, -2.4) is None


def test_close_means_within_the_tolerance_of_the_grids_width():
    samples = np.linspace(0.0, 10.0, 11)
    assert sample_index(samples, 3.0 + 0.5 * ON_GRID * 10) == 3
    assert sample_index(samples, 3.0 + 2 * ON_GRID * 10) is None
    assert sample_index(samples, 3.01, tolerance=1e-2) == 3


def test_fewer_than_two_samples_have_no_grid():
    assert sample_index(np.empty(0), 0.0) is None and sample_index(np.array([1.0]), 1.0) is None
