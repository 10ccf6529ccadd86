"""The researcher track's Functions: the machinery, and the five reasons to write one.

Each class is short and plain because the researcher notebook shows its source
(``show_source(Sort)``). Every one is tested in tests/test_research.py against
gradcheck, torch's own ops, or autograd through an unrolled computation.
- machinery.py        a VJP, sorting, gates, double backward
- foreign_compute.py  reason 1: NumPy and C code, as Functions and custom operators
- reasons.py          reasons 2 to 5: surrogate gradients, numerics, memory, implicit
- costs.py            what a Function costs, and what torch.compile makes of one
"""

from lessons_lib.research.costs import (
    Exp,
    Passthrough,
    compiled_ops,
)
from lessons_lib.research.foreign_compute import (
    CubeInC,
    NumpyConvolve,
    c_cube,
    cube_in_c,
    numpy_convolve,
    numpy_convolve_no_backward,
    numpy_correlate,
)
from lessons_lib.research.machinery import (
    CubeDetachedBackward,
    CubeOnceDifferentiable,
    HardGate,
    Linear,
    Sort,
    vjp_error,
)
from lessons_lib.research.reasons import (
    FixedPointTanh,
    Heaviside,
    StableSoftplus,
    TanhStackRecompute,
    TanhStackSaved,
    contraction_factors,
    fixed_point_unrolled,
    solve_fixed_point,
    tanh_blocks,
    tanh_stack,
    train_spiking_layer,
)

__all__ = [
    "CubeDetachedBackward",
    "CubeInC",
    "CubeOnceDifferentiable",
    "Exp",
    "FixedPointTanh",
    "HardGate",
    "Heaviside",
    "Linear",
    "NumpyConvolve",
    "Passthrough",
    "Sort",
    "StableSoftplus",
    "TanhStackRecompute",
    "TanhStackSaved",
    "c_cube",
    "compiled_ops",
    "contraction_factors",
    "cube_in_c",
    "fixed_point_unrolled",
    "numpy_convolve",
    "numpy_convolve_no_backward",
    "numpy_correlate",
    "solve_fixed_point",
    "tanh_blocks",
    "tanh_stack",
    "train_spiking_layer",
    "vjp_error",
]
