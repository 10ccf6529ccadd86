"""The class's hub for the benchmark: started as `make class` starts it, stopped with its users."""

import contextlib
import io
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

from tools import class_accounts, class_hub, lab_memory

ROOT = class_hub.ROOT
PASSWORD = "class-" + secrets.token_hex(6)
TEACHER_PASSWORD = secrets.token_hex(16)
# The runs' own class folder (environment, course repository): never a live class's
# (`make class`: /srv/lessons-class), whose environment a run would rebuild under it. Two
# runs at once on one machine: the second is refused, naming the first (tools/class_hub.py).
PREFIX = Path("/srv/lessons-class-test")
CULL_EVERY = 5  # seconds between the idle culler's looks at the hub's activity record


class Hub:
    """The class's hub, started as `make class` starts it; stopped with its users."""

    def __init__(self, prefix: str, cull_timeout: int, log: Path, place: Path = PREFIX) -> None:
        self.prefix, self.log, self.place = prefix, log, place
        self.cull_timeout = cull_timeout
        self.port = class_hub.free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.state = Path(tempfile.mkdtemp(prefix="class-state-"))
        self.teacher = f"{prefix}teacher"
        command = [
            sys.executable, "-m", "tools.class_hub", f"--port={self.port}",
            f"--prefix={place}", f"--state={self.state}", f"--teacher={self.teacher}", f"--password={PASSWORD}",
            f"--teacher-password={TEACHER_PASSWORD}", f"--cull-timeout={cull_timeout}",
            f"--cull-every={CULL_EVERY}", "--activity-interval=5",
        ]  # fmt: skip
        with log.open("w") as out:  # in the background, as a script starts `make class &`:
            self.process = subprocess.Popen(  # Ctrl-C's SIGINT ignored, its own process group
                command,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
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

    def started(self, command: bytes) -> int | None:
        """The pid of the hub's process whose command line holds `command`."""
        for pid in lab_memory.descendants(self.process.pid):
            try:
                if command in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
            except OSError:
                pass
        return None

    def proxy_pid(self) -> int | None:
        return self.started(b"configurable-http-proxy")

    def culler_heeds_ctrl_c(self) -> bool:
        """Whether the idle culler acts on SIGINT (the hub's way of stopping it)."""
        pid = self.started(b"jupyterhub_idle_culler")
        status = Path(f"/proc/{pid}/status").read_text().splitlines() if pid else []
        ignored = [int(line.split()[1], 16) for line in status if line.startswith("SigIgn:")]
        return bool(ignored) and not ignored[0] & (1 << (signal.SIGINT - 1))

    def interrupt(self, seconds: float = 120) -> float | None:
        """Ctrl-C, as a terminal sends it (SIGINT to the hub's process group): the seconds
        until the hub and everything it started have stopped; None if they did not."""
        tree = [self.process.pid, *lab_memory.descendants(self.process.pid)]
        started = time.monotonic()
        os.killpg(self.process.pid, signal.SIGINT)
        while any(Path(f"/proc/{pid}").exists() for pid in tree):
            self.process.poll()  # reaps the hub once it exits
            if time.monotonic() - started > seconds:
                return None
            time.sleep(0.1)
        return time.monotonic() - started

    def remove_accounts(self) -> tuple[list[str], str]:
        """`make class-remove` for this class, confirmed: the names removed, what it said."""
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            removed = class_accounts.main(
                [f"--prefix={self.place}", f"--state={self.state}", "--yes"]
            )
        return removed, said.getvalue()

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
