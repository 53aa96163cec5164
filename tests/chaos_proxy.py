"""A loopback TCP proxy that injects network faults between the table units and the collector (issue 6,
fault injection; docs/reliability.md).

The units post one HTTP request per connection (`Connection: close`, firmware/bidwire/unit/http.py), so the
proxy reads a whole request from the unit, then treats the connection one of these ways, drawn from a seeded
random generator with the probabilities given:

- pass            forwarded, the response returned;
- delay           the request held back and/or the response held back a random number of milliseconds (now
                  and then past the unit's 5 s timeout: the unit gives up and retries, the late request lands
                  after its retry);
- drop_request    the connection closed before anything is forwarded (at once, or once the request is read);
- drop_response   the request forwarded, the collector stores the batch and answers, the answer thrown away:
                  the unit never gets the acknowledgement and sends the same events again;
- duplicate       the same request bytes sent to the collector twice, each on its own connection (the second
                  at once or later); the unit gets the first answer or the second;
- reorder         the request kept back and delivered after a later request of the same unit: either instead
                  of now (the unit's connection is closed, it retries, the held copy arrives after the retry)
                  or as a stale copy replayed after a newer request, the original having gone through;
- cut_request     the connection cut after a random part of the request was forwarded;
- cut_response    the connection cut after a random part of the collector's answer was returned.

The collector's address can change under the proxy (`retarget`), and a collector that is down makes the proxy
close the unit's connection, as a dead host would. Everything is counted (`figures()`), every request body the
units sent is kept (`sent`: unit -> seq -> event, and `conflicts` if a seq ever came with two bodies), and the
highest acknowledgement each unit was actually handed (`acks`). The proxy never raises out of a connection:
resets, timeouts and garbage end that connection only.

    proxy = ChaosProxy(("127.0.0.1", collector_port), seed=7, faults={"drop_response": 0.1, ...})
    proxy.start()            # proxy.port: where the units connect
    ...
    proxy.flush()            # deliver what is still held back
    proxy.stop()
"""
import asyncio
import json
import random
import threading
import time
from collections import Counter, defaultdict

KINDS = ("delay", "drop_request", "drop_response", "duplicate", "reorder", "cut_request", "cut_response")
DEFAULT_FAULTS = {"delay": 0.10, "drop_request": 0.04, "drop_response": 0.07, "duplicate": 0.07, "reorder": 0.05,
                  "cut_request": 0.03, "cut_response": 0.03}
MAX_HEAD = 64 * 1024
MAX_BODY = 1024 * 1024
CLIENT_TIMEOUT = 30  # s: a unit that sends nothing for this long loses its connection
UPSTREAM_TIMEOUT = 60  # s: the collector's whole answer (it commits before answering)
HOLD_SECONDS = 4.0  # a held request no later request of its unit released is delivered anyway after this


class ChaosProxy:
    def __init__(self, upstream, seed, faults=None, delay_ms=(20, 1500), late_ms=(5500, 7000), late=0.1):
        self.upstream = tuple(upstream)
        self.seed = seed
        self.rng = random.Random(seed)
        self.faults = dict(DEFAULT_FAULTS if faults is None else faults)
        unknown = set(self.faults) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}: {', '.join(KINDS)}")
        if sum(self.faults.values()) > 1:
            raise ValueError("fault probabilities add up to more than 1")
        self.delay_ms, self.late_ms, self.late = delay_ms, late_ms, late
        self.counts = Counter()
        self.sent = defaultdict(dict)  # unit -> seq -> the event as the unit sent it
        self.conflicts = []  # (unit, seq) that came with two different bodies: must stay empty
        self.acks = {}  # unit -> the highest ack the unit was handed in a complete response
        self.held = defaultdict(list)  # unit -> [(when, request bytes)] waiting for a later request of the unit
        self.port = None
        self._loop = None
        self._server = None
        self._thread = None
        self._tasks = set()
        self._lock = threading.Lock()

    # ---- life cycle --------------------------------------------------------------------------------------------
    def start(self, host="127.0.0.1", port=0):
        ready = threading.Event()
        failed = []

        def run():
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._server = loop.run_until_complete(asyncio.start_server(self._client, host, port, backlog=256))
            except OSError as e:
                failed.append(e)
                ready.set()
                loop.close()
                return
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name="chaos-proxy", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failed:
            raise failed[0]
        if self.port is None:
            raise RuntimeError("the chaos proxy did not start")
        self._loop.call_soon_threadsafe(self._spawn, self._release_old())
        return self

    def retarget(self, upstream):
        """Forward to another address from the next connection on (a collector restarted elsewhere)."""
        self.upstream = tuple(upstream)

    def set_faults(self, faults):
        """New fault probabilities from the next connection on ({} makes a plain proxy)."""
        self.faults = dict(faults)

    def flush(self, timeout=60):
        """Deliver every request still held back (reorders) to the collector, and wait for them."""
        if self._loop is None or not self._loop.is_running():
            return
        fut = asyncio.run_coroutine_threadsafe(self._flush(), self._loop)
        fut.result(timeout)

    def stop(self):
        loop = self._loop
        if loop is None or not loop.is_running():
            return

        async def shutdown():
            self._server.close()
            for t in list(self._tasks):
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._server.wait_closed()

        try:
            asyncio.run_coroutine_threadsafe(shutdown(), loop).result(20)
        except Exception:  # noqa: BLE001 - stopping must not fail a test's clean-up
            pass
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(20)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- figures -----------------------------------------------------------------------------------------------
    def figures(self):
        with self._lock:
            c = dict(self.counts)
        faults = {k: c.get(k, 0) for k in KINDS}
        return {"seed": self.seed, "connections": c.get("connections", 0), "faults": faults,
                "faults_total": sum(faults.values()), "passed": c.get("pass", 0),
                "forwarded": c.get("forwarded", 0), "responses_returned": c.get("responses", 0),
                "late_deliveries": c.get("late", 0), "held_delivered": c.get("held_delivered", 0),
                "upstream_down": c.get("upstream_down", 0), "errors": c.get("errors", 0),
                "bytes_up": c.get("bytes_up", 0), "bytes_down": c.get("bytes_down", 0)}

    def _count(self, key, n=1):
        with self._lock:
            self.counts[key] += n

    # ---- one connection --------------------------------------------------------------------------------------
    def _spawn(self, coro):
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _pick(self):
        x = self.rng.random()
        for kind in KINDS:
            p = self.faults.get(kind, 0)
            if x < p:
                return kind
            x -= p
        return "pass"

    async def _client(self, reader, writer):
        task = asyncio.current_task()
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self._count("connections")
        kind = self._pick()
        rng = random.Random(self.rng.random())  # this connection's own draws, whatever the others do meanwhile
        try:
            if kind == "drop_request" and rng.random() < 0.5:
                self._count(kind)
                return  # closed at once, nothing read
            request = await asyncio.wait_for(self._read_request(reader), CLIENT_TIMEOUT)
            if request is None:
                self._count("errors")
                return
            self._count("bytes_up", len(request))
            unit = self._note_request(request)
            await self._handle(kind, rng, request, unit, writer)
        except asyncio.CancelledError:
            return  # the proxy stops: end quietly (asyncio's server logs a handler task that ends cancelled)
        except Exception:  # noqa: BLE001 - resets, timeouts, garbage: this connection ends, the proxy goes on
            self._count("errors")
        finally:
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), 5)
            except Exception:  # noqa: BLE001
                pass

    async def _handle(self, kind, rng, request, unit, writer):
        if kind == "pass":
            self._count("pass")
            await self._answer(writer, await self._forward(request), unit)
        elif kind == "delay":
            self._count(kind)
            late = rng.random() < self.late
            before = rng.uniform(*self.late_ms) if late else rng.uniform(*self.delay_ms) * rng.random()
            if late:
                self._count("late")
                # the unit gives up waiting; the request still reaches the collector, after the unit's retry
                self._spawn(self._deliver_later(request, before / 1000))
                await asyncio.sleep(before / 1000)
                return
            after = rng.uniform(*self.delay_ms) * rng.random()
            await asyncio.sleep(before / 1000)
            response = await self._forward(request)
            await asyncio.sleep(after / 1000)
            await self._answer(writer, response, unit)
        elif kind == "drop_request":
            self._count(kind)  # read, never forwarded
        elif kind == "drop_response":
            self._count(kind)
            await self._forward(request)  # stored by the collector; the unit never hears of it
            self._release(unit)
        elif kind == "duplicate":
            self._count(kind)
            if rng.random() < 0.5:  # the copy later, on its own connection, after the unit has its answer
                response = await self._forward(request)
                self._spawn(self._deliver_later(request, rng.uniform(0, 2)))
            else:  # both at once, each on its own connection; the unit gets one of the two answers
                first, second = await asyncio.gather(self._forward(request), self._forward(request),
                                                     return_exceptions=True)
                response = first if rng.random() < 0.5 else second
                if isinstance(response, BaseException):
                    raise response
            await self._answer(writer, response, unit)
        elif kind == "reorder":
            self._count(kind)
            with self._lock:
                self.held[unit].append((time.monotonic(), request))
            if rng.random() < 0.5:
                return  # held instead: the unit retries; this copy arrives after a later request of the unit
            await self._answer(writer, await self._forward(request), unit, release=False)  # a stale replay later
        elif kind == "cut_request":
            self._count(kind)
            await self._forward(request, cut=rng.randrange(1, len(request)))
        elif kind == "cut_response":
            self._count(kind)
            response = await self._forward(request)
            self._release(unit)
            if response:
                writer.write(response[:rng.randrange(0, len(response))])
                await writer.drain()

    async def _read_request(self, reader):
        """The request's bytes (head and Content-Length body), or None if the unit sent no whole request."""
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > MAX_HEAD:
            return None
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if not 0 <= length <= MAX_BODY:
            return None
        body = await reader.readexactly(length)
        return head + body

    def _note_request(self, request):
        """Keep the events of a sync body (what the unit sent); the unit it names, or None."""
        try:
            body = json.loads(request.split(b"\r\n\r\n", 1)[1])
            unit = body["unit"]
            events = body["events"]
        except (ValueError, KeyError, TypeError, IndexError):
            return None
        with self._lock:
            seen = self.sent[unit]
            for e in events:
                seq = e.get("seq") if isinstance(e, dict) else None
                if not isinstance(seq, int):
                    continue
                if seq in seen and seen[seq] != e:
                    self.conflicts.append((unit, seq))
                seen.setdefault(seq, e)
        return unit

    async def _forward(self, request, cut=None):
        """One delivery of the request to the collector on a connection of its own; the whole response (bytes
        up to the collector's close), or None when the collector is down or the request was cut."""
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(*self.upstream), 10)
        except (OSError, asyncio.TimeoutError):
            self._count("upstream_down")
            return None
        try:
            writer.write(request if cut is None else request[:cut])
            await writer.drain()
            if cut is not None:
                return None
            self._count("forwarded")
            response = await asyncio.wait_for(reader.read(), UPSTREAM_TIMEOUT)  # to EOF: Connection: close
            self._count("bytes_down", len(response))
            return response
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
            self._count("upstream_down")
            return None
        finally:
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), 5)
            except Exception:  # noqa: BLE001
                pass

    async def _answer(self, writer, response, unit, release=True):
        """Return the collector's response to the unit (nothing if there is none: the unit sees a closed
        connection); then deliver what its earlier requests left held back."""
        if release:
            self._release(unit)
        if not response:
            return
        writer.write(response)
        await writer.drain()
        self._count("responses")
        if unit is not None and response.startswith(b"HTTP/1.1 200"):
            try:
                ack = json.loads(response.split(b"\r\n\r\n", 1)[1])["ack"]
            except (ValueError, KeyError, TypeError, IndexError):
                return
            with self._lock:
                self.acks[unit] = max(self.acks.get(unit, 0), ack)

    def _release(self, unit):
        """A request of the unit has gone through: what its earlier requests left held back now follows it."""
        with self._lock:
            held = self.held.pop(unit, [])
        for _, request in held:
            self._spawn(self._deliver_held(request))

    async def _deliver_held(self, request):
        if await self._forward(request) is not None:
            self._count("held_delivered")

    async def _deliver_later(self, request, seconds):
        await asyncio.sleep(seconds)
        await self._forward(request)

    async def _release_old(self):
        """Held requests whose unit sent nothing more go through after HOLD_SECONDS all the same."""
        while True:
            await asyncio.sleep(0.5)
            now = time.monotonic()
            with self._lock:
                units = [u for u, items in self.held.items() if items and now - items[0][0] > HOLD_SECONDS]
            for u in units:
                self._release(u)

    async def _flush(self):
        with self._lock:
            units = list(self.held)
        for u in units:
            self._release(u)
        pending = [t for t in self._tasks if t is not asyncio.current_task() and not t.done()
                   and t.get_coro().__name__ in ("_deliver_held", "_deliver_later")]
        await asyncio.gather(*pending, return_exceptions=True)
