"""check_spike's claim-checkers for an error: which run raised it (the kind of x, the
grad_out), in what words, through which line of the learner's, and which run did not."""

import re

from tests.exercises.attempts.claims import claim
from tests.exercises.attempts.numbers import flat, quoted, same
from tests.exercises.attempts.spike_facts import SpikeProbe, first_gradient


def check_probes(a) -> tuple[SpikeProbe, ...]:
    """The check's own probes: ones, scaled, wide (float64), moved."""
    return a.facts.probes[:4]


def _same_error(raised, found) -> bool:
    """The verdict quotes this error: its kind, and its message (or the start of it)."""
    if raised is None or raised.kind != found["kind"]:
        return False
    said, real = found["message"].strip(), raised.message.strip()
    return said == real or real.startswith(said.rstrip(".")) or said == "(no message)"


def _error(stage: str):
    def verify(found, a) -> bool:
        return any(_same_error(getattr(p.facts, f"{stage}_raised"), found) for p in check_probes(a))

    return verify


def _in_kind(a, dtype: str) -> list[SpikeProbe]:
    """The check's probes at its first setting with x of this kind ("float32", "float64")."""
    return [
        p
        for p in (a.facts.ones, a.facts.scaled, a.facts.wide)
        if str(p.facts.x.dtype) == f"torch.{dtype}"
    ]


def _raised_in(p: SpikeProbe, stage: str):
    """What the probe raised in this stage (forward, or backward once forward ran), else None."""
    if stage == "forward":
        return p.facts.forward_raised
    raised = p.facts.backward_raised if p.facts.forward_ok else None
    return None if raised is not None and raised.kind == "NoGraph" else raised


def _stopped_on(found, a) -> bool:
    """ "<stage> stopped with an error on <kind> x: <error>": raised there, in those words."""
    return any(
        _same_error(_raised_in(p, found["stage"]), found) for p in _in_kind(a, found["dtype"])
    )


def _ran_on(found, a) -> bool:
    """ "<stage> ran on <kind> x with the same numbers, threshold and width": it ran there
    (forward gave back, or backward returned), and raised on x of the other kind."""
    stage, kind = found["stage"], found["dtype"]
    other = "float64" if kind == "float32" else "float32"
    ran = [
        p
        for p in _in_kind(a, kind)
        if _raised_in(p, stage) is None and (stage == "forward" or p.facts.returned != "not run")
    ]
    return bool(ran) and any(_raised_in(p, stage) is not None for p in _in_kind(a, other))


def _came_through(found, a) -> bool:
    """ "your line `L`": L is a line of the attempt's own source that an error's traceback
    passed through; for "your own assert/raise", L is that statement and raised it."""
    line = found["line"]
    if line not in {row.strip() for row in a.source.splitlines()}:
        return False
    raised = [
        getattr(p.facts, f"{s}_raised") for p in check_probes(a) for s in ("forward", "backward")
    ]
    raised = [r for r in raised if r is not None and line in r.through]
    if not found["own"]:
        return bool(raised)
    statement = found["own"]
    own = [r for r in raised if r.through[-1] == line and re.search(rf"\b{statement}\b", line)]
    return bool(own) and (statement != "assert" or own[0].kind == "AssertionError")


def _scaled_stopped(found, a) -> bool:
    """ "backward stopped with an error for grad_out = <g>: <error>", on the check's grad_out."""
    p = a.facts.scaled
    same_grad_out = same(quoted(found["g"]), flat(p.facts.grad_out))
    return same_grad_out and _same_error(_raised_in(p, "backward"), found)


ERROR_CLAIMS = [
    claim(
        "forward stopped with <error>",
        r"forward stopped with an error: (?P<kind>\w+): (?P<message>.*)$",
        _error("forward"),
    ),
    claim(
        "backward stopped with <error>",
        r"backward stopped with an error: (?P<kind>\w+): (?P<message>.*)$",
        _error("backward"),
    ),
    claim(
        "<stage> stopped with an error on <kind> x: <error>",
        r"(?P<stage>forward|backward) stopped with an error on (?P<dtype>float32|float64) x: "
        r"(?P<kind>\w+): (?P<message>.*)$",
        _stopped_on,
    ),
    claim(
        "<stage> ran on <kind> x with the same numbers, threshold and width",
        r"(?P<stage>forward|backward) ran on (?P<dtype>float32|float64) x with the same numbers, "
        r"threshold and width",
        _ran_on,
    ),
    claim(
        "the error came through your line <line> / your own <assert or raise>, on it",
        r"(?:The error came through|This is your own (?P<own>assert|raise), on) your line "
        r"`(?P<line>[^`]*)`",
        _came_through,
    ),
    claim(
        "torch.heaviside refuses two tensors of different kinds of numbers, as its message says",
        r"torch\.heaviside refuses two tensors of different kinds of numbers",
        lambda found, a: any(
            r is not None and "heaviside" in r.message and "different dtypes" in r.message
            for r in (p.facts.forward_raised for p in check_probes(a))
        ),
    ),
    claim(
        "backward stopped with an error for grad_out = <g>: <error>",
        r"backward stopped with an error for grad_out = (?P<g>\[[^\]]*\]): (?P<kind>\w+): "
        r"(?P<message>.*)$",
        _scaled_stopped,
    ),
    claim(
        "for grad_out = <g>, backward gave back no tensor of decimal numbers shaped like x first",
        r"for grad_out = (?P<g>\[[^\]]*\]), backward gave back no tensor of decimal numbers "
        r"shaped like x first",
        lambda found, a: (
            same(quoted(found["g"]), flat(a.facts.scaled.facts.grad_out))
            and _raised_in(a.facts.scaled, "backward") is None
            and a.facts.scaled.facts.returned != "not run"
            and first_gradient(a.facts.scaled) is None
        ),
    ),
    claim(
        "with grad_out all ones, backward gave back a gradient for x: only grad_out differed",
        r"With grad_out all ones, backward gave back a gradient for x, for the same x, threshold "
        r"and width: only grad_out differed",
        lambda found, a: (
            first_gradient(a.facts.ones) is not None and first_gradient(a.facts.scaled) is None
        ),
    ),
]
