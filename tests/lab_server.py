"""Start the real `make lab` on a free loopback port with a token only the test knows."""

import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Lab:
    base: str  # http://127.0.0.1:PORT
    token: str
    port: int
    log: Path
    pid: int  # of `make lab`: JupyterLab's server and its kernels run below it


def free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(url: str) -> int:
    """HTTP status of a GET, or 0 when nothing listens."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except urllib.error.URLError:
        return 0


@contextmanager
def running_lab(
    *extra_args: str, name: str = "lab", course_dir: Path | None = None, env: dict | None = None
) -> Iterator[Lab]:
    """`make lab` with --no-browser and extra JupyterLab options; stopped on exit."""
    port, token = free_loopback_port(), secrets.token_hex(16)
    log = ROOT / "build" / f"test-{name}.log"
    log.parent.mkdir(exist_ok=True)
    args = " ".join(["--no-browser", f"--ServerApp.port={port}", *extra_args])
    with log.open("w") as out:
        server = subprocess.Popen(
            ["make", "-s", "lab", f"LAB_ARGS={args}"]
            + ([f"COURSE_DIR={course_dir}"] if course_dir else []),
            cwd=ROOT,
            env={**os.environ, **(env or {}), "JUPYTER_TOKEN": token},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # so the whole make -> jupyter tree can be stopped
        )
    lab = Lab(f"http://127.0.0.1:{port}", token, port, log, server.pid)
    try:
        deadline = time.monotonic() + 90
        while status(f"{lab.base}/api/status?token={token}") != 200:
            if server.poll() is not None:
                raise RuntimeError(f"make lab exited early:\n{log.read_text()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"make lab never answered:\n{log.read_text()}")
            time.sleep(0.3)
        yield lab
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a kernel slow to shut down must not outlive the test
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
