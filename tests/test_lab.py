"""`make lab` serves the course map on loopback only, behind JupyterLab's token."""

import os
import re
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except urllib.error.URLError:
        return 0  # not listening (yet)


@pytest.fixture(scope="module")
def lab():
    """The real `make lab`, on a free port, with a token only this test knows."""
    port, token = free_loopback_port(), secrets.token_hex(16)
    log = ROOT / "build" / "test-lab.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("w") as out:
        server = subprocess.Popen(
            ["make", "-s", "lab", f"LAB_ARGS=--no-browser --ServerApp.port={port}"],
            cwd=ROOT,
            env={**os.environ, "JUPYTER_TOKEN": token},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # so the whole make -> jupyter tree can be stopped
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while status(f"{base}/api/status?token={token}") != 200:
            assert server.poll() is None, f"make lab exited early:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"make lab never answered:\n{log.read_text()}"
            time.sleep(0.5)
        yield base, token, port, log
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_lab_serves_the_course_map_with_the_token(lab):
    base, token, _, _ = lab
    assert status(f"{base}/api/contents/00-start-here.ipynb?token={token}") == 200
    assert status(f"{base}/lab/tree/00-start-here.ipynb?token={token}") == 200


def test_lab_refuses_requests_without_the_token(lab):
    base, _, _, _ = lab
    assert status(f"{base}/api/status") == 403
    assert status(f"{base}/api/contents/00-start-here.ipynb") == 403
    assert status(f"{base}/api/status?token=wrong") == 403


def test_lab_listens_on_127_0_0_1_only(lab):
    _, _, port, log = lab
    assert re.search(rf"http://127\.0\.0\.1:{port}/", log.read_text())
    # Bound to 127.0.0.1 itself, not to every address: another loopback address is refused.
    with socket.socket() as s, pytest.raises(OSError):
        s.settimeout(2)
        s.connect(("127.0.0.2", port))


def test_lab_opens_the_course_map(lab):
    base, token, _, _ = lab
    with urllib.request.urlopen(f"{base}/?token={token}", timeout=5) as response:
        assert response.url.startswith(f"{base}/lab/tree/00-start-here.ipynb")


def test_lab_does_not_offer_to_install_extensions_from_the_network(lab):
    _, _, _, log = lab
    assert "Extension Manager is 'readonly'" in log.read_text()
