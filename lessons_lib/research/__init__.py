"""The researcher track's Functions: the machinery, and the five reasons to write one.

Each class is short and plain because the researcher notebook shows its source
(``show_source(Sort)``). Every one is tested in tests/test_research.py against
gradcheck, torch's own ops, or autograd through an unrolled computation.
- machinery.py        a VJP, sorting, gates, double backward
- foreign_compute.py  reason 1: NumPy and C code, as Functions and custom operators
- reasons.py          reasons 2 to 5: surrogate gradients, numerics, memory, implicit
- costs.py            what a Function costs, and what torch.compile makes of one
- surrogates.py       lesson 3: what a surrogate gradient estimates, and how well
"""

from lessons_lib.research import costs, foreign_compute, machinery, reasons, surrogates
from lessons_lib.research.costs import *  # noqa: F403 (each module's __all__)
from lessons_lib.research.foreign_compute import *  # noqa: F403 (each module's __all__)
from lessons_lib.research.machinery import *  # noqa: F403 (each module's __all__)
from lessons_lib.research.reasons import *  # noqa: F403 (each module's __all__)
from lessons_lib.research.surrogates import *  # noqa: F403 (each module's __all__)

__all__ = [
    *machinery.__all__,
    *foreign_compute.__all__,
    *reasons.__all__,
    *costs.__all__,
    *surrogates.__all__,
]
