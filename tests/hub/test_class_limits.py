"""The class's limits come from the Kubernetes values (hub/class_limits.py), and the hub's
first line says what is enforced, or why nothing is."""

import sys

import pytest
import yaml

from tests.lab_server import ROOT

sys.path.insert(0, str(ROOT / "hub"))  # hub/ is not a package
import class_limits


def test_make_class_gives_a_learner_the_memory_kubernetes_gives():
    values = yaml.safe_load((ROOT / "hub" / "z2jh" / "values.yaml").read_text())
    memory, cpus = class_limits.from_values()
    assert values["singleuser"]["memory"]["limit"] == values["custom"]["courseMemory"]["limit"]
    assert memory == class_limits.in_bytes(values["singleuser"]["memory"]["limit"]) == 2 << 30
    assert cpus == (values["singleuser"].get("cpu") or {}).get("limit")


def test_a_cpu_limit_in_the_values_reaches_the_class(tmp_path):
    values = tmp_path / "values.yaml"
    values.write_text("singleuser:\n  memory: {limit: 1G}\n  cpu: {guarantee: 0.5, limit: 2}\n")
    assert class_limits.from_values(values) == (1 << 30, 2.0)


@pytest.mark.parametrize(
    ("figure", "size"),
    [("2048M", 2 << 30), ("2G", 2 << 30), ("512K", 512 << 10), (2147483648, 2 << 30)],
)
def test_sizes_read_as_jupyterhub_and_kubespawner_read_them(figure, size):
    assert class_limits.in_bytes(figure) == size


def test_a_size_that_is_not_one_says_so():
    with pytest.raises(ValueError, match="'two gigs' is not a memory size such as 2G or 2048M"):
        class_limits.in_bytes("two gigs")


def test_the_first_line_says_what_is_enforced_and_how():
    said = class_limits.start_line(2 << 30, None, "control groups v2 (/sys/fs/cgroup/x)", None)
    assert said == (
        "Limits per learner, enforced with control groups v2 (/sys/fs/cgroup/x): 2.0 GiB of "
        "memory for their server, kernels and terminals together (past it, their biggest "
        "process, usually a kernel, is stopped) and an equal share of the CPU."
    )
    assert said.endswith("an equal share of the CPU, at most 1.5 cores.") is False
    capped = class_limits.start_line(2 << 30, 1.5, "control groups v1 (x)", None)
    assert capped.endswith("an equal share of the CPU, at most 1.5 cores.")


def test_the_first_line_says_when_nothing_is_enforced_and_why():
    why = "/sys/fs/cgroup is read-only here (this container does not delegate control groups)"
    said = class_limits.start_line(2 << 30, None, None, why)
    assert "\n" not in said
    assert said == (
        f"Limits per learner NOT enforced: {why}. Each server is told its 2.0 GiB (MEM_LIMIT), "
        "but one learner's kernel can still take the machine's memory and CPU."
    )
