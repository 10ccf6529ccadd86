"""What a learner's MySpike does, and the oracles for check_spike's cases.

RIGHT, for MySpike.apply(x, threshold, width): on every probe (the check's two settings, in
float32 and float64, and one setting of this test's own) forward gives back a tensor of x's
shape and dtype equal to 1 where x >= threshold and 0 below; backward gives back three
things: a tensor of x's shape equal to grad_out times the fast-sigmoid bump (from
surrogate_gradients.smoothed_step's derivative, taken here by autograd, not from the check),
then None, None. Recorded with function_facts.record, forward called as apply(x, t, w).
"""

from dataclasses import dataclass
from types import SimpleNamespace

import torch

from tests.exercises.attempts.arguments import what_it_is
from tests.exercises.attempts.distinct import Attempt
from tests.exercises.attempts.function_facts import FunctionFacts, on_every_probe, record
from tests.exercises.attempts.function_facts import signature as probe_signature

try:  # the settings check_spike uses: read from the check
    from lessons_lib.exercises.spike import MAIN, MOVED, SPIKE_GRAD_OUT

    CHECK_SETTINGS = ((MAIN.x, MAIN.threshold, MAIN.width), (MOVED.x, MOVED.threshold, MOVED.width))
except ImportError:
    CHECK_SETTINGS = (
        ((1.0, 0.25, 1.5, 2.75, -1.0), 1.0, 0.5),
        ((-0.5, 1.0, -3.0, 0.5, 4.0), -0.5, 2.0),
    )
    SPIKE_GRAD_OUT = (2.0, -1.5, 3.0, 0.5, -4.0)

OWN_SETTING = ((0.3, 0.25, -0.2, 0.26, 1.4), 0.25, 0.1)  # this test's own: none of the check's
OWN_GRAD_OUT = (1.5, -2.0, 0.5, 3.0, -0.25)


@dataclass
class SpikeProbe:
    facts: FunctionFacts
    threshold: float
    width: float

    @property
    def ones(self) -> bool:
        return bool((self.facts.grad_out == 1).all())


@dataclass
class SpikeFacts:
    ones: SpikeProbe  # the check's first setting, float32, grad_out all ones
    scaled: SpikeProbe  # the same, with the check's uneven grad_out
    wide: SpikeProbe  # the same, float64
    moved: SpikeProbe  # the check's second setting, grad_out all ones
    own: SpikeProbe  # this test's own setting and grad_out
    module_tensors: dict

    @property
    def probes(self) -> tuple[SpikeProbe, ...]:
        return (self.ones, self.scaled, self.wide, self.moved, self.own)

    @property
    def check(self) -> FunctionFacts:  # what function_claims reads
        return self.ones.facts

    @property
    def other(self) -> FunctionFacts:
        return self.scaled.facts


def _probe(cls: type, setting: tuple, grad_out, dtype=torch.float32) -> SpikeProbe:
    x, threshold, width = setting
    grad = grad_out if grad_out is not None else (1.0,) * len(x)
    called = SimpleNamespace(
        apply=lambda x: cls.apply(x, threshold, width), backward=getattr(cls, "backward", None)
    )
    return SpikeProbe(record(called, x, grad, dtype), threshold, width)


def spike_facts(cls: type) -> SpikeFacts:
    module = __import__(cls.__module__)
    tensors = {k: v for k, v in vars(module).items() if isinstance(v, torch.Tensor)}
    main, moved = CHECK_SETTINGS
    return SpikeFacts(
        _probe(cls, main, None),
        _probe(cls, main, SPIKE_GRAD_OUT),
        _probe(cls, main, None, torch.float64),
        _probe(cls, moved, None),
        _probe(cls, OWN_SETTING, OWN_GRAD_OUT),
        tensors,
    )


def bump(p: SpikeProbe) -> torch.Tensor:
    """The fast-sigmoid bump at the probe's x: the derivative of its smooth step, by autograd."""
    x = p.facts.x.double().requires_grad_(True)
    u = (x - p.threshold) / p.width
    smooth = 0.5 + 0.5 * u / (1 + u.abs())  # the fast sigmoid's smooth step, 0 to 1
    (slope,) = torch.autograd.grad(smooth.sum(), x)
    return slope


def steps(p: SpikeProbe) -> bool | None:
    out = p.facts.output
    if not p.facts.forward_ok or not isinstance(out, torch.Tensor) or out.shape != p.facts.x.shape:
        return False
    want = (p.facts.x.double() >= p.threshold).double()
    return torch.equal(out.double(), want)


def keeps_kind(p: SpikeProbe) -> bool | None:
    out = p.facts.output
    if not p.facts.forward_ok:  # x's kind in, an error out: not x's kind out
        return False
    if not isinstance(out, torch.Tensor):
        return None
    return out.dtype == p.facts.x.dtype


def _returned(p: SpikeProbe) -> object:
    return p.facts.returned if p.facts.backward_raised is None else "raised"


def three(p: SpikeProbe) -> bool | None:
    got = _returned(p)
    if got == "not run":
        return None
    return (
        isinstance(got, tuple)
        and len(got) == 3
        and isinstance(got[0], torch.Tensor)
        and got[0].shape == p.facts.x.shape
        and got[1] is None
        and got[2] is None
    )


def three_in_both(single: SpikeProbe, double: SpikeProbe) -> bool | None:
    """three() on float32 x; on float64 x too, where forward ran and backward was called."""
    return False if three(double) is False else three(single)


def first_gradient(p: SpikeProbe) -> torch.Tensor | None:
    got = _returned(p)
    if isinstance(got, torch.Tensor):
        got = (got,)
    if not isinstance(got, tuple | list) or not got:
        return None
    grad = got[0]
    ok = isinstance(grad, torch.Tensor) and grad.shape == p.facts.x.shape
    return grad.detach().double() if ok and grad.is_floating_point() else None


def gives_bump(p: SpikeProbe) -> bool | None:
    """With grad_out all ones: backward's gradient for x is the bump."""
    grad = first_gradient(p)
    if grad is None:  # backward ran and gave back no gradient for x: no bump
        return False if _returned(p) != "not run" else None
    return torch.allclose(grad, bump(p), rtol=1e-3, atol=1e-5)


def scales(ones: SpikeProbe, scaled: SpikeProbe) -> bool | None:
    a, b = first_gradient(ones), first_gradient(scaled)
    if a is None:
        return None
    if b is None:  # a gradient for grad_out all ones, none for the uneven one: not scaled
        return False if scaled.facts.forward_ok else None
    return torch.allclose(b, scaled.facts.grad_out.double() * a, rtol=1e-3, atol=1e-5)


def is_right(facts: SpikeFacts) -> bool:
    for p in facts.probes:
        if not steps(p) or not keeps_kind(p) or not three(p):
            return False
        want = p.facts.grad_out.double() * bump(p)
        if not torch.allclose(first_gradient(p), want, rtol=1e-3, atol=1e-5):
            return False
        changed = p.facts.x_changed_by_forward or p.facts.grad_out_changed
        if changed or p.facts.x_changed_by_backward:
            return False
    return True


def spike_case_oracles(facts: SpikeFacts) -> dict[str, bool | None]:
    """Each case's property by the names check_spike prints."""
    step = on_every_probe(steps, (facts.ones, facts.moved))
    centred = on_every_probe(gives_bump, (facts.ones, facts.moved))
    return {
        "forward is the step: 1 where x reaches the threshold, 0 below it": step,
        "forward keeps x's kind of numbers (float32 in, float32 out; float64 in, float64 out)": (
            on_every_probe(keeps_kind, (facts.ones, facts.wide))
        ),
        "backward gives back three things: a gradient for x, None for each number": (
            three_in_both(facts.ones, facts.wide)
        ),
        "backward's slope is the fast-sigmoid bump, centred on the threshold": centred,
        "backward scales with grad_out": scales(facts.ones, facts.scaled),
    }


def spike_signature(attempt: Attempt) -> tuple:
    if attempt.argument:
        return ("argument", what_it_is(attempt.learner))
    return tuple(probe_signature(p.facts) for p in attempt.facts.probes)
