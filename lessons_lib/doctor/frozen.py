"""Frozen inputs: a Function's gradient for one input must not depend on which others require grad.

The doctor's other checks make every float input require grad. A model with a frozen part
(fine-tuning, a fixed weight) calls the Function with some inputs that do not, and
backward reads ctx.needs_input_grad to skip their gradients; a backward that reads the
wrong index of it is right only while everything requires grad. So, for a Function of two
or more float inputs, each input is given alone requiring grad and its gradient compared
with the one it gets when all do.
"""

from typing import TYPE_CHECKING

import torch

from lessons_lib.doctor import words as say
from lessons_lib.doctor.compare import close
from lessons_lib.doctor.evidence import evidence_lines
from lessons_lib.doctor.samples import Sample
from lessons_lib.running import (
    EngineRun,
    Failure,
    Upstream,
    as_tuple,
    differentiable,
    preserved_global_state,
    tracked_outputs,
)

if TYPE_CHECKING:  # the examination passes itself in; importing it here would be circular
    from lessons_lib.doctor.record import Record


def alone(fn: type, inputs: tuple, i: int, upstream: Upstream) -> torch.Tensor | Failure | None:
    """Input i's gradient when it alone requires grad (None: backward gave none)."""
    with preserved_global_state(), torch.enable_grad():
        args = []
        for j, value in enumerate(inputs):
            if isinstance(value, torch.Tensor):
                value = value.detach().clone()
                if j == i:
                    leaf = value.requires_grad_(True)
                    value = leaf.clone()  # a Function that works in place still runs
            args.append(value)
        try:
            outputs = as_tuple(fn.apply(*args))
            tracked = tracked_outputs(outputs)
            (found,) = torch.autograd.grad(
                [outputs[k] for k in tracked],
                [leaf],
                [upstream(outputs[k].detach(), k) for k in tracked],
                allow_unused=True,
            )
        except Exception as error:
            return Failure.of("backward", error)
    return found


def check_frozen_inputs(exam: "Record", run: EngineRun, sample: Sample, upstream: Upstream) -> None:
    """frozen-input: an input's gradient changes when the other float inputs are frozen."""
    floats = [i for i, value in enumerate(sample.inputs) if differentiable(value)]
    if len(floats) < 2:
        return
    for i in floats:
        want = run.grads[i]
        if not isinstance(want, torch.Tensor):
            continue
        got = alone(exam.fn, sample.inputs, i, upstream)
        name = exam.names[i]
        others = [exam.names[j] for j in floats if j != i]
        if isinstance(got, Failure):
            exam.add(say.frozen_input(name, others, str(got)))
        elif got is None:
            exam.add(say.frozen_input(name, others, f"backward gave no gradient for {name}"))
        elif not close(got, want).all():
            evidence = evidence_lines(
                ~close(got, want),
                sample.inputs,
                exam.names,
                want,
                got,
                at=i,
                says=f"{{expected}} with every input requiring grad, {{got}} with {name} alone",
            )
            exam.add(say.frozen_input(name, others, "its gradient changed", evidence))
        else:
            continue
        return  # one frozen input is evidence enough
