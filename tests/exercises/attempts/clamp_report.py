"""The Clamp01 attempts' report, per check: attempts generated, distinct after deduplication, right
and wrong, and what the verdicts got wrong, by rule and claim kind, with one example each.

    python -m tests.exercises.attempts.clamp_report (report.py runs it too)
"""

import torch

from tests.exercises.attempts.clamp_attempts import generate, hypothesis_examples
from tests.exercises.attempts.clamp_claims import UNVERIFIED
from tests.exercises.attempts.clamp_findings import CHECKS, findings, outcomes


def main() -> None:
    torch.set_num_threads(1)
    for part, (name, _) in CHECKS.items():
        with hypothesis_examples():
            generated = len(generate(part))
        done = outcomes(part)
        attempts = [o for o in done if o.attempt.wrong is None]
        rights = [o.right for o in attempts]
        print(f"== {name}")
        print(
            f"attempts generated {generated}; distinct {len(attempts)}; wrong arguments {len(done) - len(attempts)}"
        )
        print(
            f"right {rights.count(True)}; wrong {rights.count(False)}; undecided {rights.count(None)}"
        )
        for rule, items in findings(part).items():
            verdicts = len({id(f.outcome) for f in items})
            print(f"  {rule}: {len(items)} in {verdicts} verdicts")
            if items:
                example = items[0]
                print("    e.g. " + example.outcome.attempt.shown().replace("\n", "\n         "))
                print(
                    "         output: "
                    + (example.outcome.text or example.outcome.escaped).replace(
                        "\n", "\n                 "
                    )
                )
                print(f"         false: {example.claim}")
    print("== claim kinds not verified")
    for kind, why in UNVERIFIED:
        print(f"  {kind}: {why}")


if __name__ == "__main__":
    main()
