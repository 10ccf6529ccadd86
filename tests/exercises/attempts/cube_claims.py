"""check_cube's claim-checkers: the Function claims, and the sentences only check_cube says
(the slope alone, grad_out added, multiplied by a number you wrote in, the notepad)."""

from tests.exercises.attempts.claims import YOU_PASSED, claim
from tests.exercises.attempts.doctor_claims import doctor_line_claims
from tests.exercises.attempts.function_claims import function_claims, gave, one, probe


def _slope(p):
    return 3 * p.x**2


def _scaled_slope(found, attempt) -> bool:
    """ "multiplied the slope by k every time ... not a number you wrote in": the same k on
    both probes, whose grad_outs differ (k = 11.5, grad_out's sum, is not the same twice)."""
    k = float(found["k"])
    return gave(lambda p: k * _slope(p))(found, attempt)


def _saved_group(found, attempt) -> bool:
    """ "ctx.saved_tensors holds a group (a tuple) of saved tensors": forward saved something,
    and backward then used the group as a tensor (it raised)."""
    p = probe(attempt)
    return p.saved_count >= 1 and p.backward_raised is not None


CUBE_CLAIMS = [
    YOU_PASSED,
    *function_claims(lambda x: x**3),
    claim(
        "backward gave back the slope alone, whatever arrived",
        r"backward gave back the slope 3·x² alone, whatever arrived",
        gave(_slope),
    ),
    claim(
        "backward gave back grad_out unchanged",
        r"backward gave back grad_out unchanged",
        gave(lambda p: p.grad_out),
    ),
    claim(
        "backward added grad_out and the slope",
        r"backward added grad_out and the slope",
        gave(lambda p: p.grad_out + _slope(p)),
    ),
    claim(
        "multiplied the slope by <k> every time, not a number you wrote in",
        r"backward multiplied the slope by (?P<k>-?[\d.e+-]+|nan|inf) every time",
        _scaled_slope,
        lambda found, a: (
            f"backward gave back {one(probe(a))!r} for grad_out {probe(a).grad_out}"
            f" and {one(a.facts.other)!r} for grad_out {a.facts.other.grad_out}"
        ),
    ),
    claim(
        "the 3 is missing",
        r"the 3 is missing",
        gave(lambda p: p.grad_out * p.x**2),
    ),
    claim(
        "backward multiplied by 3 * x * 2",
        r"backward multiplied by 3 \* x \* 2",
        gave(lambda p: p.grad_out * 6 * p.x),
    ),
    claim(
        "x is not squared",
        r"The slope of x³ is 3·x², with x squared",
        lambda found, a: (
            gave(lambda p: p.grad_out * 3 * p.x)(found, a)
            or gave(lambda p: p.grad_out * 2 * p.x)(found, a)
        ),
    ),
    claim(
        "backward multiplied grad_out by x³",
        r"backward multiplied grad_out by x³",
        gave(lambda p: p.grad_out * p.x**3),
    ),
    claim(
        "the sign is flipped",
        r"The sign is flipped",
        gave(lambda p: -p.grad_out * _slope(p)),
    ),
    claim(
        "backward changed grad_out itself",
        r"backward changed grad_out itself",
        lambda found, a: any(p.grad_out_changed for p in a.facts.probes),
    ),
    claim(
        "backward changed x itself",
        r"backward changed x itself",
        lambda found, a: any(
            p.x_changed_by_backward or p.saved_changed_by_backward for p in a.facts.probes
        ),
    ),
    claim(
        "forward wrote x on the notepad as ctx.x = x",
        r"forward wrote x on the notepad as ctx\.x = x",
        lambda found, a: "x" in probe(a).ctx_tensors,
    ),
    claim(
        "backward uses a name that does not exist there",
        r"backward uses a name that does not exist there",
        lambda found, a: getattr(probe(a).backward_raised, "kind", "") == "NameError",
    ),
    claim(
        "ctx.saved_tensors holds a group (a tuple): forward saved something",
        r"ctx\.saved_tensors holds a group \(a tuple\)",
        _saved_group,
        lambda found, a: (
            f"forward saved {probe(a).saved_count} tensors; backward raised "
            f"{probe(a).backward_raised}"
        ),
    ),
    *doctor_line_claims(),
]

# Sentences check_cube says that this test cannot verify, and why.
UNVERIFIED = [
    ("forward changed. / Keep forward as the starter wrote it", "advice, not a fact"),
    ("Did the word return go missing from its last line?", "a question, not a claim"),
]
