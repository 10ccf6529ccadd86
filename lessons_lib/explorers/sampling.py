"""Which sample a slider is at: the rule both explorers share with front/values.js's sampleIndex.

Layer: plain numbers, no widgets. The curves are sampled on an evenly spaced grid (in
log10 for the step explorer) that the point slider's steps fall on, so a value read at
the point is exact; the kernel and the browser must agree on which sample that is.
"""

import numpy as np

# A point is on the grid when it is this close to a sample, relative to the grid's width:
# far below a slider step, far above the rounding of a slider's step arithmetic.
ON_GRID = 1e-9


def sample_index(samples: np.ndarray, x: float, tolerance: float = ON_GRID) -> int | None:
    """The sample at x on an evenly spaced grid (either direction), else None.

    Close means within `tolerance` of the grid's width: the same rule as the front end's
    sampleIndex, so the kernel and the browser always agree on which sample a slider is at.
    """
    if samples.size < 2:
        return None
    first, width = float(samples[0]), float(samples[-1] - samples[0])
    index = round((x - first) / width * (samples.size - 1))
    close = 0 <= index < samples.size and abs(samples[index] - x) <= tolerance * abs(width)
    return index if close else None
