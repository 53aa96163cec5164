"""Drives a virtual unit: the firmware with the unix_sim board in a real process, fed a script line by line in
lockstep (each key line waits for the unit's `key <n> <changed>` answer).

The unit runs on the device model, as a unit does: MicroPython's unix port built 32-bit with the firmware frozen
in (`make mp32`), at a 48K heap (bidwire_host.unit_tools.simulator.device_model). build() makes it, once per test
session (tests/e2e/conftest.py); a test that wants another interpreter passes its own Runtime.
"""
import json
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

from bidwire_host.unit_tools.simulator import device_model

ROOT = Path(__file__).parents[2]
SECRET = "5a" * 32
RUNTIME = None  # the device model, once build() has made it


def build():
    """`make mp32` (nothing to do when it is up to date); the Runtime every VUnit uses by default."""
    global RUNTIME
    RUNTIME = device_model(ROOT)
    return RUNTIME


def write_config(path, state_dir, collector="", unit="T01", **extra):
    cfg = {"unit": unit, "secret": SECRET, "collector": collector, "board": "unix_sim",
           "state_dir": str(state_dir), "mode": "record", "td_pin": "1234", "heartbeat_ms": 300}
    cfg.update(extra)
    Path(path).write_text(json.dumps(cfg))
    return path


class VUnit:
    def __init__(self, config, heap=None, preexec=None, runtime=None):
        """Boot a unit with `config` on `runtime` (default: the device model) at `heap` (default: its own)."""
        runtime = runtime or RUNTIME or build()
        self.proc = runtime.popen(config, heap, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, bufsize=1, preexec_fn=preexec)
        self.lines = queue.Queue()
        self.out = []
        threading.Thread(target=self._pump, daemon=True).start()
        self.boot = self._expect("boot ")

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _expect(self, prefix, timeout=20):
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"virtual unit said nothing starting {prefix!r} in {timeout} s") from None
            if line is None:
                raise EOFError(f"virtual unit exited ({self.proc.wait()}): {self.proc.stderr.read()[-2000:]}")
            self.out.append(line)
            if line.startswith(prefix):
                return line

    def keys_journaled(self):
        return int(self.boot.split("keys=")[1].split()[0])

    def send(self, line):
        """Send a key line and wait for the unit to take it; returns (journaled keys, changed)."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        words = self._expect("key ").split()  # key <n> <changed> [<bytes> <µs> when measuring]
        return int(words[1]), words[2] == "1"

    def write(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def frame(self):
        """The last text frame printed (8 rows)."""
        rows = [r for r in self.out if r.startswith("|")]
        return [r[1:-1].rstrip() for r in rows[-8:]]

    def frame_until(self, wanted, timeout=20):
        """Read what the unit prints until a whole frame (8 rows between two rules) satisfies `wanted` (a command
        from the collector changes the screen between key lines); that frame."""
        deadline = time.monotonic() + timeout
        while True:
            out = self.out
            if len(out) > 1 and out[-2].startswith("|") and not out[-1].startswith("|") and wanted(self.frame()):
                return self.frame()
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the unit's frame never changed as expected: {self.frame()}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EOFError("the virtual unit exited")
            self.out.append(line)

    def finish(self, timeout=60):
        """Close stdin (the unit syncs, then exits) and collect what it printed."""
        self.proc.stdin.close()
        self.proc.wait(timeout=timeout)
        while True:
            try:
                line = self.lines.get(timeout=5)
            except queue.Empty:
                break
            if line is None:
                break
            self.out.append(line)
        return self.proc.returncode

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
