"""Each learner's processes in a control group of their own (hub/class_cgroups.py): the
files written in v1's and v2's layouts, a read-only tree detected, and, where this machine
lets root make groups, a process past its group's memory limit stopped and no other."""

import errno
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.lab_server import ROOT

sys.path.insert(0, str(ROOT / "hub"))  # hub/ is not a package
import class_cgroups

MIB = 1 << 20
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="control groups are root's to make")


def read(path: Path) -> str:
    return path.read_text().strip()


def test_the_mounted_trees_and_this_processs_groups_are_read(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "tmpfs /sys/fs/cgroup tmpfs rw 0 0\n"
        "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,relatime,cpu,cpuacct 0 0\n"
        "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
        "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"
    )
    found = class_cgroups.mounts(mounts)
    assert found["cpu"] == found["cpuacct"] == Path("/sys/fs/cgroup/cpu,cpuacct")
    assert found["memory"] == Path("/sys/fs/cgroup/memory")
    assert found["v2"] == Path("/sys/fs/cgroup/unified")
    groups = tmp_path / "cgroup"
    groups.write_text("4:memory:/a/b\n1:cpu,cpuacct:/\n0::/c\n")
    assert class_cgroups.own_groups(groups) == {
        "memory": "/a/b",
        "cpu": "/",
        "cpuacct": "/",
        "v2": "/c",
    }


@as_root
def test_v2_a_learners_group_has_the_limits_and_an_equal_weight(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    made = class_cgroups.controller("lessons-class-8000", root=tmp_path, table=dict)
    assert isinstance(made, class_cgroups.Controller) and made.version == 2
    base = tmp_path / "lessons-class-8000"
    assert read(tmp_path / "cgroup.subtree_control") == read(base / "cgroup.subtree_control")
    assert read(base / "cgroup.subtree_control") == "+memory +cpu"
    assert read(base / "cpu.weight") == str(min(100 * (os.cpu_count() or 1), 10_000))
    made.learner("ada", 2048 * MIB, 1.5)
    assert read(base / "ada" / "memory.max") == str(2 << 30)
    assert read(base / "ada" / "cpu.weight") == "100"
    assert read(base / "ada" / "cpu.max") == "150000 100000"


@as_root
def test_v1_a_learners_groups_have_the_limits_and_equal_shares(tmp_path, monkeypatch):
    trees = {"memory": tmp_path / "memory", "cpu": tmp_path / "cpu"}
    monkeypatch.setattr(class_cgroups, "own_groups", lambda: {"memory": "/job", "cpu": "/"})
    (trees["memory"] / "job").mkdir(parents=True)
    trees["cpu"].mkdir()
    made = class_cgroups.controller("lessons-class-8000", root=tmp_path, table=lambda: trees)
    assert isinstance(made, class_cgroups.Controller) and made.version == 1
    memory, cpu = (
        trees["memory"] / "job" / "lessons-class-8000",
        trees["cpu"] / "lessons-class-8000",
    )
    assert read(cpu / "cpu.shares") == str(1024 * (os.cpu_count() or 1))
    (memory / "ada").mkdir()  # as the kernel makes a group's files: memsw where swap is counted
    (memory / "ada" / "memory.memsw.limit_in_bytes").touch()
    made.learner("ada", 2048 * MIB, None)  # a group left behind: reused
    assert read(memory / "ada" / "memory.limit_in_bytes") == str(2 << 30)
    assert read(cpu / "ada" / "cpu.shares") == "1024"
    assert not (cpu / "ada" / "cpu.cfs_quota_us").exists()  # no CPU limit in the values


def test_a_read_only_tree_is_said_in_a_few_words(tmp_path, monkeypatch):
    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(class_cgroups.os, "geteuid", lambda: 0)
    monkeypatch.setattr(Path, "mkdir", read_only)
    trees = {"memory": tmp_path / "memory", "cpu": tmp_path / "cpu"}
    said = class_cgroups.controller("lessons-class-8000", root=tmp_path, table=lambda: trees)
    assert said == f"{tmp_path} is read-only here (this container does not delegate control groups)"


def test_without_memory_and_cpu_trees_it_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(class_cgroups.os, "geteuid", lambda: 0)
    said = class_cgroups.controller("x", root=tmp_path, table=lambda: {"pids": tmp_path})
    assert said == "no memory and cpu control groups are mounted in /sys/fs/cgroup"


# Allocates and touches 256 MiB, 4 MiB at a time, then says so.
GROW = "b = [bytearray(4 << 20) for _ in range(64)]; print('held 256 MiB', flush=True)"


@as_root
def test_on_this_machine_a_process_past_its_learners_limit_is_stopped_and_no_other():
    made = class_cgroups.controller(f"lessons-class-test-{uuid.uuid4().hex[:6]}")
    if isinstance(made, str):
        pytest.skip(f"control groups cannot be made here: {made}")
    try:
        small = made.learner("small", 96 * MIB, None)
        roomy = made.learner("roomy", 512 * MIB, None)
        runs = {
            name: subprocess.run(
                [sys.executable, "-c", GROW], preexec_fn=group.join, capture_output=True, timeout=60
            )
            for name, group in (("small", small), ("roomy", roomy))
        }
        assert runs["small"].returncode == -9  # SIGKILL: the kernel's out-of-memory killer
        assert runs["roomy"].returncode == 0 and runs["roomy"].stdout == b"held 256 MiB\n"
    finally:
        made.remove()
    assert not any(base.exists() for base in made.bases.values())
