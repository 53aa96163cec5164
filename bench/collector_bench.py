"""`make bench`, the collector's sync figures (issue 4): sustained accepted events per second from 200 and from
1,000 concurrent simulated units over loopback HTTP, with the p50/p99 acknowledgement latency and the server's
peak memory, each against a baseline measured in the same run.

The collector is the real one: `bidwire serve` in a subprocess (uvicorn on 127.0.0.1), a fresh data directory,
a keyring of the units, synchronous=FULL commits. Each simulated unit is a coroutine in this process that behaves
as the firmware's sync client does (firmware/bidwire/unit/sync.py): it signs a batch of its unacknowledged
events (at most 2,048 bytes of JSON, as `Sync.batch_bytes`), posts it with the firmware's own HTTP client
(`bidwire.unit.http.post`: one POST per connection, `Connection: close`), and waits for the acknowledgement
before the next batch. For the throughput the units always have a backlog (flat out): this is the collector's
capacity, not a tournament's rate (200 tables make a few events per second between them). Then, on the same
server, each unit sends one event every `pace` seconds (1 s with 200 units, 5 s with 1,000: 200 syncs/s in both
cases, as 1,000 syncs/s saturate even the baseline on two cores): the acknowledgement latency of a busy but not
saturated collector. The windows are in PLANS; with 1,000 units the queue takes longer to fill and drain.

The events are what a unit sends while playing its rounds: hello, then per board board_start, one call event
per call, auction_end (input tokens and the core's summary), lead and result (the core's Law 77 score), on
21 realistic auctions (bench/mp/workload.py). The tables play a 25-table Mitchell per section (8 sections for
200 units, 40 for 1,000), 25 rounds of 4 boards whose assign commands are all queued before the collector
starts: every board_start and result is checked against an assignment, and no pair meets a board twice.
Afterwards the store must hold every acknowledged event exactly once and no alert, or the run stops.

The baseline is the same load against a trivial FastAPI endpoint on the same uvicorn (this file, run with
`--baseline-server`): it reads the body, finds the unit and checks the signature with the collector's own
functions, and answers without validating or storing anything.

1,000 units hold up to 1,000 sockets at once on each side: the open-files soft limit is raised to the hard one
in this process and in the servers (raise_nofile); the collector listens with a backlog of 2,048.

    .venv/bin/python bench/collector_bench.py [--units 200] [--warmup S] [--window S] [--settle S] [--paced S]
                                              [--pace S] [--json]

Linux only (CPU times and memory from /proc). About 70 s with 200 units, 110 s with 1,000.
"""
import asyncio
import hashlib
import hmac
import json
import math
import os
import re
import resource
import select
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "firmware"), str(ROOT / "bench" / "mp")]

import click  # noqa: E402
from workload import AUCTIONS  # noqa: E402

from bidwire.core import readback, record  # noqa: E402
from bidwire.core.auction import Auction  # noqa: E402
from bidwire.core.board import VUL_NAMES, dealer, vulnerability  # noqa: E402
from bidwire.core.calls import seat_name  # noqa: E402
from bidwire.core.codes import LEGAL  # noqa: E402
from bidwire.core.score import score_ns  # noqa: E402
from bidwire.unit import http  # noqa: E402

BIDWIRE = Path(sys.executable).with_name("bidwire")
PATH = "/api/v1/sync"
SIGNATURE = "X-Bidwire-Signature"
BATCH_BYTES = 2048  # the firmware's Sync.batch_bytes
TABLES = 25  # per section: an odd Mitchell, so that no pair meets a board twice in up to 25 rounds
BOARDS_PER_ROUND = 4
ROUNDS = 25  # 100 boards, about 1,270 events a unit: room for 12,000 events/s flat out at 200 units (else it stops)
TARGET_EVENTS_S = 2000  # issue 4, 200 units
TARGET_EVENTS_S_1000 = 6000  # issue 11, 1,000 units flat out
TARGET_PACED_P99_MS_1000 = 50  # issue 11, 1,000 units at one event per 5 s each
SEATS = "NESW"
VARIANTS = 21  # tables playing one board play one of 21 auctions


def unit_id(i):
    return f"B{i:03d}"


def secret(i):
    return hashlib.sha256(f"bidwire bench unit {i}".encode()).hexdigest()


def write_keyring(path, n):
    path.write_text(json.dumps({"units": {unit_id(i): {"secret": secret(i)} for i in range(1, n + 1)}}))
    return path


def section_name(k):
    """Section k (0-based) as A, B, ... Z, AA, AB, ...: 1,000 units make 40 sections of 25 tables."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    name = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        name = letters[r] + name
    return name


def assignments(i):
    """Unit i's rounds (1-based i): a 25-table Mitchell in section A, B, ... NS sit, EW move up a table and the
    boards down one each round, so table t plays board set (t + r) mod 25 and EW pair e set (e + 2r) mod 25.
    NS pairs are numbered 1-25 and EW pairs 26-50: the validator's Law 15 check takes a pair number to name one
    pair in its section, whichever line it sits."""
    section, t = section_name((i - 1) // TABLES), (i - 1) % TABLES
    out = []
    for r in range(ROUNDS):
        s = (t + r) % TABLES
        out.append({"type": "assign", "section": section, "table": t + 1, "round": r + 1,
                    "boards": [s * BOARDS_PER_ROUND + k for k in range(1, BOARDS_PER_ROUND + 1)],
                    "ns": t + 1, "ew": TABLES + (t - r) % TABLES + 1, "move": "EW up one table, boards down one"})
    return out


def seed_commands(data, n):
    """Queue every unit's assign commands, as the director would, with the store's own code (before serving)."""
    from bidwire_host.collector import commands
    from bidwire_host.collector.store import Store

    with Store(data) as store:
        def job(conn):
            for i in range(1, n + 1):
                for a in assignments(i):
                    commands.enqueue(conn, unit_id(i), a)
        store.write(job)


_BOARDS = {}


def board_events(board, variant):
    """A played board's events as firmware/bidwire/unit/app.py emits them: the board_start (a dict, to which the
    unit adds its assignment) and the others as JSON without the closing brace (the unit appends t, unit, seq).
    One of the 21 workload auctions by board and variant; the tricks and the lead vary with them."""
    key = (board, variant)
    if key in _BOARDS:
        return _BOARDS[key]
    calls = AUCTIONS[(board * 5 + variant) % len(AUCTIONS)][1].split()
    d = dealer(board)
    a = Auction(d)
    start = {"type": "board_start", "board": board, "dealer": seat_name(d), "vul": VUL_NAMES[vulnerability(board)],
             "mode": "record"}
    events = []
    for k, call in enumerate(calls):
        seat = seat_name((d + k) % 4)
        token = f"{seat}:{call}"
        if readback.apply(a, token) != LEGAL:
            raise RuntimeError(f"the workload's auction {calls} is not legal")
        events.append({"type": "call", "input": token, "seat": seat, "verdict": "legal", "law": 0,
                       "alert": False, "board": board})
    s = record.summary(a)
    events.append({"type": "auction_end", "inputs": record.tokens(a), "auction": s["auction"],
                   "contract": s["contract"], "declarer": s["declarer"], "reviews": s["reviews"],
                   "lead_restrictions": s["lead_restrictions"], "log": s["log"], "board": board})
    if s["contract"] == "Pass":
        events.append({"type": "result", "contract": "Pass", "declarer": None, "tricks": None, "score_ns": 0,
                       "entered_by": None, "confirmed_by": None, "board": board})
    else:
        decl = SEATS.index(s["declarer"])
        leader, entered, confirmed = SEATS[(decl + 1) % 4], SEATS[decl], SEATS[(decl + 3) % 4]
        suit = "CDHS"[(board + variant) % 4]
        tricks = max(0, min(13, int(s["contract"][0]) + 6 + (board + variant) % 3 - 1))
        events.append({"type": "lead", "seat": leader, "suit": suit, "board": board})
        events.append({"type": "result", "contract": s["contract"], "declarer": s["declarer"], "tricks": tricks,
                       "score_ns": score_ns(s["contract"], decl, vulnerability(board), tricks),
                       "entered_by": entered, "confirmed_by": confirmed, "lead": suit, "board": board})
    _BOARDS[key] = start, [json.dumps(e)[:-1] for e in events]  # MicroPython's separators: ", " and ": "
    return _BOARDS[key]


class SimUnit:
    """One table's unit: an outbox of JSON events numbered by seq, refilled a board at a time as it is sent."""

    def __init__(self, i, t0):
        self.unit = unit_id(i)
        self.key = bytes.fromhex(secret(i))
        self.rounds = assignments(i)
        self.boards = [(a, b) for a in self.rounds for b in a["boards"]]
        self.variant = i % VARIANTS
        self.t0 = t0
        self.boot, self.cmd_ack, self.seq = 1, 0, 1
        self.outbox = []  # (seq, JSON bytes), unacknowledged, in seq order
        self.size = 0
        self.played = 0
        self._emit(json.dumps({"type": "hello", "boot": 1, "backlog": 0, "firmware": "bidwire-unit bench",
                               "board": "bench", "battery": 90, "rssi": -60})[:-1])

    def _emit(self, head):
        raw = f'{head}, "t": {int(time.time() - self.t0)}, "unit": "{self.unit}", "seq": {self.seq}}}'.encode()
        self.outbox.append((self.seq, raw))
        self.size += len(raw) + 1
        self.seq += 1

    def _play(self):
        """The next board's events into the outbox. Past its last round the unit plays its rounds again: fine for
        the baseline, which checks nothing; on the collector it would be Law 15 (`run` refuses such a run)."""
        a, board = self.boards[self.played % len(self.boards)]
        self.played += 1
        start, events = board_events(board, self.variant)
        self._emit(json.dumps(dict(start, section=a["section"], table=a["table"], round=a["round"], ns=a["ns"],
                                   ew=a["ew"]))[:-1])
        for e in events:
            self._emit(e)

    def body(self, most=None):
        """The next sync body (the firmware's layout: at most BATCH_BYTES of events, at least one; at most `most`
        events) and how many events it carries."""
        while self.size < BATCH_BYTES:
            self._play()
        out, size = [], 0
        for _, raw in self.outbox[:most]:
            if out and size + len(raw) > BATCH_BYTES:
                break
            out.append(raw)
            size += len(raw) + 1
        head = f'{{"unit": "{self.unit}", "boot": {self.boot}, "cmd_ack": {self.cmd_ack}, "events": ['
        return head.encode() + b", ".join(out) + b"]}", len(out)

    def ack(self, seq, commands):
        """Drop the events up to seq; apply the commands (their seq becomes cmd_ack). Events newly acknowledged."""
        n = 0
        while self.outbox and self.outbox[0][0] <= seq:
            self.size -= len(self.outbox.pop(0)[1]) + 1
            n += 1
        for c in commands:
            self.cmd_ack = max(self.cmd_ack, c.get("seq", 0))
        return n


async def exchange(unit, port, done, errors, phase, most=None):
    """One sync as the firmware makes it; (time answered, latency s, events acknowledged, phase) into done."""
    body, _ = unit.body(most)
    signature = hmac.new(unit.key, body, hashlib.sha256).hexdigest()
    t = time.perf_counter()
    try:
        status, reply = await http.post("127.0.0.1", port, PATH, body, ((SIGNATURE, signature),), 30000)
    except http.HttpError as e:
        errors.append(str(e))
        await asyncio.sleep(0.25)  # the firmware's first backoff
        return
    answered = time.perf_counter()
    if status != 200:
        errors.append(f"{status}: {bytes(reply[:200])!r}")
        await asyncio.sleep(0.25)
        return
    r = json.loads(reply)
    done.append((answered, answered - t, unit.ack(r["ack"], r.get("commands") or []), phase))


async def drive(unit, port, done, errors, saturated_until, paced_until, pace, offset):
    """The unit's sync loop: flat out (the next batch as soon as the last is acknowledged) until saturated_until,
    then one event per `pace` seconds, starting `offset` into the period, until paced_until. A slot missed while
    the last flat-out exchange was still waiting is skipped, not caught up."""
    while time.perf_counter() < saturated_until:
        await exchange(unit, port, done, errors, "saturated")
    at = saturated_until + offset
    while at < time.perf_counter():
        at += pace
    while True:
        await asyncio.sleep(max(0.0, at - time.perf_counter()))
        if time.perf_counter() >= paced_until:
            return
        await exchange(unit, port, done, errors, "paced", 1)
        at += pace


def cpu_seconds(pid):
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy():
    """CPU seconds spent by every process on the machine so far (Linux /proc/stat: all but idle and iowait)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def cpu_now(server_pid):
    return cpu_seconds(server_pid), time.process_time(), machine_busy(), time.perf_counter()


def window_figures(done, phase, begin, end, meter):
    """Throughput and latency of the exchanges of a phase answered within [begin, end) (a flat-out exchange
    answered late in the paced window is not counted there), and who used the CPU meanwhile."""
    inside = [(lat, k) for at, lat, k, ph in done if ph == phase and begin <= at < end]
    lat = sorted(x for x, _ in inside)
    events = sum(k for _, k in inside)
    (s0, g0, m0, w0), (s1, g1, m1, w1) = meter
    return {
        "events_s": events / (end - begin),
        "requests_s": len(inside) / (end - begin),
        "events_per_request": events / max(1, len(inside)),
        "p50_ms": 1000 * statistics.median(lat) if lat else None,
        "p99_ms": 1000 * lat[min(len(lat) - 1, len(lat) * 99 // 100)] if lat else None,
        "server_cpu": (s1 - s0) / (w1 - w0),  # in cores
        "generator_cpu": (g1 - g0) / (w1 - w0),
        "other_cpu": max(0.0, (m1 - m0) - (s1 - s0) - (g1 - g0)) / (w1 - w0),  # every other process
    }


async def load(port, server_pid, n, warmup, window, settle, paced, pace):
    """n units: flat out for warmup + window seconds, then one event per `pace` seconds each for settle + paced
    seconds (their phases spread evenly over the period); the figures of the two windows."""
    t0 = time.time()
    units = [SimUnit(i, t0) for i in range(1, n + 1)]
    for u in units:  # every board's events made before the clock starts
        for _, board in u.boards:
            board_events(board, u.variant)
    start = time.perf_counter()
    windows = {"saturated": (start + warmup, start + warmup + window)}
    windows["paced"] = (windows["saturated"][1] + settle, windows["saturated"][1] + settle + paced)
    done, errors, meters, stalls = [], [], {}, {}

    async def meter(name):
        begin, end = windows[name]
        await asyncio.sleep(max(0.0, begin - time.perf_counter()))
        first = cpu_now(server_pid)
        await asyncio.sleep(max(0.0, end - time.perf_counter()))
        meters[name] = first, cpu_now(server_pid)
        stalls[name] = await loop_stall(port, end - begin)

    saturated_end, paced_end = windows["saturated"][1], windows["paced"][1]
    await asyncio.gather(meter("saturated"), meter("paced"),
                         *(drive(u, port, done, errors, saturated_end, paced_end, pace, pace * i / n)
                           for i, u in enumerate(units)))
    out = {name: dict(window_figures(done, name, *windows[name], meters[name]), loop=stalls[name])
           for name in windows}
    out["errors"], out["first_error"] = len(errors), errors[0] if errors else None
    out["acked"] = {u.unit: u.outbox[0][0] - 1 for u in units}
    out["boards_played"] = max(u.played for u in units)
    out["boards_assigned"] = len(units[0].boards)
    return out


def raise_nofile():
    """Raise this process's soft limit of open files to its hard limit (1,000 units hold 1,000 sockets at once on
    the generator's side and as many on the server's); the limits (soft, hard) now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def memory(pid):
    """{"hwm": VmHWM, "rss": VmRSS} of a process, in bytes (Linux /proc/<pid>/status): its peak and current
    resident set."""
    status = Path(f"/proc/{pid}/status").read_text()
    return {key.lower()[2:]: int(re.search(rf"^{key}:\s+(\d+) kB", status, re.M).group(1)) * 1024
            for key in ("VmHWM", "VmRSS")}


def somaxconn():
    """The kernel's cap on a listen backlog (the collector asks for 2,048)."""
    try:
        return int(Path("/proc/sys/net/core/somaxconn").read_text())
    except OSError:
        return None


class Server:
    """A server subprocess that prints its URL once listening; ready when GET /healthz answers 200. Its open-files
    limit is raised to the hard limit before it starts (raise_nofile as preexec_fn)."""

    def __init__(self, cmd, log, ready_timeout=30):
        self.log = open(log, "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT,
                                     preexec_fn=raise_nofile)
        ready, _, _ = select.select([self.proc.stdout], [], [], ready_timeout)
        line = self.proc.stdout.readline() if ready else ""
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not m:
            self.stop()
            raise RuntimeError(f"{cmd[0]} did not start (it said {line!r}; log {log})")
        self.port = int(m.group(1))
        asyncio.run(self._ready())
        self.nofile = Path(f"/proc/{self.proc.pid}/limits").read_text().split("Max open files")[1].split()[0]

    async def _ready(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if await _get("127.0.0.1", self.port, "/healthz") == 200:
                    return
            except OSError:
                pass
            await asyncio.sleep(0.05)
        raise RuntimeError("the server never answered /healthz")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


async def loop_stall(port, window_s):
    """The server's event loop probe (collector/loopprobe.py) over the last window_s seconds, rounded up to whole
    seconds: {"max_stall_ms_window", "max_stall_ms" (since start), ...}, read from /healthz."""
    status, body = await _get_body("127.0.0.1", port, f"/healthz?loop_window_s={max(1, math.ceil(window_s))}")
    if status != 200:
        raise RuntimeError(f"/healthz answered {status}")
    return json.loads(body)["loop"]


async def _get_body(host, port, path, timeout=30):
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def _get(host, port, path):
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        line = await reader.readline()
        return int(line.split()[1])
    finally:
        writer.close()


def run_load(cmd, log, *args):
    """The load on a fresh server; its figures, with the server's memory once ready (idle) and at the end of the
    run (its peak resident set, VmHWM, covers the whole run) and its open-files limit."""
    server = Server(cmd, log)
    try:
        idle = memory(server.proc.pid)
        out = asyncio.run(load(server.port, server.proc.pid, *args))
        out["memory"] = {"idle_rss": idle["rss"], **memory(server.proc.pid)}
        out["server_nofile"] = server.nofile
        return out
    finally:
        server.stop()


def check_store(data, acked):
    """Every acknowledged event stored exactly once, no alert, and the store's settings: what the run proves."""
    from bidwire_host.collector import store

    conn = sqlite3.connect(f"file:{data / store.DB_NAME}?mode=ro", uri=True)
    try:
        stored = dict(conn.execute("SELECT unit, count(*) FROM events GROUP BY unit").fetchall())
        highest = dict(conn.execute("SELECT unit, max(seq) FROM events GROUP BY unit").fetchall())
        alerts = conn.execute("SELECT kind, count(*) FROM alerts GROUP BY kind").fetchall()
        journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
        results = conn.execute("SELECT count(*) FROM results").fetchone()[0]
    finally:
        conn.close()
    for unit, seq in acked.items():
        if highest.get(unit, 0) < seq or stored.get(unit, 0) != highest.get(unit, 0):
            raise SystemExit(f"unit {unit}: acknowledged up to seq {seq}, the store holds {stored.get(unit, 0)} "
                             f"events up to {highest.get(unit, 0)}: the collector lost or duplicated events")
    if alerts:
        raise SystemExit(f"the validator raised alerts on the bench's events ({dict(alerts)}): the workload is broken")
    w = store.connect(data / store.DB_NAME)  # the writer's own settings, read back from the function it uses
    try:
        synchronous = w.execute("PRAGMA synchronous").fetchone()[0]
    finally:
        w.close()
    return {"journal_mode": journal, "synchronous": {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[synchronous],
            "events_stored": sum(stored.values()), "results_stored": results}


PLANS = {  # units: (warm-up, flat-out window, settle, paced window, seconds between a unit's paced syncs)
    200: (5.0, 15.0, 3.0, 8.0, 1.0),
    1000: (10.0, 15.0, 10.0, 10.0, 5.0),  # the same 200 syncs/s paced; longer to drain a flat-out queue
}


def run(units=200, warmup=None, window=None, settle=None, paced=None, pace=None):
    """Both servers under the same load, the collector first; a dict of figures. Unset windows from PLANS."""
    plan = PLANS.get(units, PLANS[200])
    warmup, window, settle, paced, pace = (plan[k] if x is None else x
                                           for k, x in enumerate((warmup, window, settle, paced, pace)))
    args = (units, warmup, window, settle, paced, pace)
    nofile = raise_nofile()
    with tempfile.TemporaryDirectory(prefix="bidwire-bench-") as tmp:
        tmp = Path(tmp)
        data = tmp / "collector"
        keyring = write_keyring(tmp / "keyring.json", units)
        seed_commands(data, units)
        collector = run_load([str(BIDWIRE), "serve", "--data", str(data), "--keyring", str(keyring), "--port", "0",
                              "--log-level", "warning"], tmp / "serve.log", *args)
        if collector["boards_played"] > collector["boards_assigned"]:
            raise SystemExit(f"a unit played all {collector['boards_assigned']} boards of its rounds: make the "
                             "bench's ROUNDS larger or its window shorter")
        checked = check_store(data, collector.pop("acked"))
        baseline = run_load([sys.executable, str(Path(__file__).resolve()), "--baseline-server", "--keyring",
                             str(keyring)], tmp / "baseline.log", *args)
        baseline.pop("acked")
    for name, x in (("collector", collector), ("baseline", baseline)):
        if x["errors"]:
            print(f"warning: {x['errors']} syncs with the {name} failed, the first: {x['first_error']}",
                  file=sys.stderr)
    return {"units": units, "warmup_s": warmup, "window_s": window, "settle_s": settle, "paced_s": paced,
            "pace_s": pace, "target_events_s": TARGET_EVENTS_S, "collector": collector, "baseline": baseline,
            "store": checked, "sections": -(-units // TABLES), "nofile": list(nofile), "somaxconn": somaxconn(),
            "loadavg_1min": os.getloadavg()[0], "nproc": os.cpu_count()}


def mib(n):
    return n / (1024 * 1024)


def figures(f):
    """(name, value, unit, target, target is a minimum, method, baseline, baseline name) for bench/run.py: events/s
    and ack latency flat out and paced, and the server's peak memory, at f["units"] units."""
    c, b, st, n = f["collector"], f["baseline"], f["store"], f["units"]
    sat, paced = c["saturated"], c["paced"]
    base = ("trivial endpoint, same load (bench/collector_bench.py --baseline-server: body read, unit found, "
            "signature checked with the collector's functions, nothing validated or stored)")

    def cpu(x):
        per_sync = 1000 * x["server_cpu"] / x["requests_s"] if x["requests_s"] else 0.0
        return (f"CPU in cores: server {x['server_cpu']:.2f} ({per_sync:.2f} ms of server CPU per sync), load "
                f"generator {x['generator_cpu']:.2f}, other processes {x['other_cpu']:.2f} of {f['nproc']}")

    setup = (f"`bidwire serve` (uvicorn, h11) on 127.0.0.1, fresh data dir, store {st['journal_mode']} with "
             f"synchronous={st['synchronous']} (fsync'd commit before each ack); {n} simulated units "
             "in one asyncio process, each a loop like the firmware's sync client: a signed batch of its "
             f"unacknowledged events (≤ {BATCH_BYTES} B of JSON), the firmware's HTTP client (one POST per "
             f"connection), the next batch once acknowledged; realistic events of a 25-table Mitchell in each of "
             f"{f['sections']} sections (board_start, calls, auction_end, lead, result), checked afterwards: every "
             f"acked event stored once, no alert; open files {f['nofile'][0]} (server {c['server_nofile']}), "
             f"listen backlog 2048 (somaxconn {f['somaxconn']})")
    flat = (f"{setup}; flat out (always a backlog), {f['window_s']:g} s window after {f['warmup_s']:g} s warm-up: "
            f"{sat['requests_s']:.0f} syncs/s of {sat['events_per_request']:.1f} events; {cpu(sat)} "
            f"(baseline: {cpu(b['saturated'])})")
    if c["errors"]:
        flat += f"; {c['errors']} syncs failed (the first: {c['first_error']})"
    lat = (f"request sent (connect included) to the 200 reply, the exchanges answered in the flat-out window "
           f"({f['window_s']:g} s after {f['warmup_s']:g} s); latency is mostly queueing: {n} units / "
           f"{sat['requests_s']:.0f} syncs/s")
    pace = f"1 event/{f['pace_s']:g} s each" if f["pace_s"] != 1 else "1 event/s each"
    slow = (f"then each unit sends one event every {f['pace_s']:g} s, phases spread evenly ({paced['requests_s']:.0f} "
            f"syncs/s, far above a session's pace), {f['paced_s']:g} s window after {f['settle_s']:g} s to settle; "
            f"request sent to the 200 reply; {cpu(paced)}")
    mem = (f"VmHWM (peak resident set) of the server process from /proc/<pid>/status at the end of the run (flat "
           f"out then paced, {n} units); at start, idle: {mib(c['memory']['idle_rss']):.1f} MiB (baseline "
           f"{mib(b['memory']['idle_rss']):.1f}); at the end VmRSS {mib(c['memory']['rss']):.1f} MiB (baseline "
           f"{mib(b['memory']['rss']):.1f}); store {st['events_stored']:,} events, {st['results_stored']:,} results")
    target = {200: TARGET_EVENTS_S, 1000: TARGET_EVENTS_S_1000}.get(n)
    paced_target = TARGET_PACED_P99_MS_1000 if n == 1000 and f["pace_s"] == 5 else None

    def stall(phase):
        x, y = c[phase]["loop"], b[phase]["loop"]
        return (f"the server's event loop probe (collector/loopprobe.py: a task that asks to wake every 20 ms, how "
                f"late it woke) over the {phase} window, read from /healthz?loop_window_s= at its end (whole "
                f"seconds, so up to a second before the window counts too); the baseline server runs the same probe; "
                f"since start: {x['max_stall_ms']:g} ms, {x['stalls_over_100ms']} stalls over 100 ms (baseline "
                f"{y['max_stall_ms']:g} ms, {y['stalls_over_100ms']}); {cpu(c[phase])}")
    return [
        (f"collector: accepted events/s, {n:,} units flat out", sat["events_s"], "events/s", target, True,
         flat, b["saturated"]["events_s"], base),
        (f"collector: ack latency p50, {n:,} units flat out", sat["p50_ms"], "ms", None, False, lat,
         b["saturated"]["p50_ms"], base),
        (f"collector: ack latency p99, {n:,} units flat out", sat["p99_ms"], "ms", None, False, lat,
         b["saturated"]["p99_ms"], base),
        (f"collector: ack latency p50, {n:,} units, {pace}", paced["p50_ms"], "ms", None, False, slow,
         b["paced"]["p50_ms"], base),
        (f"collector: ack latency p99, {n:,} units, {pace}", paced["p99_ms"], "ms", paced_target, False, slow,
         b["paced"]["p99_ms"], base),
        (f"collector: event loop's largest stall, {n:,} units flat out", sat["loop"]["max_stall_ms_window"], "ms",
         None, False, stall("saturated"), b["saturated"]["loop"]["max_stall_ms_window"], base),
        (f"collector: event loop's largest stall, {n:,} units, {pace}", paced["loop"]["max_stall_ms_window"], "ms",
         None, False, stall("paced"), b["paced"]["loop"]["max_stall_ms_window"], base),
        (f"collector: server peak RSS, {n:,} units", mib(c["memory"]["hwm"]), "MiB", None, False, mem,
         mib(b["memory"]["hwm"]), f"{base}: its VmHWM under the same load"),
    ]


# ---- the baseline server ---------------------------------------------------------------------------------------
def baseline_app(keyring_path):
    """The sync endpoint without validation and store: body read, unit found, signature checked, highest seq."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    from bidwire_host.collector import ingest, sync
    from bidwire_host.collector.keyring import Keyring
    from bidwire_host.collector.loopprobe import LoopProbe
    from bidwire_host.web import body_limit

    keyring = Keyring(Path(keyring_path))
    highest = {}
    probe = LoopProbe()  # the collector's own event loop probe, read the same way

    @asynccontextmanager
    async def lifespan(app):
        probe.start()
        yield
        await probe.stop()

    app = FastAPI(title="bidwire bench baseline", lifespan=lifespan)
    app.add_middleware(body_limit.BodyGuard, limits={sync.PATH: (sync.MAX_BODY, "")})

    @app.get("/healthz")
    async def healthz(loop_window_s: int | None = None):
        return {"status": "ok", "loop": probe.figures(loop_window_s)}

    @app.post(sync.PATH)
    async def post(request: Request):
        try:
            raw = await request.body()  # read whole by the collector's body guard, as in the collector
            body, unit = ingest.unit_of(raw)
            key = keyring.key(unit)
            if key is None:
                raise ingest.Rejected(403, f"unknown unit {unit!r}")
            ingest.verify(key, raw, request.headers.get(sync.SIGNATURE))
        except ingest.Rejected as e:
            return JSONResponse({"error": e.reason}, status_code=e.status)
        events = body.get("events") or []
        top = max(highest.get(unit, 0), events[-1]["seq"] if events else 0)
        highest[unit] = top
        return {"ack": top, "commands": []}

    return app


def serve_baseline(keyring_path):
    import uvicorn

    from bidwire_host.server import listen, tune_gc

    sock = listen("127.0.0.1", 0)
    print(f"baseline on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(baseline_app(keyring_path), log_level="warning", access_log=False,
                            timeout_graceful_shutdown=5)
    tune_gc()  # the collector's process settings (server.tune_gc), so the two differ only in what they do
    uvicorn.Server(config).run(sockets=[sock])


def report(f):
    store = f["store"]
    print(f"collector sync, {f['units']} units (load {f['loadavg_1min']:.2f} on {f['nproc']} cores; store "
          f"{store['journal_mode']}, synchronous={store['synchronous']}; {store['events_stored']} events stored)")
    for phase, what in (("saturated", f"flat out, {f['window_s']:g} s"),
                        ("paced", f"one event per unit every {f['pace_s']:g} s, {f['paced_s']:g} s")):
        print(f"  {what}")
        for name in ("collector", "baseline"):
            x = f[name][phase]
            print(f"    {name:<10} {x['events_s']:7.0f} events/s {x['requests_s']:5.0f} syncs/s "
                  f"{x['events_per_request']:5.1f} ev/sync  p50 {x['p50_ms']:7.1f} ms  p99 {x['p99_ms']:7.1f} ms  "
                  f"CPU: server {x['server_cpu']:.2f} generator {x['generator_cpu']:.2f} others {x['other_cpu']:.2f}"
                  f"  loop stall {x['loop']['max_stall_ms_window']:.0f} ms")
    for name in ("collector", "baseline"):
        m = f[name]["memory"]
        print(f"  {name:<10} memory: idle {mib(m['idle_rss']):.1f} MiB, peak {mib(m['hwm']):.1f} MiB, "
              f"end {mib(m['rss']):.1f} MiB")


@click.command(help=__doc__.splitlines()[0])
@click.option("--units", type=int, default=200, show_default=True)
@click.option("--warmup", type=float, help="seconds flat out before the window (default: PLANS)")
@click.option("--window", type=float, help="seconds of the flat-out window")
@click.option("--settle", type=float, help="seconds paced before the paced window")
@click.option("--paced", type=float, help="seconds of the paced window")
@click.option("--pace", type=float, help="seconds between a unit's syncs when paced")
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON instead of a table")
@click.option("--baseline-server", is_flag=True, hidden=True)  # the baseline's server process
@click.option("--keyring", hidden=True)
def main(units, warmup, window, settle, paced, pace, as_json, baseline_server, keyring):
    if baseline_server:
        serve_baseline(keyring)
        return
    f = run(units, warmup, window, settle, paced, pace)
    print(json.dumps(f)) if as_json else report(f)


if __name__ == "__main__":
    main()
