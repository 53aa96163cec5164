"""The real collector (`bidwire serve`: uvicorn on 127.0.0.1, SQLite in a data directory) in a subprocess, for
tests and the bench: started on a keyring holding the given units, ready once /healthz answers.

In a test:   with Collector.with_units(tmp_path, {"T01": SECRET_HEX}) as collector:
                 ... collector.url, collector.port, collector.events("T01"), collector.queue_command("T01", cmd)
Or on a data directory and keyring of your own: Collector(data, keyring(path, units), port), which
test_collector_units.py restarts on the same data and port after a SIGKILL.
The store is read read-only (rows(), events()), through its own SQLite connection, while the server runs.
"""
import itertools
import json
import os
import re
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx
from waiting import wait_until

BIDWIRE = Path(sys.executable).with_name("bidwire")
_DIRS = itertools.count(1)


def keyring(path, units):
    """Write the keyring `bidwire provision` would ({"units": {id: {"secret": hex}}}) for {id: secret hex},
    atomically (a running collector reads it again when it changes)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"units": {u: {"secret": s} for u, s in units.items()}}))
    os.replace(tmp, path)
    return path


def rows(data, sql, *args):
    """The rows of a query on the store in the data directory, as dicts, read-only."""
    conn = sqlite3.connect(f"file:{Path(data) / 'bidwire.sqlite3'}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, args)]
    finally:
        conn.close()


LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"  # Debian's faketime (make faketime)


def faketime_env(offset):
    """The environment that runs a process with its clock moved by `offset` ("+1h", "-1h"): libfaketime preloaded
    into the process itself (the `faketime` command forks, so its pid would not be the server's)."""
    assert Path(LIBFAKETIME).exists(), "the clock test needs Debian's faketime: `make test` installs it"
    return {"LD_PRELOAD": LIBFAKETIME, "FAKETIME": offset}


def healthy(url):
    """Whether the server at `url` answers /healthz with 200 (a refused connection: not yet)."""
    try:
        return httpx.get(url + "/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


class ProcessClock:
    """A clock a test moves, for a process it starts (libfaketime reading `path` at every reading of the clock, the
    wall clock and the monotonic one alike): `env` for the process, `advance(seconds)` to move it on. The process's
    clock is then the real one plus what the test has advanced, so a test can run an hour of a session in seconds,
    and what it checks depends on where it moved the clock, not on how long the machine took."""

    def __init__(self, path):
        assert Path(LIBFAKETIME).exists(), "the clock tests need Debian's faketime: `make test` installs it"
        self.path, self.offset = Path(path), 0
        self.path.write_text("+0\n")
        self.env = {"LD_PRELOAD": LIBFAKETIME, "FAKETIME_TIMESTAMP_FILE": str(self.path), "FAKETIME_NO_CACHE": "1"}

    def advance(self, seconds):
        self.offset += seconds
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(f"+{self.offset}\n")
        tmp.replace(self.path)  # the process never reads half a file


class Collector:
    """`bidwire serve` in a subprocess; the URL it prints tells where it listens."""

    def __init__(self, data, keyring, port=0, extra=(), preexec_fn=None, env=None):
        """`env`: variables added to the server's environment (faketime_env(): a clock off by some hours)."""
        self.data, self.keyring = Path(data), Path(keyring)
        self.log_path = self.data / f"serve-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "w")
        self.stdout_text = ""  # what it printed, once stopped
        self.proc = subprocess.Popen([str(BIDWIRE), "serve", "--data", str(data), "--keyring", str(keyring),
                                      "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
                                      *extra], stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     preexec_fn=preexec_fn, env={**os.environ, **env} if env else None)
        try:
            line = self.stdout_text = self._line(20)
            m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
            assert m, f"bidwire serve said {line!r}"
            self.port = int(m.group(1))
            self.url = f"http://127.0.0.1:{self.port}"
            self.wait_ready()
            # the director's API needs the token the collector keeps in its data directory (apiauth.py)
            self.api_headers = {"Authorization": f"Bearer {(self.data / 'api-token').read_text().strip()}"}
            self.api = httpx.Client(base_url=self.url, headers=self.api_headers, timeout=10)
        except BaseException:
            self.stop()
            raise

    @classmethod
    def with_units(cls, tmp, units, port=0):
        """A collector on a fresh data directory under tmp whose keyring holds {unit: secret hex}."""
        data = Path(tmp) / f"collector-{next(_DIRS)}"
        data.mkdir(parents=True)
        return cls(data, keyring(data / "keyring.json", units), port)

    def add_units(self, units):
        """Provision more units {unit: secret hex} while the collector runs (it reads a changed keyring again)."""
        known = {u: e["secret"] for u, e in json.loads(self.keyring.read_text())["units"].items()}
        keyring(self.keyring, {**known, **units})

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _line(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise TimeoutError("bidwire serve printed no URL")
        return self.proc.stdout.readline()

    def wait_ready(self, timeout=20):
        wait_until(lambda: healthy(self.url), timeout, 0.05, "the collector to answer /healthz")

    def rows(self, sql, *args):
        return rows(self.data, sql, *args)

    def store_event(self):
        """The store's event id (migration 0009): what its commands carry and a unit's board_start repeats."""
        [row] = self.rows("SELECT id FROM store_event")
        return row["id"]

    def events(self, unit):
        """The unit's stored raw events, in seq order, as the unit sent them."""
        return [json.loads(r["body"]) for r in self.rows("SELECT body FROM events WHERE unit = ? ORDER BY seq", unit)]

    def unit_status(self, unit):
        """The unit's line of GET /api/v1/units (cmd_ack, commands_pending, last_rejection, ...)."""
        [status] = [u for u in self.api.get("/api/v1/units").json()["units"]
                    if u["unit"] == unit]
        return status

    def command(self, unit, command):
        """Queue a command (POST /api/v1/units/{unit}/commands); the command as it will be sent, seq included."""
        r = self.api.post(f"/api/v1/units/{unit}/commands", json=command)
        assert r.status_code == 201, r.text
        return r.json()["command"]

    def queue_command(self, unit, command):
        """Queue a command for the unit; returns its seq (1, 2, ... per unit)."""
        return self.command(unit, command)["seq"]

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._close_api()

    def _close_api(self):
        api = getattr(self, "api", None)
        if api is not None:
            api.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        if not self.proc.stdout.closed:
            self.stdout_text += self.proc.stdout.read()
            self.proc.stdout.close()
        self.log.close()
        self._close_api()

    def log_text(self):
        """What the collector has logged (its standard error) so far."""
        return self.log_path.read_text()  # the server writes it itself (its stderr is the file)
