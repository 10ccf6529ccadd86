"""Claim-checkers: each finds one kind of sentence about what the learner's code did (a regex
over the verdict's text) and checks it against the facts we recorded by running the attempt
(clamp_facts), independently of the lessons_lib code that wrote the sentence.

A claim-checker gives back the false claims it found, each as one line saying what the
verdict said and what the attempt in fact did. UNVERIFIED lists the claim kinds the checks
print that no checker verifies, and why.
"""

from tests.exercises.attempts.clamp_attempts import Attempt
from tests.exercises.attempts.clamp_check_claims import (
    correct_clamp,
    gradcheck_claims,
    property_claims,
)
from tests.exercises.attempts.clamp_claim_context import Checker, context
from tests.exercises.attempts.clamp_form_claims import headline, repeated_sentences
from tests.exercises.attempts.clamp_run_claims import (
    error_causes,
    found_nothing_wrong,
    gave_back,
    own_raise,
    raised,
    returned_false,
    you_passed,
)
from tests.exercises.attempts.clamp_sending_claims import (
    abs_grad_out_claims,
    backward_never_ran,
    every_grad_out_repeated,
    never_applied,
    quoted_numbers,
    repeated_grad_out,
)
from tests.exercises.attempts.clamp_verdict import Verdict

CHECKERS: dict[str, Checker] = {
    "you passed <what>": you_passed,
    "returned False": returned_false,
    "found nothing wrong": found_nothing_wrong,
    "gave back <value>": gave_back,
    "raised <Error> at <line>": raised,
    "numbers quoted as x, grad_out, x.grad": quoted_numbers,
    "grad_out one number repeated / a single number": repeated_grad_out,
    "every grad_out held one value repeated": every_grad_out_repeated,
    "backward never ran / only inside gradcheck": backward_never_ran,
    "apply never called / forward by hand": never_applied,
    "the error's cause": error_causes,
    "this Clamp01 is correct / its value at the edges": correct_clamp,
    "your own raise": own_raise,
    "the property test": property_claims,
    "gradcheck dropped / float32 / at a kink": gradcheck_claims,
    "every grad_out was 0 or more": abs_grad_out_claims,
    "headline counts": headline,
    "a cause stated twice": repeated_sentences,
}

FACTLESS = (you_passed, correct_clamp, headline, repeated_sentences)

UNVERIFIED = [
    (
        "the negative values of my_checks's grad_outs all reached points where the gradient is 0",
        "needs each grad_out paired with the points it was sent with; backward sees only grad_out",
    ),
    (
        "so a test suite built from it would pass this bug / this broken Clamp01 would get through",
        "a consequence of the returned value (verified as 'found nothing wrong' / 'gave back'), not a separate fact",
    ),
    (
        "gradcheck cannot see this one / every grad_out gradcheck sends is 0 or more",
        "facts about gradcheck and the broken Clamp01, not about the learner's code (tests/exercises/clamp cover them)",
    ),
    (
        "multiplied the slope by <number> / the sum of grad_out",
        "no sentence of this kind is printed by check_edge_test or check_my_checks",
    ),
]


def false_claims(attempt: Attempt, verdict: Verdict) -> dict[str, list[str]]:
    """Every false claim in one verdict, by kind."""
    ctx = context(attempt, verdict)
    # A wrong argument was never run: only what needs no run's facts is checked.
    checkers = (
        CHECKERS
        if attempt.facts is not None
        else {k: c for k, c in CHECKERS.items() if c in FACTLESS}
    )
    found = {kind: check(ctx) for kind, check in checkers.items()}
    return {kind: claims for kind, claims in found.items() if claims}
