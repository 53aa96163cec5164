"""How long the event loop is held up: a task that asks to wake every `INTERVAL_S` and records how late it woke.

Everything blocking (SQLite, scoring, rendering) must run in worker threads: the units' syncs, every page and the
live streams share this one loop. The probe's figures are in /healthz (`loop`): the largest stall since start, the
number of stalls over `STALL_MS`; each such stall is logged. `/healthz?loop_window_s=S` adds the largest stall of
the last S seconds (the probe keeps each second's largest for `KEEP_S`), so a benchmark can read the stall of
one window of a run without resetting anything. The tests and `make bench` read them.
"""
import asyncio
import collections
import logging
import time

log = logging.getLogger("bidwire.collector")

INTERVAL_S = 0.02
STALL_MS = 100.0
KEEP_S = 3600


class LoopProbe:
    """`clock` is time.monotonic unless a test gives its own (and feeds `record` itself)."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.max_ms = 0.0
        self.stalls = 0
        self.samples = 0
        self._seconds = collections.deque(maxlen=KEEP_S)  # [whole second (monotonic), its largest lag in ms]
        self._task = None

    def start(self):
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self):
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def _run(self):
        while True:
            t = self.clock()
            await asyncio.sleep(INTERVAL_S)
            self.record((self.clock() - t - INTERVAL_S) * 1000)

    def record(self, lag_ms):
        """One wake-up `lag_ms` late, seen now."""
        self.samples += 1
        if lag_ms > self.max_ms:
            self.max_ms = lag_ms
        second = int(self.clock())  # a stall counts in the second it ended (when it was seen)
        if self._seconds and self._seconds[-1][0] == second:
            self._seconds[-1][1] = max(self._seconds[-1][1], lag_ms)
        else:
            self._seconds.append([second, lag_ms])
        if lag_ms > STALL_MS:
            self.stalls += 1
            log.warning("event loop held up %.0f ms", lag_ms)

    def figures(self, window_s=None):
        out = {"max_stall_ms": round(self.max_ms, 1), "stalls_over_100ms": self.stalls, "samples": self.samples}
        if window_s is not None:
            since = self.clock() - window_s
            out["window_s"] = window_s
            out["max_stall_ms_window"] = round(max((lag for second, lag in self._seconds if second + 1 > since),
                                                   default=0.0), 1)
        return out

    def reset(self):
        self.max_ms, self.stalls = 0.0, 0
