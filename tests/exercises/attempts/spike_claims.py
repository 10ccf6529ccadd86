"""check_spike's claim-checkers: every sentence it says about what a MySpike did, verified
against the facts recorded by running it on the check's own settings (spike_facts)."""

import re

import torch

from tests.exercises.attempts.claims import YOU_PASSED, claim
from tests.exercises.attempts.numbers import close, flat, printed_as, quoted, same
from tests.exercises.attempts.spike_error_claims import ERROR_CLAIMS
from tests.exercises.attempts.spike_error_claims import check_probes as _probes
from tests.exercises.attempts.spike_facts import SpikeProbe, first_gradient

FAST_SIGMOID = "fast-sigmoid"


def _at(a, threshold: float) -> list[SpikeProbe]:
    """The check's probes with this threshold, grad_out all ones."""
    return [p for p in _probes(a) if p.ones and abs(p.threshold - threshold) < 1e-9]


def _numbers(value: object) -> list[list[float]]:
    """Every way a value's numbers might be printed: whole, and each item of a tuple alone."""
    found = [flat(value)] if flat(value) is not None else []
    if isinstance(value, tuple | list):
        for item in value:
            found += _numbers(item)
    return found


def _got_value(found, a) -> bool | None:
    """A "got:" line that starts with a value prints something forward or backward gave."""
    value = found["value"].strip()
    if not re.match(r"^(?:\[|tensor\(|-?\d)", value):
        return None  # a sentence: another kind reads it
    printed = re.sub(r"dtype=[\w.]+", "", value.split("  (")[0])
    if re.match(r"^\d+ things?: ", printed):
        return None  # "<n> things: ..." has its own kind
    candidates = []
    for p in _probes(a):
        candidates += _numbers(p.facts.output) + _numbers(p.facts.returned)
    return any(printed_as(printed, numbers) for numbers in candidates)


def _things(found, a) -> bool:
    got = a.facts.ones.facts.returned
    count = int(found["count"])
    if isinstance(got, tuple | list):
        return len(got) == count
    return count == 1 and got is not None and got != "not run"


def _gradient_for_number(found, a) -> bool:
    got = a.facts.ones.facts.returned
    index = {"threshold": 1, "width": 2}[found["which"]]
    if not isinstance(got, tuple) or len(got) <= index or got[index] is None:
        return False
    item = got[index]
    said = found["what"]
    return printed_as(said, flat(item)) if flat(item) is not None else True


def _bump(p: SpikeProbe, threshold: float, width: float) -> torch.Tensor:
    from lessons_lib.surrogate_gradients import surrogate_slope

    return surrogate_slope(p.facts.x.double(), FAST_SIGMOID, threshold, width)


def _gave(p: SpikeProbe, want: torch.Tensor) -> bool:
    grad = first_gradient(p)
    return grad is not None and torch.allclose(grad, want, rtol=1e-3, atol=1e-5)


def _scaled_as(formula):
    def verify(found, a) -> bool:
        ones, scaled = first_gradient(a.facts.ones), first_gradient(a.facts.scaled)
        if ones is None or scaled is None:
            return False
        g = a.facts.scaled.facts.grad_out.double()
        return torch.allclose(scaled, formula(g) * ones, rtol=1e-3, atol=1e-5)

    return verify


def _steps_as(found, a, rule) -> bool:
    probes = _at(a, float(found["t"]))
    return any(
        isinstance(p.facts.output, torch.Tensor)
        and p.facts.output.shape == p.facts.x.shape
        and torch.equal(p.facts.output.double(), rule(p.facts.x.double()).double())
        for p in probes
    )


def _untracked(found, a) -> bool:
    """untracked()'s sentences: what forward gave back that autograd cannot follow."""
    outputs = [p.facts.output for p in _probes(a)]
    outputs = [o[0] if isinstance(o, tuple) and len(o) == 1 else o for o in outputs]
    if found["what"] == "whole":
        return any(
            isinstance(o, torch.Tensor)
            and not o.is_floating_point()
            and str(o.dtype) == found["dtype"]
            for o in outputs
        )
    if found["what"] == "cut":
        return any(isinstance(o, torch.Tensor) and o.is_floating_point() for o in outputs)
    return any(not isinstance(o, torch.Tensor) for o in outputs)


SPIKE_CLAIMS = [
    YOU_PASSED,
    *ERROR_CLAIMS,
    claim(
        '"got:" <a value the attempt gave back>',
        r"^  got:\s+(?P<value>.+)$",
        _got_value,
    ),
    claim(
        "forward gave back <a non-tensor, whole numbers, or a cut tensor>",
        r"forward gave back (?:a tensor of whole numbers \((?P<dtype>[\w.]+)\)(?P<whole>)|"
        r".*(?P<cut>a tensor with no link back to x)|.*(?P<other>not a tensor))",
        lambda found, a: _untracked(
            {
                "what": "whole"
                if found["whole"] is not None
                else "cut"
                if found["cut"]
                else "other",
                "dtype": found["dtype"],
            },
            a,
        ),
    ),
    claim(
        "forward still gives back the placeholder ...",
        r"forward still gives back the placeholder|\.\.\. \(the placeholder\)",
        lambda found, a: any(p.facts.output is Ellipsis for p in _probes(a)),
    ),
    claim(
        "forward gave 0 at x = <t>, exactly at the threshold",
        r"forward gave 0 at x = (?P<t>-?[\d.]+), exactly at the threshold",
        lambda found, a: _steps_as(found, a, lambda x: x > float(found["t"])),
    ),
    claim(
        "forward's step is at 0, not at the threshold <t>",
        r"forward's step is at 0, not at the threshold (?P<t>-?[\d.]+)",
        lambda found, a: (
            _steps_as(found, a, lambda x: x >= 0) or _steps_as(found, a, lambda x: x > 0)
        ),
    ),
    claim(
        "with threshold <t>, forward still jumped at x = <main>",
        r"with threshold (?P<t>-?[\d.]+), forward still jumped at x = (?P<main>-?[\d.]+)",
        lambda found, a: _steps_as(found, a, lambda x: x >= float(found["main"])),
    ),
    claim(
        "forward gave back <dtype> numbers for <dtype> x",
        r"forward gave back (?P<out>torch\.\w+) numbers for (?P<x>torch\.\w+) x",
        lambda found, a: any(
            isinstance(p.facts.output, torch.Tensor)
            and str(p.facts.output.dtype) == found["out"]
            and str(p.facts.x.dtype) == found["x"]
            for p in (a.facts.ones, a.facts.wide)
        ),
    ),
    claim(
        "forward turns True and False into numbers of a fixed kind (<dtype>), whatever x holds",
        r"numbers of a fixed kind \((?P<dtype>torch\.\w+)\), whatever x holds",
        lambda found, a: all(
            isinstance(p.facts.output, torch.Tensor) and str(p.facts.output.dtype) == found["dtype"]
            for p in (a.facts.ones, a.facts.wide)
        ),
    ),
    claim(
        "<n> thing(s): what backward gave back",
        r"^  got:\s+(?P<count>\d+) things?: ",
        _things,
    ),
    claim(
        "a list of <n> things: what backward gave back",
        r"^  got:\s+a list of (?P<count>\d+) things: ",
        lambda found, a: (
            isinstance(a.facts.ones.facts.returned, list)
            and len(a.facts.ones.facts.returned) == int(found["count"])
        ),
    ),
    claim(
        "backward gave back a list",
        r"backward gave back a list",
        lambda found, a: isinstance(a.facts.ones.facts.returned, list),
    ),
    claim(
        "backward gave back nothing (None)",
        r"backward gave back nothing \(None\)|^  got:\s+None$",
        lambda found, a: a.facts.ones.facts.returned in (None, (None,)),
    ),
    claim(
        "forward's 1s and 0s are right, but as True and False or whole numbers",
        r"forward's 1s and 0s are right, but as True and False or whole numbers",
        lambda found, a: (
            isinstance(a.facts.ones.facts.output, torch.Tensor)
            and not a.facts.ones.facts.output.is_floating_point()
            and torch.equal(
                a.facts.ones.facts.output.double(),
                (a.facts.ones.facts.x >= a.facts.ones.threshold).double(),
            )
        ),
    ),
    claim(
        "backward gave back <what> for the <threshold or width>, a plain number",
        r"backward gave back (?P<what>.+?) for the (?P<which>threshold|width), a plain number",
        _gradient_for_number,
    ),
    claim(
        "backward gave back all zeros",
        r"backward gave back all zeros",
        lambda found, a: any(
            _gave(p, torch.zeros_like(p.facts.x.double())) for p in _probes(a) if p.ones
        ),
    ),
    claim(
        "backward gave back 1 for every number",
        r"backward gave back 1 for every number",
        lambda found, a: any(
            _gave(p, torch.ones_like(p.facts.x.double())) for p in _probes(a) if p.ones
        ),
    ),
    claim(
        "backward's bump is centred at 0, not at the threshold <t>",
        r"backward's bump is centred at 0, not at the threshold (?P<t>-?[\d.]+)",
        lambda found, a: any(_gave(p, _bump(p, 0.0, p.width)) for p in _at(a, float(found["t"]))),
    ),
    claim(
        "backward's bump is 1 wide, not <w> wide",
        r"backward's bump is 1 wide, not (?P<w>[\d.]+) wide",
        lambda found, a: any(
            _gave(p, _bump(p, p.threshold, 1.0))
            for p in _probes(a)
            if p.ones and abs(p.width - float(found["w"])) < 1e-9
        ),
    ),
    claim(
        "with threshold <t>, width <w>, backward gave back the bump for threshold <t0>, width <w0>",
        r"[Ww]ith threshold (?P<t>-?[\d.]+), width (?P<w>[\d.]+), backward gave back the bump for "
        r"threshold (?P<t0>-?[\d.]+), width (?P<w0>[\d.]+)",
        lambda found, a: any(
            _gave(p, _bump(p, float(found["t0"]), float(found["w0"])))
            for p in _at(a, float(found["t"]))
            if abs(p.width - float(found["w"])) < 1e-9
        ),
    ),
    claim(
        "with threshold <t>, width <w>, backward's bump was <w0> wide, the first setting's width",
        r"[Ww]ith threshold (?P<t>-?[\d.]+), width (?P<w>[\d.]+), backward's bump was (?P<w0>[\d.]+) "
        r"wide",
        lambda found, a: any(
            _gave(p, _bump(p, p.threshold, float(found["w0"])))
            for p in _at(a, float(found["t"]))
            if abs(p.width - float(found["w"])) < 1e-9
        ),
    ),
    claim(
        "with threshold <t>, width <w>, backward's bump was centred at <t0>",
        r"[Ww]ith threshold (?P<t>-?[\d.]+), width (?P<w>[\d.]+), backward's bump was centred at "
        r"(?P<t0>-?[\d.]+)",
        lambda found, a: any(
            _gave(p, _bump(p, float(found["t0"]), p.width))
            for p in _at(a, float(found["t"]))
            if abs(p.width - float(found["w"])) < 1e-9
        ),
    ),
    claim(
        "backward gave back the same numbers for grad_out = <g> as for grad_out all ones",
        r"backward gave back the same numbers for grad_out = (?P<g>\[[^\]]*\]) as for grad_out "
        r"all ones",
        lambda found, a: (
            same(quoted(found["g"]), flat(a.facts.scaled.facts.grad_out))
            and _scaled_as(lambda g: torch.ones_like(g))(found, a)
        ),
    ),
    claim(
        "grad_out was clipped to [-1, 1]",
        r"grad_out was clipped to \[-1, 1\]",
        _scaled_as(lambda g: g.clamp(-1, 1)),
    ),
    claim(
        "backward's numbers lost grad_out's sign",
        r"backward's numbers lost grad_out's sign",
        _scaled_as(lambda g: g.abs()),
    ),
    claim(
        "with <settings>, backward gave back no tensor shaped like x",
        r"with threshold (?P<t>-?[\d.]+), width [\d.]+, backward gave back no tensor shaped like x",
        lambda found, a: all(first_gradient(p) is None for p in _at(a, float(found["t"]))),
    ),
    claim(
        "(for x = <numbers>, threshold <t>) in an expected line",
        r"for x = (?P<values>\[[^\]]*\]), threshold (?P<t>-?[\d.]+)",
        lambda found, a: any(
            close(p.facts.x, quoted(found["values"])) for p in _at(a, float(found["t"]))
        ),
    ),
]

UNVERIFIED = [
    ("Look on that line for a tensor of one fixed kind", "where to look, not what the code did"),
    ("must take x of either kind", "what forward and backward must do, not what they did"),
    ("did you forget the word return?", "a question, not a claim"),
    ("forward changes x's kind of numbers", "true whenever the case fails on a dtype"),
    ("With grad_out all ones, backward gave back the slope itself", "true by definition"),
    ("forward's numbers are not the step's 1s and 0s", "true whenever the case fails"),
    ("backward's numbers are not the fast-sigmoid bump's heights", "true whenever it fails"),
]
