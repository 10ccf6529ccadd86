"""How long the gradient doctor takes per check, over its whole catalogue.

    .venv/bin/python -m benchmarks.doctor [--repeat N] [--corpus]

Every Function in tests/doctor_catalogue/ (learner mistakes and correct code), or with
--corpus in tests/doctor/corpus/ (Functions rewritten from public projects), is checked N
times in this one process, after one warm-up check each; the script prints the median and
the slowest per-Function time against the 20 ms target, so checking on every cell run
stays instant.
"""

import argparse
import statistics
import sys
import time

import torch

from lessons_lib.doctor.examination import check_function
from tests.doctor_catalogue import CORRECT, WRONG

TARGET_MS = 20.0


def cases(corpus: bool = False) -> list[tuple]:
    """(name, Function, reference, grad_reference, inputs) for every catalogue entry, or
    every corpus entry."""
    if corpus:
        from tests.doctor.corpus import ENTRIES

        return [(e.name, e.function, e.reference, e.grad_reference, e.inputs) for e in ENTRIES]
    wrong = [(w[0], *w[1:4], w[5] if len(w) > 5 else None) for w in WRONG]
    return wrong + [tuple(c) for c in CORRECT]


def time_check(case: tuple, repeat: int) -> float:
    """Median milliseconds for one check_function call."""
    _, fn, reference, grad_reference, inputs = case
    check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed checks per Function")
    parser.add_argument("--corpus", action="store_true", help="the Functions from projects")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # as on Binder
    timed = sorted(((time_check(c, args.repeat), c[0]) for c in cases(args.corpus)), reverse=True)
    median = statistics.median(t for t, _ in timed)
    slowest, slowest_name = timed[0]
    what = "corpus" if args.corpus else "catalogue"
    print(f"doctor over {len(timed)} {what} Functions, {args.repeat} timed checks each:")
    print(f"  median per check  {median:6.1f} ms   (target < {TARGET_MS:g} ms)")
    print(f"  slowest per check {slowest:6.1f} ms   ({slowest_name})")
    for ms, name in timed[:3]:
        print(f"    {ms:6.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
