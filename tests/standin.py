"""A stand-in collector for tests: `POST /api/v1/sync` exactly as architecture.md §4 says, in memory.

Body {"unit": id, "boot": n, "events": [{"seq": n, ...}, ...], "cmd_ack": k}, header X-Bidwire-Signature: hex
HMAC-SHA256 of the raw body, keyed with the unit's secret (the raw bytes of its hex form). An unknown unit (403),
a missing or bad signature (401), a malformed body (400) get {"error": reason} and change nothing. Otherwise,
under one lock (the "transaction"), each event with a seq above the unit's highest stored one is stored, the
others counted as duplicates, and the answer is 200 {"ack": highest stored seq, "commands": [seq > cmd_ack]}.

In a test:   with StandIn(units={"T01": SECRET_HEX}) as collector: ... collector.url, collector.events("T01")
As a script: python tests/standin.py --port 0 --unit T01:<hex> [--port-file PATH]   (prints its URL)
The HMAC is checked with CPython's hmac module, independent of the firmware's hmac256.
"""
import argparse
import hashlib
import hmac
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PATH = "/api/v1/sync"
SIGNATURE = "X-Bidwire-Signature"
MAX_REQUEST = 64 * 1024


class Rejected(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def parse(raw):
    """The sync body as (unit, boot, events, cmd_ack); Rejected(400) says what is malformed."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise Rejected(400, f"body is not JSON: {e}") from e
    if not isinstance(body, dict):
        raise Rejected(400, "body must be a JSON object")
    for field in ("unit", "boot", "events", "cmd_ack"):
        if field not in body:
            raise Rejected(400, f"missing field {field!r}")
    unit, boot, events, cmd_ack = body["unit"], body["boot"], body["events"], body["cmd_ack"]
    if not isinstance(unit, str):
        raise Rejected(400, "'unit' must be a string")
    if not _is_int(boot) or boot < 0:
        raise Rejected(400, "'boot' must be an integer >= 0")
    if not _is_int(cmd_ack) or cmd_ack < 0:
        raise Rejected(400, "'cmd_ack' must be an integer >= 0")
    if not isinstance(events, list):
        raise Rejected(400, "'events' must be a list")
    last = 0
    for i, event in enumerate(events):
        if not isinstance(event, dict) or not _is_int(event.get("seq")) or event["seq"] < 1:
            raise Rejected(400, f"events[{i}] must be an object with an integer 'seq' >= 1")
        if event["seq"] <= last:
            raise Rejected(400, f"events[{i}]: seq {event['seq']} does not increase (previous {last})")
        last = event["seq"]
    return unit, boot, events, cmd_ack


class StandIn:
    """A threaded HTTP server on host:port (0: the OS picks one), serving until stop() or the with block ends."""

    def __init__(self, units, host="127.0.0.1", port=0):
        self._secrets = {unit: bytes.fromhex(secret) for unit, secret in units.items()}
        self._events = {unit: [] for unit in units}
        self._commands = {unit: [] for unit in units}
        self._cmd_ack = dict.fromkeys(units, 0)
        self._boot = dict.fromkeys(units)
        self._lock = threading.Lock()
        self._failures = 0
        self._failure_status = 503
        self.requests = 0  # POSTs received, whatever became of them
        self.verified = 0  # requests whose signature checked out
        self.duplicates = 0  # events received again (seq not above the highest stored)
        self.rejections = []  # (status, reason) of every 4xx/5xx answered
        self.server = ThreadingHTTPServer((host, port), _handler(self))
        self.server.daemon_threads = True
        self.host, self.port = self.server.server_address[:2]
        self.url = f"http://{self.host}:{self.port}"
        # A short poll interval: stop() (server.shutdown) waits for the next poll.
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), name="standin", daemon=True)
        self._thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self._thread.is_alive():
            self.server.shutdown()
            self._thread.join()
        self.server.server_close()

    def events(self, unit):
        with self._lock:
            return list(self._events[unit])

    def cmd_ack(self, unit):
        with self._lock:
            return self._cmd_ack[unit]

    def boot(self, unit):
        with self._lock:
            return self._boot[unit]

    def queue_command(self, unit, command):
        """Queue a command for the unit; returns its seq (1, 2, ... per unit)."""
        with self._lock:
            seq = len(self._commands[unit]) + 1
            self._commands[unit].append(dict(command, seq=seq))
            return seq

    def fail_next(self, n, status=503):
        """Answer the next n requests with `status` and change nothing: a collector outage."""
        with self._lock:
            self._failures, self._failure_status = n, status

    def handle(self, path, signature, raw):
        """One request: (status, JSON-able answer). Everything the request changes happens under one lock."""
        with self._lock:
            self.requests += 1
            if self._failures:
                self._failures -= 1
                raise Rejected(self._failure_status, "simulated outage")
        if path != PATH:
            raise Rejected(404, f"no endpoint {path}; the sync endpoint is POST {PATH}")
        unit, boot, events, cmd_ack = parse(raw)
        secret = self._secrets.get(unit)
        if secret is None:
            raise Rejected(403, f"unknown unit {unit!r}: provision it first")
        if signature is None:
            raise Rejected(401, f"missing {SIGNATURE} header")
        expected = hmac.new(secret, raw, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, signature.strip().lower()):
            raise Rejected(401, f"bad signature: {SIGNATURE} is not the HMAC-SHA256 of the body with the unit's secret")
        with self._lock:
            self.verified += 1
            stored = self._events[unit]
            highest = stored[-1]["seq"] if stored else 0
            for event in events:
                if event["seq"] > highest:
                    stored.append(event)
                    highest = event["seq"]
                else:
                    self.duplicates += 1
            self._cmd_ack[unit] = cmd_ack
            self._boot[unit] = boot
            commands = [c for c in self._commands[unit] if c["seq"] > cmd_ack]
        return 200, {"ack": highest, "commands": commands}


def _handler(standin):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # the name http.server looks up
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                return self._answer(411, {"error": "Content-Length required"})
            if not 0 <= length <= MAX_REQUEST:
                return self._answer(413, {"error": f"body over {MAX_REQUEST} bytes"})
            raw = self.rfile.read(length)
            try:
                status, answer = standin.handle(self.path, self.headers.get(SIGNATURE), raw)
            except Rejected as e:
                with standin._lock:
                    standin.rejections.append((e.status, e.reason))
                status, answer = e.status, {"error": e.reason}
            self._answer(status, answer)

        def _answer(self, status, answer):
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True

        def log_message(self, format, *args):  # http.server's signature
            pass

    return Handler


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0: the OS picks a free port")
    ap.add_argument("--unit", action="append", default=[], metavar="ID:HEX", help="a unit and its hex secret")
    ap.add_argument("--port-file", help="write the port here (atomically) once listening")
    args = ap.parse_args(argv)
    units = {}
    for spec in args.unit:
        unit, _, secret = spec.partition(":")
        try:
            bytes.fromhex(secret)
        except ValueError:
            ap.error(f"--unit {spec}: give ID:HEX, the secret in hex")
        units[unit] = secret
    standin = StandIn(units, args.host, args.port)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{standin.port}\n")
        os.replace(args.port_file + ".tmp", args.port_file)
    print(standin.url, flush=True)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    standin.stop()
    print(f"{standin.requests} requests, {sum(len(standin.events(u)) for u in units)} events stored", file=sys.stderr)


if __name__ == "__main__":
    main()
