"""`make bench`, the director's page under a big session (issue 11): the time to first byte of `GET /director`
(logged in) with 1,000 tables and 5,000 open alerts stored, and the time from a unit's acknowledged sync to its
table row reaching every page subscribed to `/director/events` (Server-Sent Events) while 1,000 units sync, each
against a baseline from the same run; and the event loop's largest stall over that load.

The collector is the real one: `bidwire serve` (uvicorn on 127.0.0.1, a fresh data directory, a keyring of 1,000
units, a director password file), started and stopped as in collector_bench.py. The session is put in through
the units' own sync endpoint, signed, with the firmware's HTTP client: each unit gets its round 1 assign command
(queued before the collector starts, collector_bench.assignments: a 25-table Mitchell per section, 40 sections),
then sends hello, the board_start of its first board and five director calls (`td_call`, one alert each, open
until the director ends it), so the queue holds 5,000 open alerts and the grid 1,000 tables, each at a board in
the bidding. The store is checked for exactly that before anything is measured.

- **Time to first byte.** A login as the director (the login form and its CSRF cookie, then the password), then
  `GET /director` with that session cookie, request sent (connect included) to the first byte of the answer,
  `TTFB_REPEATS` times on the idle collector, each followed by `GET /healthz` (the baseline: a page that reads one
  count from the store, same server, same moment). Medians; the whole answer's time and size in the method text.
- **Commit to page.** `SUBSCRIBERS` director pages (a login each) hold `/director/events` open (the raw stream,
  read as a browser's EventSource reads it) and have had their `ready` message. Then each unit sends one call of
  its board's auction every `PACE_S` seconds, phases spread evenly (200 syncs/s, as collector_bench's paced load);
  after `SETTLE_S` s, for `WINDOW_S` s, every sync acknowledged is matched on every stream with the first `rows`
  message that carries that unit's row and was received after the sync was sent: the figure is that message's
  arrival less the acknowledgement's (negative when the page heard first: the after-commit step publishes before
  the answer goes out). p50 and p99 over every (sync, page) pair; a pair with no message is counted apart. The
  baseline: the p99 acknowledgement latency of the same syncs (what the commit itself takes).
- **Loop stall.** `/healthz?loop_window_s=` at the end of the window (collector/loopprobe.py); baseline: the same
  probe over as long a quiet stretch of the same server before the load (the streams open, nothing syncing).

    .venv/bin/python bench/collector_live.py [--units 1000] [--subscribers 5] [--json]
"""
import asyncio
import hashlib
import hmac
import json
import re
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import click
import collector_bench as cb

from bidwire.unit import http

ALERTS_PER_UNIT = 5
SUBSCRIBERS = 5
PACE_S = 5.0
SETTLE_S = 5.0
WINDOW_S = 15.0
TTFB_REPEATS = 15
TARGET_TTFB_MS = 200
TARGET_PAGE_P99_MS = 250
PASSWORD = "bench-director-password"
SEATS = "NESW"


class LiveUnit:
    """One table's unit: the events that put its table and its alerts in the store, then one call at a time."""

    def __init__(self, i, t0):
        self.unit, self.key = cb.unit_id(i), bytes.fromhex(cb.secret(i))
        self.t0, self.seq = t0, 1
        a = cb.assignments(i)[0]
        board = a["boards"][0]
        start, events = cb.board_events(board, i % cb.VARIANTS)
        self.start = dict(start, section=a["section"], table=a["table"], round=a["round"], ns=a["ns"], ew=a["ew"])
        self.calls = [e for e in events if e.startswith('{"type": "call"')]
        self.board = board
        self.cmd_ack = 0

    def _raw(self, head):
        raw = f'{head}, "t": {int(time.time() - self.t0)}, "unit": "{self.unit}", "seq": {self.seq}}}'
        self.seq += 1
        return raw

    def _body(self, heads):
        events = ", ".join(self._raw(h) for h in heads)
        return f'{{"unit": "{self.unit}", "boot": 1, "cmd_ack": {self.cmd_ack}, "events": [{events}]}}'.encode()

    def populate(self):
        heads = [json.dumps({"type": "hello", "boot": 1, "backlog": 0, "firmware": "bidwire-unit bench",
                             "board": "bench", "battery": 90, "rssi": -60})[:-1], json.dumps(self.start)[:-1]]
        heads += [json.dumps({"type": "td_call", "board": self.board, "seat": SEATS[k % 4]})[:-1]
                  for k in range(ALERTS_PER_UNIT)]
        return self._body(heads)

    def next_call(self):
        if not self.calls:
            raise SystemExit(f"unit {self.unit} ran out of calls: make WINDOW_S shorter or PACE_S longer")
        return self._body([self.calls.pop(0)])


async def post(unit, port, body):
    """A signed sync; (seconds it took, the reply). Anything but 200 stops the run."""
    signature = hmac.new(unit.key, body, hashlib.sha256).hexdigest()
    t = time.perf_counter()
    status, reply = await http.post("127.0.0.1", port, cb.PATH, body, ((cb.SIGNATURE, signature),), 30000)
    if status != 200:
        raise SystemExit(f"sync of {unit.unit} answered {status}: {bytes(reply[:300])!r}")
    r = json.loads(reply)
    for c in r.get("commands") or []:
        unit.cmd_ack = max(unit.cmd_ack, c.get("seq", 0))
    return time.perf_counter() - t, r


async def request(port, method, path, headers=(), body=b""):
    """One HTTP/1.1 request on its own connection: (status, headers {lower name: [values]}, body, seconds to the
    first byte, seconds to the end). Connect included in both times."""
    t = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", *headers]
        if body:
            head.append(f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()
        first = await reader.read(1)
        ttfb = time.perf_counter() - t
        raw = first + await reader.read()
        total = time.perf_counter() - t
    finally:
        writer.close()
    top, _, content = raw.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields.setdefault(name.strip().lower(), []).append(value.strip())
    if "chunked" in ",".join(fields.get("transfer-encoding", [])):
        content = _unchunk(content)
    return int(lines[0].split()[1]), fields, content, ttfb, total


def _unchunk(data):
    out, at = b"", 0
    while True:
        end = data.index(b"\r\n", at)
        size = int(data[at:end].split(b";")[0], 16)
        if size == 0:
            return out
        out += data[end + 2:end + 2 + size]
        at = end + 2 + size + 2


def _cookie(fields, name):
    for value in fields.get("set-cookie", []):
        if value.startswith(name + "="):
            return value.split(";", 1)[0]
    raise SystemExit(f"no {name} cookie in the answer: {fields}")


async def login(port):
    """A director's session cookie ("bidwire_session=..."), through the login page as a browser does it."""
    status, fields, page, _, _ = await request(port, "GET", "/login")
    token = re.search(rb'name="csrf" value="([^"]+)"', page).group(1).decode()
    form = f"csrf={token}&password={PASSWORD}".encode()
    status, fields, _, _, _ = await request(port, "POST", "/login", (
        f"Cookie: {_cookie({'set-cookie': fields.get('set-cookie', [])}, 'bidwire_login')}",
        "Content-Type: application/x-www-form-urlencoded"), form)
    if status != 303:
        raise SystemExit(f"the director's login answered {status}")
    return _cookie(fields, "bidwire_session")


class Stream:
    """One subscribed page: /director/events read as a browser's EventSource reads it; (time, unit) of every
    table row received in a `rows` message."""

    def __init__(self):
        self.rows, self.ready, self.messages = [], asyncio.Event(), 0

    async def run(self, port, cookie):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        self.writer = writer
        writer.write(f"GET /director/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n"
                     "Accept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise SystemExit(f"/director/events answered {head[:100]!r}")
        chunked = b"chunked" in head.lower()
        buf = b""
        while True:
            if chunked:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    return
                data = (await reader.readexactly(size + 2))[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    return
            at = time.perf_counter()
            buf += data
            while b"\n\n" in buf:
                message, buf = buf.split(b"\n\n", 1)
                self._message(message.decode(), at)

    def _message(self, text, at):
        event, data = None, []
        for line in text.split("\n"):
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        self.messages += 1
        if event == "ready":
            self.ready.set()
        elif event == "rows":
            for row in json.loads("\n".join(data))["rows"]:
                self.rows.append((at, row["id"][2:]))  # "u-B001": the unit's id is all letters and digits

    def close(self):
        self.writer.close()


def check_store(data, n):
    conn = sqlite3.connect(f"file:{data / 'bidwire.sqlite3'}?mode=ro", uri=True)
    try:
        calls = conn.execute("SELECT count(*) FROM director_calls WHERE state = 'open'").fetchone()[0]
        others = conn.execute("SELECT (SELECT count(*) FROM alerts) + (SELECT count(*) FROM irregularities)"
                              ).fetchone()[0]
        tables = conn.execute("SELECT count(DISTINCT unit) FROM boards WHERE section IS NOT NULL").fetchone()[0]
    finally:
        conn.close()
    if (calls, others, tables) != (n * ALERTS_PER_UNIT, 0, n):
        raise SystemExit(f"the store holds {calls} open director calls, {others} other alerts and {tables} tables, "
                         f"not {n * ALERTS_PER_UNIT}, 0 and {n}: the bench's session is broken")


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, len(v) * p // 100)] if v else None


async def measure(port, server_pid, units, subscribers):
    sem = asyncio.Semaphore(50)

    async def populate(u):
        async with sem:
            await post(u, port, u.populate())
    await asyncio.gather(*(populate(u) for u in units))
    cookie = await login(port)
    ttfb = {"director": [], "healthz": []}
    total, size = [], 0
    for _ in range(TTFB_REPEATS):
        status, _, page, first, whole = await request(port, "GET", "/director", (f"Cookie: {cookie}",))
        if status != 200:
            raise SystemExit(f"GET /director answered {status}")
        rows = page.count(b'<tr id="u-')
        if rows != len(units):
            raise SystemExit(f"the director's page shows {rows} tables, not {len(units)}")
        ttfb["director"].append(first)
        total.append(whole)
        size = len(page)
        status, _, _, first, _ = await request(port, "GET", "/healthz")
        ttfb["healthz"].append(first)

    streams = [Stream() for _ in range(subscribers)]
    cookies = [await login(port) for _ in streams]
    tasks = [asyncio.create_task(s.run(port, c)) for s, c in zip(streams, cookies, strict=True)]
    await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in streams)), 120)
    await asyncio.sleep(WINDOW_S)  # quiet: the streams open, nothing syncing
    quiet = await cb.loop_stall(port, WINDOW_S)

    syncs = []  # (unit, sent, acknowledged)
    start = time.perf_counter()
    end = start + SETTLE_S + WINDOW_S
    meter = {}

    async def drive(u, offset):
        at = start + offset
        while at < end:
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            sent = time.perf_counter()
            took, _ = await post(u, port, u.next_call())
            syncs.append((u.unit, sent, sent + took))
            at += PACE_S

    async def cpu():
        await asyncio.sleep(SETTLE_S)
        meter["begin"] = cb.cpu_now(server_pid)
        await asyncio.sleep(max(0.0, end - time.perf_counter()))
        meter["end"] = cb.cpu_now(server_pid)
        meter["loop"] = await cb.loop_stall(port, WINDOW_S)

    await asyncio.gather(cpu(), *(drive(u, PACE_S * k / len(units)) for k, u in enumerate(units)))
    await asyncio.sleep(2.0)  # the last rows on their way
    for s in streams:
        s.close()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    begin = start + SETTLE_S
    arrivals = []  # per stream: {unit: [times]}
    for s in streams:
        per = {}
        for at, unit in s.rows:
            per.setdefault(unit, []).append(at)
        arrivals.append(per)
    latency, missing, acks = [], 0, []
    for unit, sent, acked in syncs:
        if not begin <= acked < end:
            continue
        acks.append(acked - sent)
        for per in arrivals:
            later = [t for t in per.get(unit, ()) if t >= sent]
            if later:
                latency.append(min(later) - acked)
            else:
                missing += 1
    (s0, g0, m0, w0), (s1, g1, m1, w1) = meter["begin"], meter["end"]
    return {
        "ttfb_ms": {k: [1000 * x for x in v] for k, v in ttfb.items()}, "director_total_ms": [1000 * x for x in total],
        "director_bytes": size, "page_ms": [1000 * x for x in latency], "missing": missing,
        "ack_ms": [1000 * x for x in acks], "syncs": len(acks), "loop": meter["loop"], "quiet_loop": quiet,
        "messages": sum(s.messages for s in streams),
        "cpu": {"server": (s1 - s0) / (w1 - w0), "generator": (g1 - g0) / (w1 - w0),
                "other": max(0.0, (m1 - m0) - (s1 - s0) - (g1 - g0)) / (w1 - w0)},
    }


def run(n=1000, subscribers=SUBSCRIBERS):
    cb.raise_nofile()
    with tempfile.TemporaryDirectory(prefix="bidwire-bench-live-") as tmp:
        tmp = Path(tmp)
        data = tmp / "collector"
        keyring = cb.write_keyring(tmp / "keyring.json", n)
        password = tmp / "director-password"
        password.write_text(PASSWORD + "\n")
        from bidwire_host.collector import commands
        from bidwire_host.collector.store import Store

        with Store(data) as store:
            store.write(lambda conn: [commands.enqueue(conn, cb.unit_id(i), cb.assignments(i)[0])
                                      for i in range(1, n + 1)])
        server = cb.Server([str(cb.BIDWIRE), "serve", "--data", str(data), "--keyring", str(keyring), "--port", "0",
                            "--log-level", "warning", "--director-password-file", str(password)], tmp / "serve.log")
        try:
            t0 = time.time()
            units = [LiveUnit(i, t0) for i in range(1, n + 1)]
            out = asyncio.run(measure(server.port, server.proc.pid, units, subscribers))
        finally:
            server.stop()
        check_store(data, n)
    out.update(units=n, subscribers=subscribers, alerts=n * ALERTS_PER_UNIT, nproc=cb.os.cpu_count(),
               loadavg_1min=cb.os.getloadavg()[0])
    return out


def figures(f):
    """Figure dicts for bench/run.py (its `figure(**...)`)."""
    n, subs = f["units"], f["subscribers"]
    med = statistics.median
    cpu = (f"CPU in cores over the window: server {f['cpu']['server']:.2f}, load generator "
           f"{f['cpu']['generator']:.2f}, other processes {f['cpu']['other']:.2f} of {f['nproc']}")
    session = (f"`bidwire serve` on 127.0.0.1, {n:,} units (keyring), each its round 1 assign queued and then, "
               f"through the signed sync endpoint: hello, board_start, {ALERTS_PER_UNIT} director calls: {n:,} tables "
               f"at a board, {f['alerts']:,} open alerts (checked in the store)")
    ttfb = (f"{session}; logged in as the director, GET /director (the grid of {n:,} rows and the first page of "
            f"the queue, {f['director_bytes']:,} B) on the idle collector: request sent, connect included, to the "
            f"first byte of the answer; median of {TTFB_REPEATS} (range {min(f['ttfb_ms']['director']):.0f}-"
            f"{max(f['ttfb_ms']['director']):.0f} ms; to the last byte: median "
            f"{med(f['director_total_ms']):.0f} ms); each followed by GET /healthz, the baseline (range "
            f"{min(f['ttfb_ms']['healthz']):.1f}-{max(f['ttfb_ms']['healthz']):.1f} ms)")
    lat = f["page_ms"]
    page = (f"{session}; {subs} director pages subscribed to /director/events (a login each); each unit sends one "
            f"call every {PACE_S:g} s, phases spread evenly, {WINDOW_S:g} s window after {SETTLE_S:g} s: for each "
            f"of the {f['syncs']:,} syncs acknowledged in the window and each page, the first `rows` message "
            f"carrying that unit's row received after the sync was sent, less the acknowledgement's time "
            f"(negative: the page heard first); {len(lat):,} pairs, {f['missing']} with no message, "
            f"{f['messages']:,} messages in all; p50 {pct(lat, 50):.1f} ms, max {max(lat):.1f} ms; baseline: the "
            f"p99 acknowledgement of the same syncs (p50 {pct(f['ack_ms'], 50):.1f} ms); {cpu}")
    stall = (f"the collector's event loop probe (collector/loopprobe.py) over the {WINDOW_S:g} s window of the "
             f"commit-to-page run ({n:,} units syncing, {subs} pages subscribed), /healthz?loop_window_s=; "
             f"baseline: the same probe over {WINDOW_S:g} s of the same server just before, the pages subscribed "
             f"and nothing syncing; since start {f['loop']['max_stall_ms']:g} ms, "
             f"{f['loop']['stalls_over_100ms']} stalls over 100 ms; {cpu}")
    return [
        {"name": f"collector: director page time to first byte, {n:,} tables, {f['alerts']:,} alerts",
         "value": med(f["ttfb_ms"]["director"]), "unit": "ms", "target": TARGET_TTFB_MS, "method": ttfb,
         "baseline": med(f["ttfb_ms"]["healthz"]), "baseline_name": "GET /healthz on the same server, same moments",
         "tag": "GET /healthz", "spread": f["ttfb_ms"]["director"]},
        {"name": f"collector: unit's commit to a subscribed page p99, {n:,} units, {subs} pages",
         "value": pct(lat, 99), "unit": "ms", "target": TARGET_PAGE_P99_MS, "method": page,
         "baseline": pct(f["ack_ms"], 99), "baseline_name": "the p99 acknowledgement latency of the same syncs",
         "tag": "ack p99, same syncs"},
        {"name": f"collector: event loop's largest stall, {n:,} units, {subs} live pages",
         "value": f["loop"]["max_stall_ms_window"], "unit": "ms", "method": stall,
         "baseline": f["quiet_loop"]["max_stall_ms_window"],
         "baseline_name": "the same server's probe over a quiet window (pages subscribed, nothing syncing)",
         "tag": "quiet window"},
    ]


@click.command(help=__doc__.splitlines()[0])
@click.option("--units", type=int, default=1000, show_default=True)
@click.option("--subscribers", type=int, default=SUBSCRIBERS, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON")
def main(units, subscribers, as_json):
    f = run(units, subscribers)
    if as_json:
        print(json.dumps(f))
    else:
        for x in figures(f):
            print(f"{x['name']}: {x['value']:.1f} {x['unit']} (target {x.get('target')}; baseline "
                  f"{x['baseline']:.1f}, {x['tag']})")
            print(f"    {x['method']}")
    return f


if __name__ == "__main__":
    main()
