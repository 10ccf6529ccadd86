"""Wrong (and right) attempts at the exercises, generated, run through each self-check, and
every mark and sentence of the verdict checked against what the attempt itself did.

Generic parts, for any exercise's attempts:
- loading.py        learner source imported as a module from a file (inspect.getsource works)
- mutate.py         AST mutations of a source: operators, first and second order
- arguments.py      the wrong arguments a learner passes, and the "you passed <what>" verifier
- verdict_text.py   reading a verdict: headline, marked case lines, tracebacks, one-line refusals
- distinct.py       deduplication by a behaviour signature computed by running the attempt
- claims.py         claim-checkers: a pattern over the verdict plus a verifier over facts
- judging.py        one attempt through one check: every problem found, by kind
- report.py         per check: attempts, distinct, right/wrong, false claims by kind

Per check: <check>_attempts.py builds the attempts, <check>_facts.py records what an attempt
does and holds the oracles for each case's property.
"""
