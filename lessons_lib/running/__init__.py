"""Calling a learner's code safely: shared by the doctor, the explorers and the exercises.

Import from here (`from lessons_lib.running import run_function`), not from the modules:
- errors.py   the course's own exceptions, whose message is the whole story
- policy.py   what counts as a Function (`Cube` or `Cube.apply`)
- arguments.py  what a learner passed, in words, and every helper's one-line refusal
- state.py    torch's global state, put back after learner code runs
- calls.py    one forward and a raw backward (with the facts messages state), a reference's
              true gradient (vjp)
- explain.py  PyTorch's errors learners meet most, each in one plain-English sentence
- engine.py   a run through autograd's engine, with the doctor's evidence
- words.py    small words for messages
"""

from lessons_lib.running.arguments import describe_non_function
from lessons_lib.running.calls import (
    Failure,
    Forward,
    Run,
    Upstream,
    as_tuple,
    ctx_tensor_attributes,
    detached,
    differentiable,
    forward_once,
    fresh_inputs,
    grads_for_every_output,
    leaves_and_args,
    ones_upstream,
    run_function,
    same_values,
    tracked_outputs,
    vjp,
)
from lessons_lib.running.engine import SCALE, EngineRun, SavedChange, UndefinedRun, engine_run
from lessons_lib.running.errors import InputError, LessonError, NotAFunctionError, first_line
from lessons_lib.running.policy import as_function, is_function
from lessons_lib.running.state import preserved_global_state
from lessons_lib.running.words import a_or_an, kind_and_size, numbers, plain, short

__all__ = [
    "SCALE",
    "EngineRun",
    "Failure",
    "Forward",
    "InputError",
    "LessonError",
    "NotAFunctionError",
    "Run",
    "SavedChange",
    "UndefinedRun",
    "Upstream",
    "a_or_an",
    "as_function",
    "as_tuple",
    "ctx_tensor_attributes",
    "describe_non_function",
    "detached",
    "differentiable",
    "engine_run",
    "first_line",
    "forward_once",
    "fresh_inputs",
    "grads_for_every_output",
    "is_function",
    "kind_and_size",
    "leaves_and_args",
    "numbers",
    "ones_upstream",
    "plain",
    "preserved_global_state",
    "run_function",
    "same_values",
    "short",
    "tracked_outputs",
    "vjp",
]
