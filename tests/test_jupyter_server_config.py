"""binder/jupyter_server_config.py: under Binder's memory limit, at most two kernels run."""

import runpy
from datetime import UTC, datetime, timedelta

import pytest
from jupyter_server.services.kernels.kernelmanager import MappingKernelManager
from traitlets.config import Config

from tests.lab_server import ROOT

GIB = 1 << 30
T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def config():
    """The file as the server runs it: its names, and the `c` it fills in."""
    c = Config()
    names = runpy.run_path(str(ROOT / "binder" / "jupyter_server_config.py"), {"c": c})
    return names, c


def test_the_server_uses_the_course_kernel_manager(config):
    names, c = config
    assert c.ServerApp.kernel_manager_class is names["CourseKernelManager"]
    assert issubclass(names["CourseKernelManager"], MappingKernelManager)


@pytest.mark.parametrize(
    ("mem_limit", "allowed"),
    [
        (None, 0),  # a laptop: no JupyterHub, no limit
        (str(2 * GIB), 2),  # mybinder.org
        (str(4 * GIB), 2),
        (str(4 * GIB + 1), 0),
        (str(16 * GIB), 0),
        ("0", 0),
        ("2G", 0),  # JupyterHub writes bytes; anything else is not its limit
    ],
)
def test_two_kernels_are_allowed_under_a_jupyterhub_memory_limit_of_4_gib_or_less(
    config, mem_limit, allowed
):
    environ = {} if mem_limit is None else {"MEM_LIMIT": mem_limit}
    assert config[0]["kernels_allowed"](environ) == allowed


def test_the_manager_takes_its_limit_from_the_environment_unless_configured(config, monkeypatch):
    manager = config[0]["CourseKernelManager"]
    monkeypatch.setenv("MEM_LIMIT", str(2 * GIB))
    assert manager().max_kernels == 2
    assert manager(max_kernels=5).max_kernels == 5
    monkeypatch.delenv("MEM_LIMIT")
    assert manager().max_kernels == 0


def idle(minutes_ago: int) -> tuple[str, datetime]:
    return "idle", T0 - timedelta(minutes=minutes_ago)


def test_the_least_recently_used_kernels_are_stopped_first(config):
    to_stop = config[0]["kernels_to_stop"]
    kernels = {"map": idle(60), "track": idle(5), "exercise": idle(30)}
    assert to_stop(kernels, 1) == ["map", "exercise"]
    assert to_stop(kernels, 2) == ["map"]
    assert to_stop(kernels, 3) == []


def test_a_busy_or_starting_kernel_is_never_stopped(config):
    to_stop = config[0]["kernels_to_stop"]
    kernels = {"busy": ("busy", T0 - timedelta(hours=2)), "new": ("starting", None), "old": idle(1)}
    assert to_stop(kernels, 1) == ["old"]
    assert to_stop({"busy": kernels["busy"], "new": kernels["new"]}, 1) == []


def test_a_dead_kernel_is_stopped_before_a_live_one(config):
    to_stop = config[0]["kernels_to_stop"]
    assert to_stop({"dead": ("dead", T0 - timedelta(minutes=1)), "live": idle(9)}, 1) == ["dead"]
