"""lessons_lib: the tested code behind the course on torch.autograd.Function.

Everything a notebook calls comes from here (`from lessons_lib import Cube, explore`);
the course content learners read stays namespaced (`from lessons_lib import research`).
The package's map is in README.md ("What is where").
"""

from lessons_lib import exercises
from lessons_lib.lazy import lazy_names

# Every name below loads on first use, torch included, so `import lessons_lib` stays light in a
# Binder session of 1-2 GB, and a kernel (whose hints extension imports lessons_lib) starts
# without torch: a notebook only opened, or one that never uses torch, never pays for it.
_LAZY = {
    "lessons_lib.functions": [
        "Clamp",
        "Clamp01",
        "ClippedSTE",
        "Cube",
        "CubeWithSetupContext",
        "ReLUInPlace",
        "RoundSTE",
        "SigmoidSpike",
        "Square",
    ],
    "lessons_lib.doctor": ["Report", "check_function"],
    "lessons_lib.explorers": [
        "explore",
        "explore_steps",
        "explore_surrogate",
        "measure_steps",
        "train_surrogates",
    ],
    "lessons_lib.exercises": exercises.__all__,  # light: each check loads on first use
    "lessons_lib.display": ["PALETTE", "show_section", "show_source"],
    "lessons_lib.watch": ["watching"],
}
_HOME = {name: module for module, names in _LAZY.items() for name in names}


__getattr__, __dir__ = lazy_names(__name__, _HOME)

__all__ = list(_HOME)
