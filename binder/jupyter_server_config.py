# Server settings of the course's environment: copied to sys.prefix/etc/jupyter by `make`
# and by binder/postBuild, so `make lab` and Binder run the same server.
#
# Binder gives a learner 1 to 2 GB. JupyterLab starts a kernel for every notebook opened and
# never stops one, and each course kernel holds 250-450 MB (torch): a learner who opens
# every notebook would run out. So under a small memory limit at most two kernels run at
# once: starting a third first stops the idle kernel used longest ago. Its notebook then
# shows "No Kernel", and running a cell there starts a fresh kernel (the course's NameError
# hint then says to run the cells above). JupyterHub, which Binder runs on, declares the
# limit in MEM_LIMIT; a laptop has none, so a teacher's kernels all stay up.
# benchmarks/lab_memory.py measures the effect; tests/ui/test_memory_in_browser.py holds it.
import os
from collections.abc import Mapping
from datetime import datetime

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Integer, default

SMALL = 4 << 30  # bytes: up to this limit, two kernels at most


def kernels_allowed(environ: Mapping[str, str] = os.environ) -> int:
    """2 under a JupyterHub memory limit (MEM_LIMIT, in bytes) of at most 4 GiB; else 0, any."""
    limit = environ.get("MEM_LIMIT", "")
    return 2 if limit.isdigit() and 0 < int(limit) <= SMALL else 0


def kernels_to_stop(kernels: dict[str, tuple[str, datetime | None]], room: int) -> list[str]:
    """Ids of kernels to stop so at most `room` remain: dead ones, then least recently used.

    `kernels` maps id -> (execution state, last activity). A busy or starting kernel is
    never stopped, so more than `room` remain while every surplus kernel is working.
    """
    stoppable = sorted(
        (state != "dead", when, kernel_id)
        for kernel_id, (state, when) in kernels.items()
        if state in ("idle", "dead") and when is not None
    )
    return [kernel_id for *_, kernel_id in stoppable[: max(len(kernels) - room, 0)]]


class CourseKernelManager(AsyncMappingKernelManager):
    """JupyterLab's kernel manager, but at most `max_kernels` kernels run at once."""

    max_kernels = Integer(
        config=True,
        help="How many kernels may run at once; 0 for any number. Default: kernels_allowed().",
    )

    @default("max_kernels")
    def _max_kernels_from_memory_limit(self) -> int:
        return kernels_allowed()

    async def start_kernel(self, *, kernel_id=None, path=None, **kwargs):
        new = kernel_id is None or kernel_id not in self  # not a reconnection
        if new and self.max_kernels > 0:
            running = {
                kid: (getattr(k, "execution_state", "starting"), getattr(k, "last_activity", None))
                for kid, k in self._kernels.items()
            }
            for old in kernels_to_stop(running, self.max_kernels - 1):
                self.log.info(
                    "Stopping kernel %s, the least recently used: at most %d run at once",
                    old,
                    self.max_kernels,
                )
                await self.shutdown_kernel(old)
        return await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)


c.ServerApp.kernel_manager_class = CourseKernelManager  # noqa: F821 (c is traitlets' config)
