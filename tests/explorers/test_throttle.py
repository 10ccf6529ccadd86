"""explorer_throttle: events that arrive while the kernel is busy are coalesced."""

import threading

from lessons_lib.explorers.throttle import Throttle


class FakeTime:
    """A clock the test moves by hand, and a scheduler that keeps callbacks for later."""

    def __init__(self):
        self.now = 0.0
        self.scheduled = []

    def clock(self):
        return self.now

    def schedule(self, delay, callback):
        self.scheduled.append((self.now + delay, callback))
        return True

    def run_due(self):
        due = [c for t, c in self.scheduled if t <= self.now]
        self.scheduled = [(t, c) for t, c in self.scheduled if t > self.now]
        for callback in due:
            callback()


def test_throttle_runs_once_then_coalesces_a_burst_into_one_trailing_run_of_the_latest():
    fake, state, seen = FakeTime(), {"value": 0}, []
    throttle = Throttle(lambda: seen.append(state["value"]), 0.03, fake.clock, fake.schedule)
    state["value"] = 1
    throttle.request()
    for value in range(2, 12):  # a drag: ten events within the interval
        fake.now += 0.001
        state["value"] = value
        throttle.request()
    assert seen == [1] and len(fake.scheduled) == 1
    fake.now = 0.05
    fake.run_due()
    assert seen == [1, 11]  # only the newest value drawn, the stale ones skipped
    fake.now = 1.0
    state["value"] = 12
    throttle.request()  # after a pause the next event draws at once
    assert seen == [1, 11, 12] and fake.scheduled == []


def test_throttle_measures_the_interval_from_the_end_of_a_slow_run():
    fake, runs = FakeTime(), []

    def slow_draw():
        runs.append(fake.now)
        fake.now += 0.1  # a run slower than the interval

    throttle = Throttle(slow_draw, 0.03, fake.clock, fake.schedule)
    throttle.request()
    throttle.request()  # queued behind the slow run: must not run again straight away
    assert runs == [0.0] and len(fake.scheduled) == 1


def test_throttle_without_an_event_loop_runs_every_request_at_once():
    # A fresh thread has no running loop, even when a browser test on this worker left
    # Playwright's sync loop registered as running on the main thread.
    seen = []

    def two_requests():
        throttle = Throttle(lambda: seen.append(1), interval=60.0)
        throttle.request()
        throttle.request()

    thread = threading.Thread(target=two_requests)
    thread.start()
    thread.join()
    assert seen == [1, 1]
