"""The class's hub for the benchmark: started as `make class` starts it, stopped with its users."""

import os
import pwd
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from tools import class_hub, lab_memory

ROOT = class_hub.ROOT
PASSWORD = "class-" + secrets.token_hex(6)
TEACHER_PASSWORD = secrets.token_hex(16)
# The runs' own class folder (environment, course repository): never a live class's
# (`make class`: /srv/lessons-class), whose environment a run would rebuild under it. Two
# runs at once on one machine: the second is refused, naming the first (tools/class_hub.py).
PREFIX = Path("/srv/lessons-class-test")


class Hub:
    """The class's hub, started as `make class` starts it; stopped with its users."""

    def __init__(self, prefix: str, cull_timeout: int, log: Path, place: Path = PREFIX) -> None:
        self.prefix, self.log, self.place = prefix, log, place
        self.port = class_hub.free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.state = Path(tempfile.mkdtemp(prefix="class-state-"))
        self.teacher = f"{prefix}teacher"
        command = [
            sys.executable, "-m", "tools.class_hub", f"--port={self.port}",
            f"--prefix={place}", f"--state={self.state}", f"--teacher={self.teacher}", f"--password={PASSWORD}",
            f"--teacher-password={TEACHER_PASSWORD}", f"--cull-timeout={cull_timeout}",
            "--cull-every=5", "--activity-interval=5",
        ]  # fmt: skip
        with log.open("w") as out:
            self.process = subprocess.Popen(
                command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def wait(self, seconds: float = 300) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                if requests.get(f"{self.base}/hub/api/", timeout=5).status_code == 200:
                    return
            except requests.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the hub never answered:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.3)

    def proxy_pid(self) -> int | None:
        for pid in lab_memory.descendants(self.process.pid):
            try:
                if b"configurable-http-proxy" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
            except OSError:
                pass
        return None

    def second_hub_refused(self) -> tuple[str, bool]:
        """A second `make class` on this hub's prefix, while it runs: its one line, and
        whether this hub still answers afterwards."""
        second = subprocess.run(
            [sys.executable, "-m", "tools.class_hub", f"--port={class_hub.free_port()}",
             f"--prefix={self.place}", f"--state={self.state}-second"],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        said = second.stderr.strip() if second.returncode else f"STARTED: {second.stdout[-300:]}"
        return said, requests.get(f"{self.base}/hub/api/", timeout=10).status_code == 200

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # the hub stops servers, proxy, culler
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        for entry in pwd.getpwall():  # our users' leftover processes, then the users
            if entry.pw_name.startswith(self.prefix):
                subprocess.run(["pkill", "-KILL", "-u", entry.pw_name], check=False)
                subprocess.run(
                    ["userdel", "--remove", entry.pw_name], check=False, capture_output=True
                )
        subprocess.run(["rm", "-rf", str(self.state)], check=False)
