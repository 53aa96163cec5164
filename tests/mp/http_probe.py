"""http.post and hmac256 on the real MicroPython interpreter, driven by tests/host/test_http_micropython.py.

Run with MICROPYPATH at the compiled firmware (`python -m bidwire_host.unit_tools.mpy ... --out DIR firmware`):
  micropython -X heapsize=64K http_probe.py sync HOST PORT UNIT SECRET_HEX FIRST_SEQ COUNT CMD_ACK
      signs a batch of COUNT note events from FIRST_SEQ with the unit's secret and posts it to /api/v1/sync
  micropython -X heapsize=64K http_probe.py post HOST PORT TIMEOUT_MS MAX_BODY LINGER_MS
      posts b"{}" to /api/v1/sync with header X-Probe: 1, then waits LINGER_MS before exiting (so a test can
      tell that http.post closed the connection, not the exit)
  micropython -X heapsize=64K http_probe.py lookups HOST GOOD_PORT BAD_PORT
      posts twice to GOOD_PORT, twice to BAD_PORT (a server that closes without answering), once more to
      GOOD_PORT; prints http.lookups after each post
  micropython -X heapsize=160K http_probe.py deinit HOST PORT STATE_DIR
      runs the unit's sync client (a real store) against PORT until its first POST is under way, then deinit();
      prints {"posts", "done", "fds"} (fds: descriptors open then beyond those before the store) and waits
      250 ms before exiting (the test sees who closed the socket)
  micropython -X heapsize=64K http_probe.py bench
      times signing a 1 KB body
Each prints one JSON line: {"status", "body", "heap", "fds"} or {"error", "message", "heap", "fds"} (heap: bytes
http.post allocated; fds: file descriptors it left open, 0 unless it leaks a socket), or the benchmark's figures.
"""
import asyncio
import gc
import json
import os
import sys
import time
from binascii import unhexlify

from bidwire.unit import hmac256, http


def open_fds():
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:  # no /proc: not counted
        return 0


async def measured_post(host, port, body, headers, timeout_ms, max_body=None):
    """max_body None: http.post's own limit (http.MAX_BODY)."""
    fds = open_fds()
    gc.collect()
    gc.disable()  # nothing is collected during the call, so the drop in free heap is all it allocated
    free = gc.mem_free()
    try:
        limit = () if max_body is None else (max_body,)
        status, answer = await http.post(host, port, "/api/v1/sync", body, headers, timeout_ms, *limit)
        result = {"status": status, "body": answer.decode()}
    except http.HttpError as e:
        result = {"error": type(e).__name__, "message": str(e)}
    result["heap"] = free - gc.mem_free()
    gc.enable()
    result["fds"] = open_fds() - fds
    return result


def sync(host, port, unit, secret, first, count, cmd_ack):
    events = [{"seq": seq, "type": "note", "text": "probe"} for seq in range(first, first + count)]
    body = json.dumps({"unit": unit, "boot": 1, "events": events, "cmd_ack": cmd_ack}).encode()
    signature = hmac256.Signer(unhexlify(secret)).hex(body)
    return measured_post(host, port, body, (("X-Bidwire-Signature", signature),), 5000)


def bench():
    signer = hmac256.Signer(b"\x5a" * 32)
    body = b"x" * 1024
    signer.hex(body)
    n = 200
    gc.collect()
    start = time.ticks_us()
    for _ in range(n):
        signer.hex(body)
    us = time.ticks_diff(time.ticks_us(), start)
    gc.collect()
    gc.disable()
    free = gc.mem_free()
    signer.hex(body)
    allocated = free - gc.mem_free()
    gc.enable()
    start = time.ticks_us()
    for _ in range(n):
        hmac256.Signer(b"\x5a" * 32)
    new_us = time.ticks_diff(time.ticks_us(), start)
    return {"sign_1k_us": us // n, "alloc_per_sign": allocated, "new_signer_us": new_us // n}


async def lookups(host, good, bad):
    seen = []
    for port in (good, good, bad, bad, good):
        try:
            await http.post(host, port, "/", b"{}", (), 2000)
        except http.HttpError:
            pass
        seen.append(http.lookups)
    return {"lookups": seen}


async def deinit(host, port, state_dir):
    from bidwire.unit.app import App
    from bidwire.unit.journal import Journal
    from bidwire.unit.store import Store
    from bidwire.unit.sync import Sync

    class Clock:
        def time(self):
            return 1000

    class Net:
        def connected(self):
            return True

    fds = open_fds()
    store = Store(Journal(state_dir), App("T01"), Clock())
    store.open({"firmware": "probe"})
    sync = Sync(store, {"unit": "T01", "collector": f"http://{host}:{port}", "secret": "5a" * 32,
                        "heartbeat_ms": 5000}, Net())
    sync.start()
    task = sync._task
    while not sync.posts:
        await asyncio.sleep_ms(10)
    await asyncio.sleep_ms(100)  # connected, request sent, waiting for an answer that never comes
    sync.deinit()
    await asyncio.sleep_ms(20)
    store.journal.close()
    return {"posts": sync.posts, "done": task.done(), "fds": open_fds() - fds}


def main(argv):
    mode = argv[1]
    if mode == "bench":
        result = bench()
    elif mode == "sync":
        result = asyncio.run(sync(argv[2], int(argv[3]), argv[4], argv[5], int(argv[6]), int(argv[7]), int(argv[8])))
    elif mode == "post":
        result = asyncio.run(measured_post(argv[2], int(argv[3]), b"{}", (("X-Probe", "1"),), int(argv[4]),
                                           int(argv[5])))
        time.sleep_ms(int(argv[6]))
    elif mode == "lookups":
        result = asyncio.run(lookups(argv[2], int(argv[3]), int(argv[4])))
    elif mode == "deinit":
        result = asyncio.run(deinit(argv[2], int(argv[3]), argv[4]))
        print(json.dumps(result))
        time.sleep_ms(250)
        return
    else:
        raise SystemExit("modes: sync, post, lookups, deinit, bench")
    print(json.dumps(result))


main(sys.argv)
