"""`make lab` serves the course map on loopback only, behind JupyterLab's token."""

import re
import socket
import urllib.request

import pytest

from tests.lab_server import running_lab, status


@pytest.fixture(scope="module")
def lab():
    with running_lab() as lab:
        yield lab


def test_lab_serves_the_course_map_with_the_token(lab):
    base, token = lab.base, lab.token
    assert status(f"{base}/api/contents/00-start-here.ipynb?token={token}") == 200
    assert status(f"{base}/lab/tree/00-start-here.ipynb?token={token}") == 200


def test_lab_refuses_requests_without_the_token(lab):
    base = lab.base
    assert status(f"{base}/api/status") == 403
    assert status(f"{base}/api/contents/00-start-here.ipynb") == 403
    assert status(f"{base}/api/status?token=wrong") == 403


def test_lab_listens_on_127_0_0_1_only(lab):
    port, log = lab.port, lab.log
    assert re.search(rf"http://127\.0\.0\.1:{port}/", log.read_text())
    # Bound to 127.0.0.1 itself, not to every address: another loopback address is refused.
    with socket.socket() as s, pytest.raises(OSError):
        s.settimeout(2)
        s.connect(("127.0.0.2", port))


def test_lab_opens_the_course_map(lab):
    base, token = lab.base, lab.token
    with urllib.request.urlopen(f"{base}/?token={token}", timeout=5) as response:
        assert response.url.startswith(f"{base}/lab/tree/00-start-here.ipynb")


def test_lab_does_not_offer_to_install_extensions_from_the_network(lab):
    log = lab.log
    assert "Extension Manager is 'readonly'" in log.read_text()


def test_lab_does_not_ask_to_fetch_jupyter_news(lab):
    with urllib.request.urlopen(f"{lab.base}/lab?token={lab.token}", timeout=5) as response:
        page = response.read().decode()
    assert '"disabledExtensions": ["@jupyterlab/apputils-extension:announcements"]' in page
