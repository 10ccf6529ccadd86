"""tools/lab_memory.py: a process tree's memory from /proc, shared pages held once."""

import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from tools.lab_memory import (
    PROC,
    Usage,
    descendants,
    distinct,
    parent_of,
    tree_usage,
    usage,
    watching,
)

pytestmark = pytest.mark.skipif(
    not PROC.joinpath("self", "smaps_rollup").exists(), reason="Linux only"
)
MB = 1 << 20
# A parent that fills 200 MB, forks (the child shares those pages until it writes), and
# reports the child's pid; both then sleep until killed.
FORKED = """
import os, sys, time
data = b"x" * (200 << 20)
child = os.fork()
if child:
    print(child, flush=True)
time.sleep(60)
"""
# Holds 300 MB for a moment, then lets go of it.
SPIKE = """
import sys, time
print("start", flush=True)
time.sleep(0.5)
data = b"x" * (300 << 20)
time.sleep(3)  # long enough for a sampler starved on a busy machine
del data
print("done", flush=True)
time.sleep(60)
"""


@pytest.fixture
def forked():
    parent = subprocess.Popen([sys.executable, "-c", FORKED], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    yield parent.pid, child
    parent.kill()
    parent.wait()
    subprocess.run(["kill", str(child)], check=False)


def test_descendants_are_children_and_their_children(forked):
    parent, child = forked
    assert parent_of(child) == parent
    assert descendants(parent) == [child]
    assert {parent, child} <= set(descendants(parent_of(parent)))


def test_a_forked_copy_doubles_rss_but_its_shared_pages_are_held_once(forked):
    both = usage(list(forked))
    assert both.processes == 2
    assert both.rss > 400 * MB  # each process counts the shared 200 MB
    assert 200 * MB < both.pss < 300 * MB  # split between the two
    if both.held is None:
        pytest.skip("page numbers are shown to root only")
    assert 200 * MB < both.held < 300 * MB and both.pss <= both.held <= both.rss
    assert both.total == both.held


def test_the_tree_below_a_process_leaves_the_process_itself_out(forked):
    parent, child = forked
    below = tree_usage(parent)
    assert below.processes == 1
    # The child's pages, give or take one the kernel touched between the two reads, and
    # not the parent's 200 MB as well.
    assert abs(below.rss - usage([child]).rss) < MB
    assert below.rss < usage([parent, child]).rss - 100 * MB


@pytest.mark.parametrize("size", [0, 1, 2, 1000])
def test_distinct_counts_each_page_number_once(size):
    numbers = np.random.default_rng(size).integers(0, size // 3 + 1, size).astype(np.uint64)
    assert distinct(numbers) == len(set(numbers.tolist()))


def test_a_process_that_has_gone_counts_nothing():
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    assert parent_of(done.pid) is None
    assert usage([done.pid]) == Usage(0, 0, 0, 0)


def test_watching_keeps_the_peak_of_a_spike_that_has_passed():
    # The spike runs under a shell of its own, whose tree is watched: the tree below this
    # worker would hold whatever else it started (kernels, a browser), slow to sample.
    shell = subprocess.Popen(
        ["sh", "-c", '"$0" -c "$1"; :', sys.executable, SPIKE],  # `; :` keeps sh as parent
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        with watching(shell.pid, interval=0.1) as memory:
            assert shell.stdout.readline() == "start\n"
            (spike,) = descendants(shell.pid)
            assert shell.stdout.readline() == "done\n"  # the 300 MB are gone again
            after = usage([spike])
    finally:
        os.killpg(shell.pid, signal.SIGKILL)
        shell.wait()
    assert after.rss < 200 * MB
    assert memory.peak.rss > 300 * MB
