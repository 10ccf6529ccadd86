"""The attempts' report: per check, how many attempts were generated and kept (distinct by
behaviour), how many are right and wrong, and the problems found by kind with one example
each. Run from the repository's root: python -m tests.exercises.attempts.report
(--counts: no examples; --claims: the claim kinds verified and those that are not)."""

import sys
import time
from collections.abc import Callable

from tests.exercises.attempts import clamp_report, specs
from tests.exercises.attempts.judging import Judged, judge_all, show


def _checks() -> dict[str, Callable[[], tuple[list, int, list[Judged]]]]:
    from tests.exercises.attempts.cube_attempts import cube_attempts
    from tests.exercises.attempts.cube_grad_attempts import cube_grad_attempts
    from tests.exercises.attempts.doctor_judging import judge_doctor
    from tests.exercises.attempts.nudge_attempts import nudge_attempts
    from tests.exercises.attempts.spike_attempts import spike_attempts
    from tests.exercises.attempts.straight_through_attempts import straight_through_attempts

    def through(attempts_of, spec):
        def run():
            attempts, generated = attempts_of()
            return attempts, generated, judge_all(spec(), attempts)

        return run

    def doctor():
        attempts, generated = cube_attempts()
        return attempts, generated, judge_doctor(attempts)

    return {
        "check_cube": through(cube_attempts, specs.cube),
        "check_cube_grad": through(cube_grad_attempts, specs.cube_grad),
        "check_straight_through": through(straight_through_attempts, specs.straight_through),
        "check_nudge": through(nudge_attempts, specs.nudge),
        "check_spike": through(spike_attempts, specs.spike),
        "check_function (the doctor, on the Cubes)": doctor,
    }


def _right(name: str, judged: Judged) -> bool | None:
    attempt = judged.attempt
    if attempt.facts is None:
        return None
    spec = {
        "check_cube": specs.cube,
        "check_cube_grad": specs.cube_grad,
        "check_straight_through": specs.straight_through,
        "check_nudge": specs.nudge,
        "check_spike": specs.spike,
    }.get(name, specs.cube)()
    return spec.right(attempt)


def report(examples: bool = True) -> str:
    lines = []
    for name, run in _checks().items():
        start = time.perf_counter()
        attempts, generated, judged = run()
        verdicts = [_right(name, j) for j in judged]
        right = sum(v is True for v in verdicts)
        wrong = sum(v is False for v in verdicts)
        arguments = sum(j.attempt.argument for j in judged)
        lines += [
            f"== {name}: {generated} attempts generated, {len(attempts)} distinct "
            f"({right} right, {wrong} wrong, {arguments} wrong arguments); "
            f"{time.perf_counter() - start:.1f} s",
        ]
        by_kind: dict[str, list[tuple[Judged, object]]] = {}
        for j in judged:
            for p in j.problems:
                by_kind.setdefault(p.kind, []).append((j, p))
        hit = {k: len({id(j) for j, _ in v}) for k, v in by_kind.items()}
        lines.append(
            f"   problems: {sum(map(len, by_kind.values()))} in "
            f"{sum(bool(j.problems) for j in judged)} attempts"
        )
        for kind in sorted(by_kind):
            lines.append(f"   {len(by_kind[kind]):4d} x {kind}  ({hit[kind]} attempts)")
            if examples:
                j, p = by_kind[kind][0]
                example = show(j.attempt, j.out, p)
                lines += ["        " + line for line in example.splitlines()[1:]]
    return "\n".join(lines)


def suites_report() -> str:
    """check_my_surrogate_tests on the generated suites: right or wrong, and false claims."""
    from tests.exercises.attempts.surrogate_tests_attempts import suite_attempts
    from tests.exercises.attempts.surrogate_tests_judging import false_claims, right

    start = time.perf_counter()
    attempts = suite_attempts()
    rights = [right(a) for a in attempts]
    found = [(a, claim) for a in attempts for claim in false_claims(a)]
    lines = [
        f"== check_my_surrogate_tests: {len(attempts)} distinct suites generated "
        f"({sum(rights)} right, {rights.count(False)} wrong); "
        f"{time.perf_counter() - start:.1f} s",
        f"   false marks or sentences: {len(found)} in {len({a.label for a, _ in found})} suites",
    ]
    lines += [f"   {a.label}: {claim}" for a, claim in found]
    return "\n".join(lines)


def claim_kinds() -> str:
    """The claim kinds each check's sentences are verified by, and those left unverified."""
    from tests.exercises.attempts import (
        cube_claims,
        cube_grad_claims,
        doctor_claims,
        doctor_judging,
        nudge_claims,
        spike_claims,
        straight_through_claims,
    )

    lines = []
    for name, kinds, module in (
        ("check_cube", cube_claims.CUBE_CLAIMS, cube_claims),
        ("check_cube_grad", cube_grad_claims.CUBE_GRAD_CLAIMS, cube_grad_claims),
        ("check_straight_through", straight_through_claims.ROUND_CLAIMS, straight_through_claims),
        ("check_nudge", nudge_claims.NUDGE_CLAIMS, nudge_claims),
        ("check_spike", spike_claims.SPIKE_CLAIMS, spike_claims),
        ("check_function", doctor_judging.DOCTOR_CLAIMS, doctor_claims),
    ):
        lines.append(f"== {name}: {len(kinds)} claim kinds verified")
        lines += [f"   + {k.name}" for k in kinds]
        lines += [f"   - not verified: {what} ({why})" for what, why in module.UNVERIFIED]
    return "\n".join(lines)


if __name__ == "__main__":
    if "--claims" in sys.argv:
        print(claim_kinds())
    else:
        print(report(examples="--counts" not in sys.argv))
        clamp_report.main()  # the Clamp01 exercise's two checks
        print(suites_report())
