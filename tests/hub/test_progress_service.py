"""The teacher's progress page stops quietly (hub/progress_service.py): on SIGINT, which the
hub sends it as it stops (Ctrl-C on `make class`), and on SIGTERM, it closes its port and
exits 0, printing nothing."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.lab_server import ROOT, free_loopback_port
from tools.class_env import installed

SERVICE = ROOT / "hub" / "progress_service.py"
CLASS_ENV = Path("/srv/lessons-class-test/env")  # the class test's environment
# Without that environment (it holds JupyterHub; .venv does not), or while the class test on
# the other worker is still installing it (tools/class_env.installed), the two classes the
# service takes from JupyterHub stand in: stopping involves neither.
STAND_INS = """from tornado import web

class HubOAuthenticated:
    pass

class HubOAuthCallbackHandler(web.RequestHandler):
    pass
"""


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def service(tmp_path):
    """The service started as the hub starts it (its environment variables), listening."""
    env = {**os.environ, "CLASS_STATE": str(tmp_path), "CLASS_DEMO": "0"}
    python = CLASS_ENV / "bin" / "python"
    if not installed(CLASS_ENV):
        python = Path(sys.executable)
        auth = tmp_path / "stand-ins" / "jupyterhub" / "services" / "auth.py"
        auth.parent.mkdir(parents=True)
        for package in (auth.parent, auth.parent.parent):
            (package / "__init__.py").write_text("")
        auth.write_text(STAND_INS)
        env["PYTHONPATH"] = str(tmp_path / "stand-ins")
    port = free_loopback_port()
    env |= {
        "JUPYTERHUB_SERVICE_PREFIX": "/services/progress/",
        "JUPYTERHUB_OAUTH_CALLBACK_URL": "/services/progress/oauth_callback",
        "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}",
    }
    started = subprocess.Popen(
        [python, SERVICE], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 30
        while not listening(port):
            assert started.poll() is None, started.communicate()[1]
            assert time.monotonic() < deadline, "the service never listened"
            time.sleep(0.1)
        yield started, port
    finally:
        if started.poll() is None:
            started.kill()
            started.communicate()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_service_stops_at_once_without_a_traceback(service, sig):
    started, port = service
    started.send_signal(sig)
    out, err = started.communicate(timeout=10)
    assert (started.returncode, out, err) == (0, "", "")
    assert not listening(port)
