"""Throttle: run an action for the latest request, at most once per interval of idle time."""

import asyncio
import math
import time
from collections.abc import Callable


class Throttle:
    """Run `action` for the latest request, at most once per `interval` of idle kernel time.

    While dragging, slider events arrive faster than the kernel can recompute. Requests
    that come within `interval` of the last run's end are not run one by one: a single
    trailing run is scheduled and reads the newest state, so events never pile up.
    """

    def __init__(
        self,
        action: Callable[[], None],
        interval: float = 0.03,
        clock: Callable[[], float] = time.monotonic,
        schedule: Callable[[float, Callable[[], None]], bool] | None = None,
    ) -> None:
        self._action = action
        self._interval = interval
        self._clock = clock
        self._schedule = schedule or _call_later_on_running_loop
        self._idle_since = -math.inf
        self._pending = False

    def request(self) -> None:
        """Ask for a run: now if the kernel has been idle long enough, else one trailing run."""
        if self._pending:
            return  # the scheduled run will read the latest state
        wait = self._idle_since + self._interval - self._clock()
        if wait > 0 and self._schedule(wait, self._trailing):
            self._pending = True
        else:
            self._run()

    def _trailing(self) -> None:
        self._pending = False
        self._run()

    def _run(self) -> None:
        try:
            self._action()
        finally:
            self._idle_since = self._clock()  # measured from the end: slow runs self-limit


def _call_later_on_running_loop(delay: float, callback: Callable[[], None]) -> bool:
    """Schedule on the kernel's event loop; False outside one (plain Python, tests)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    loop.call_later(delay, callback)
    return True
