"""`make bench`, the collector on a hostile network (issue 12): a legitimate unit's acknowledgement latency, p95 and
p99, while 1,000 idle connections, 100 forged-body flooders and 200 readers of `/results` hit the server, against
the same unit alone on the same server in the same run (the baseline).

The collector is the real one (`bidwire serve` through tests/collector_proc.py, its default limits: request heads
within 10 s, 32 connections per address), with its results published so that `/results` shows the ranking page.
The unit (T01, on 127.0.0.1) syncs one hello event at a time, each on a connection of its own as the firmware does,
every PACE_S; its latency is from the connect to the whole answer. The hostile load runs in another process (this
file with `--load`), each client bound to an address of its own in the loopback range, as the devices of a room:

- 1,000 idle connections from 40 addresses (25 each, under the per-address cap), each sending half a request
  head and nothing more; one that the collector closes (the head deadline) is opened again at once;
- 100 flooders (one address each), each posting a well-formed sync body signed with the wrong key (401) every
  FLOOD_INTERVAL_S on a kept-alive connection;
- 200 readers (one address each), each getting `/results` every READ_INTERVAL_S on a kept-alive connection.

The flooders and readers start at random phases of their interval; the idle connections are opened together,
so their head deadlines fall together (an attacker can do that): the burst of 1,000 answers 408 and 1,000 new
connections is in the window.

Afterwards the store must hold every event the unit sent, once. Linux only (the loopback range beyond 127.0.0.1).

    .venv/bin/python bench/hostile_bench.py [--syncs N] [--json]
"""
import asyncio
import hashlib
import hmac
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

SECRET = "3c" * 32
PACE_S = 0.025
FLOOD_INTERVAL_S = 0.5
READ_INTERVAL_S = 2.0
IDLE, IDLE_ADDRESSES, FLOODERS, READERS = 1000, 40, 100, 200
TARGET_P99_MS = 100


def signed_sync(seq, secret=SECRET):
    raw = json.dumps({"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [
        {"seq": seq, "type": "hello", "boot": 1, "backlog": 0, "firmware": "bidwire-unit 0.3", "board": "unix_sim",
         "battery": 90, "rssi": -50, "t": seq}]}).encode()
    return raw, hmac.new(bytes.fromhex(secret), raw, hashlib.sha256).hexdigest()


def unit_syncs(port, seqs):
    """The unit's acknowledgement latencies (ms), one sync per connection, one every PACE_S."""
    out = []
    for seq in seqs:
        raw, sig = signed_sync(seq)
        began = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/api/v1/sync", body=raw, headers={"Content-Type": "application/json",
                                                                "X-Bidwire-Signature": sig, "Connection": "close"})
        answer = conn.getresponse()
        body = answer.read()
        out.append((time.perf_counter() - began) * 1000)
        conn.close()
        if answer.status != 200 or json.loads(body)["ack"] != seq:
            raise RuntimeError(f"sync {seq}: {answer.status} {body[:200]!r}")
        time.sleep(max(0.0, PACE_S - out[-1] / 1000))
    return out


def percentile(values, p):
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


# --- the hostile load (`--load PORT`), in its own process ---

async def _exchange(reader, writer, request):
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    await reader.readexactly(length)
    return int(head.split(b" ", 2)[1]), b"connection: close" in head.lower()


async def _client(port, address, request, interval, counts, stop):
    """Send `request` every `interval` on a kept-alive connection from `address`, reconnecting when closed; the
    first after a random part of the interval, so that the clients are not in step (phones are not)."""
    await asyncio.sleep(random.uniform(0, interval))
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        except OSError:
            counts["connect_failed"] = counts.get("connect_failed", 0) + 1
            await asyncio.sleep(interval)
            continue
        try:
            while not stop.is_set():
                status, closing = await _exchange(reader, writer, request)
                counts[status] = counts.get(status, 0) + 1
                if closing:
                    break
                await asyncio.sleep(interval)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            counts["dropped"] = counts.get("dropped", 0) + 1
        finally:
            writer.close()


async def _idle(port, address, counts, stop):
    """Hold a half-sent request head open; open another when the collector closes it."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
            writer.write(b"POST /api/v1/sync HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bidwire-Sig")
            counts["idle_opened"] = counts.get("idle_opened", 0) + 1
            await reader.read()  # until the collector answers 408 and closes
        except OSError:
            await asyncio.sleep(0.5)
        else:
            writer.close()


async def _load(port, duration):
    random.seed(12)
    stop = asyncio.Event()
    counts = {}
    raw, _ = signed_sync(1)
    forged = (b"POST /api/v1/sync HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"X-Bidwire-Signature: " + hmac.new(b"wrong key", raw, hashlib.sha256).hexdigest().encode() +
              b"\r\nContent-Length: " + str(len(raw)).encode() + b"\r\n\r\n" + raw)
    read = b"GET /results HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    tasks = [asyncio.create_task(_idle(port, f"127.0.3.{1 + i % IDLE_ADDRESSES}", counts, stop))
             for i in range(IDLE)]
    await asyncio.sleep(1.0)  # the idle connections first
    tasks += [asyncio.create_task(_client(port, f"127.0.1.{1 + i}", forged, FLOOD_INTERVAL_S, counts, stop))
              for i in range(FLOODERS)]
    tasks += [asyncio.create_task(_client(port, f"127.0.2.{1 + i}", read, READ_INTERVAL_S, counts, stop))
              for i in range(READERS)]
    await asyncio.sleep(2.0)
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    await asyncio.wait([loop.run_in_executor(None, sys.stdin.readline)], timeout=duration)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({str(k): v for k, v in counts.items()}), flush=True)


def load_main(port, duration):
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(_load(port, duration))


# --- the run ---

def run(syncs=400):
    from collector_proc import Collector

    with tempfile.TemporaryDirectory() as tmp, Collector.with_units(tmp, {"T01": SECRET}) as collector:
        r = collector.api.post("/api/v1/publish", json={})
        if r.status_code != 201:
            raise RuntimeError(f"publishing: {r.status_code} {r.text[:200]}")
        alone = unit_syncs(collector.port, range(1, syncs + 1))
        load = subprocess.Popen([sys.executable, __file__, "--load", str(collector.port), "--duration", "600",
                                 "--idle", str(IDLE), "--flooders", str(FLOODERS), "--readers", str(READERS)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            if load.stdout.readline().strip() != "ready":
                raise RuntimeError("the hostile load did not start")
            began = time.monotonic()
            hostile = unit_syncs(collector.port, range(syncs + 1, 2 * syncs + 1))
            window = time.monotonic() - began
            load.stdin.write("stop\n")
            load.stdin.flush()
            counts = json.loads(load.stdout.readline())
        finally:
            if load.poll() is None:
                load.stdin.close()
                load.wait(30)
        stored = [r["seq"] for r in collector.rows("SELECT seq FROM events WHERE unit = 'T01' ORDER BY seq")]
        if stored != list(range(1, 2 * syncs + 1)):
            raise RuntimeError(f"the store holds {len(stored)} of the unit's {2 * syncs} events")
    return {"syncs": syncs, "alone": alone, "hostile": hostile, "window_s": window, "counts": counts,
            "load_avg": os.getloadavg()[0]}


def figures(s):
    """Dicts of figure(**...) arguments for bench/run.py."""
    c = s["counts"]
    load = (f"{IDLE:,} idle connections from {IDLE_ADDRESSES} addresses (a half-sent head each, reopened when "
            f"closed: {c.get('idle_opened', 0):,} opened), {FLOODERS} flooders posting a body signed with the wrong "
            f"key every {FLOOD_INTERVAL_S:g} s ({c.get('401', 0):,} answered 401), {READERS} readers of /results every "
            f"{READ_INTERVAL_S:g} s ({c.get('200', 0):,} answered 200), each client on an address of its own, "
            f"over {s['window_s']:.0f} s")
    method = (f"bench/hostile_bench.py: one unit syncing one event per connection every {PACE_S * 1000:g} ms, "
              f"{s['syncs']} syncs, latency from connect to the whole answer; under {load}; every event stored once")
    base = "the same unit alone on the same collector, same run"
    return [{"name": f"collector: unit ack p{p} under a hostile network", "value": percentile(s["hostile"], p),
             "unit": "ms", "target": TARGET_P99_MS if p == 99 else None, "baseline": percentile(s["alone"], p),
             "baseline_name": base, "tag": "unit alone", "method": method} for p in (95, 99)]


@click.command(help=__doc__.split("\n\n")[0])
@click.option("--syncs", type=int, default=400, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON")
@click.option("--load", "load_port", type=int, hidden=True)  # the hostile load against this port
@click.option("--duration", type=float, default=60, hidden=True)
@click.option("--idle", type=int, default=IDLE, show_default=True)
@click.option("--flooders", type=int, default=FLOODERS, show_default=True)
@click.option("--readers", type=int, default=READERS, show_default=True)
def main(syncs, as_json, load_port, duration, idle, flooders, readers):
    globals().update(IDLE=idle, FLOODERS=flooders, READERS=readers)
    if load_port:
        load_main(load_port, duration)
        return
    s = run(syncs)
    if as_json:
        print(json.dumps(s))
        return
    for f in figures(s):
        print(f"{f['name']:<52} {f['value']:8.1f} ms  (alone {f['baseline']:.1f} ms)")
    print(f"hostile load: {json.dumps(s['counts'])}")


if __name__ == "__main__":
    main()
