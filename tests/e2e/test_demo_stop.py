"""issue 11, build item 8: `make demo` stops every process it started whichever signal reaches its own process
(TERM, INT, HUP — not the terminal's group), says why the collector did not start, and does not wipe its folder
under a collector still running there. Real processes: the demo, `bidwire serve`, the virtual units."""
import fcntl
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
from test_demo import running
from waiting import wait_until


class Demo:
    """`python -m bidwire_host.demo.club` (3 tables, one round) in a subprocess, its output read as it comes."""

    def __init__(self, workdir, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "bidwire_host.demo.club", "--tables", "3", "--boards", "2",
                                      "--dir", str(workdir), *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        self._readers = [threading.Thread(target=self._read, args=(pipe, into), daemon=True)
                         for pipe, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for reader in self._readers:
            reader.start()

    def _read(self, pipe, into):
        for line in pipe:
            into.append(line)

    def wait_for(self, pattern, timeout=240):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = re.search(pattern, "".join(self.out))
            if m:
                return m
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"no {pattern!r} from the demo: {''.join(self.out)[-1500:]}{''.join(self.err)[-1500:]}")

    def end(self, timeout=60):
        code = self.proc.wait(timeout=timeout)
        for reader in self._readers:
            reader.join(timeout=5)
        return code, "".join(self.out), "".join(self.err)


def port_is_free(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT does not count
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.mark.parametrize("signum,when", [
    (signal.SIGTERM, r"table \d round 1 board +\d+: "),  # while the tables play
    (signal.SIGHUP, r"collector: http"),  # while the units boot
    (signal.SIGINT, r"the collector keeps running"),  # the session over, the dashboard still served
])
def test_a_signal_to_the_demo_stops_everything_it_started(tmp_path, signum, when):
    demo = Demo(tmp_path / "demo", "--port", "0")
    port = int(demo.wait_for(r"collector: http://127\.0\.0\.1:(\d+)").group(1))
    demo.wait_for(when)
    os.kill(demo.proc.pid, signum)  # the demo's own process only, as `kill -TERM <pid>` does
    code, out, err = demo.end()
    assert code == 0, err[-2000:]
    assert f"{signal.Signals(signum).name}: the collector and the virtual units are stopped" in err
    assert running(str(tmp_path)) == [], "the demo left processes running"
    assert port_is_free(port)


def test_the_collector_that_cannot_start_says_why(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        demo = Demo(tmp_path / "demo", "--port", str(port), "--exit-when-done")
        code, out, err = demo.end(timeout=240)
    assert code == 1
    assert "the collector did not start:" in err
    assert f"cannot start the collector on 127.0.0.1:{port}" in err and "Address already in use" in err
    assert f"its whole log: {tmp_path / 'demo' / 'data' / 'serve.log'}" in err
    assert running(str(tmp_path)) == []


def test_a_collector_left_running_keeps_its_folder(tmp_path):
    """A demo killed outright (SIGKILL: nothing can stop its collector) leaves the collector running; the next demo
    on that folder refuses, names it, and wipes nothing from under it."""
    workdir = tmp_path / "demo"
    first = Demo(workdir, "--port", "0")
    port = int(first.wait_for(r"collector: http://127\.0\.0\.1:(\d+)").group(1))
    first.wait_for(r"the collector keeps running")
    os.kill(first.proc.pid, signal.SIGKILL)
    first.end()
    left = [cmd for cmd in running(str(workdir)) if " serve " in cmd]
    assert len(left) == 1, left
    m = None
    try:
        code, out, err = Demo(workdir, "--port", "0", "--exit-when-done").end(timeout=120)
        assert code == 1
        m = re.search(r"is in use: the collector of demo pid \d+ \(pid (\d+), http://127\.0\.0\.1:(\d+)\) is still "
                      r"running there, so nothing was wiped; stop it \(kill (\d+)\)", err)
        assert m, err[-2000:]
        assert int(m.group(2)) == port and m.group(1) == m.group(3)
        assert (workdir / "data" / "serve.log").is_file() and (workdir / "event.json").is_file()
    finally:
        if m:
            os.kill(int(m.group(1)), signal.SIGTERM)  # the collector this test's first demo started
    wait_until(lambda: running(str(workdir)) == [], 30, 0.2, lambda _: f"no process left: {running(str(workdir))}")
    with open(workdir / ".lock") as f:  # free again for the next demo
        _flock_soon(f)


def _flock_soon(f, seconds=5):
    """Take the lock, allowing a process that just left `running` a moment to finish exiting: Linux drops a process's
    memory, its command line with it, before it closes its files, and the lock goes with the files."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
