"""Each learner's memory (their Unix user's processes) and the hub's, sampled from /proc."""

import contextlib
import pwd
import threading

from benchmarks.classroom.hub import Hub
from benchmarks.classroom.learners import Learner
from tools import lab_memory


class MemorySampler:
    """Peak memory of each learner's processes (their Unix user's) and of hub plus proxy."""

    def __init__(self, hub: Hub, learners: list[Learner]) -> None:
        self.hub, self.learners, self.hub_proxy = hub, learners, 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self) -> None:
        while not self.stopped.wait(1.0):
            owners: dict[int, list[int]] = {}
            for entry in lab_memory.PROC.iterdir():
                if entry.name.isdigit():
                    with contextlib.suppress(OSError):
                        owners.setdefault(entry.stat().st_uid, []).append(int(entry.name))
            for learner in self.learners:
                try:
                    uid = pwd.getpwnam(learner.name).pw_uid
                except KeyError:
                    continue
                if owners.get(uid):
                    used = lab_memory.usage(owners[uid]).total
                    learner.peak = max(learner.peak, used)
            pids = [self.hub.process.pid, self.hub.proxy_pid()]
            used = lab_memory.usage([p for p in pids if p]).total
            self.hub_proxy = max(self.hub_proxy, used)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=30)
