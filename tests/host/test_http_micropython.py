"""The unit's HTTP client (bidwire.unit.http) and signer (hmac256) against real servers on loopback, run both on
CPython in-process and on the MicroPython unix port (tests/mp/http_probe.py under -X heapsize=64K, the firmware
compiled to .mpy as on a unit): a signed batch reaches the real collector (`bidwire serve` in a subprocess,
docs/architecture.md §4), and every way a response can fail to arrive is an HttpError after which the connection is
closed."""
import asyncio
import errno
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: collector_proc.py
from collector_proc import Collector  # noqa: E402

from bidwire.unit import hmac256, http  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PROBE = ROOT / "tests" / "mp" / "http_probe.py"
SECRET = "5a" * 32
INTERPRETERS = ["cpython", "micropython"]


def micropython(build, *args, heap="64K"):
    proc = subprocess.run([str(BIN / "micropython"), "-X", f"heapsize={heap}", str(PROBE), *map(str, args)],
                          env=dict(os.environ, MICROPYPATH=f".frozen:{build}"), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def client_sockets(port):
    """This process's TCP sockets connected to 127.0.0.1:port (the test servers run in this process too, so a
    plain count of open files would also see their side of the connection)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[2].rsplit(":", 1)[1], 16) == port:  # remote address is the server's port
                inodes.add(fields[9])
    mine = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            mine += 1
    return mine


def cpython_post(port, body, headers, timeout_ms, max_body, linger_ms=0):
    """The probe's post, in-process: the same JSON answer ("fds": client sockets to the server left open)."""
    async def run():
        before = client_sockets(port)
        try:
            status, answer = await http.post("127.0.0.1", port, "/api/v1/sync", body, headers, timeout_ms, max_body)
            result = {"status": status, "body": answer.decode()}
        except http.HttpError as e:
            result = {"error": type(e).__name__, "message": str(e)}
        result["fds"] = client_sockets(port) - before
        await asyncio.sleep(linger_ms / 1000)
        return result

    return asyncio.run(run())


def post(interpreter, request, port, timeout_ms=2000, max_body=1000, linger_ms=0):
    """POST b"{}" with X-Probe: 1 from either interpreter; the probe's JSON answer. linger_ms: time to wait after
    the post before the event loop (CPython) or the process (MicroPython) ends, which would close the socket."""
    if interpreter == "micropython":
        build = request.getfixturevalue("mpy_build")
        return micropython(build, "post", "127.0.0.1", port, timeout_ms, max_body, linger_ms)
    return cpython_post(port, b"{}", (("X-Probe", "1"),), timeout_ms, max_body, linger_ms)


def closed_by_post(server, interpreter, request, **kw):
    """Post; (answer, closed): closed when http.post itself closed the connection: the client had no socket to the
    server left once post returned (the probe counts its descriptors then, before it ends), and where the server
    keeps its side open, it saw the client close."""
    answer = post(interpreter, request, server.port, **kw)
    return answer, answer.get("fds") == 0 and (server.close or server.client_closed.wait(5))


def probe_events(first, count):
    """The batch http_probe.py's sync sends: `count` note events from seq `first`."""
    return [{"seq": seq, "type": "note", "text": "probe"} for seq in range(first, first + count)]


def sync(interpreter, request, port, first, count, cmd_ack=0, secret=SECRET):
    """Sign a batch of `count` events from seq `first` with hmac256 and POST it with http.post."""
    if interpreter == "micropython":
        build = request.getfixturevalue("mpy_build")
        return micropython(build, "sync", "127.0.0.1", port, "T01", secret, first, count, cmd_ack)
    events = probe_events(first, count)
    body = json.dumps({"unit": "T01", "boot": 1, "events": events, "cmd_ack": cmd_ack}).encode()
    signature = hmac256.Signer(bytes.fromhex(secret)).hex(body)
    return cpython_post(port, body, (("X-Bidwire-Signature", signature),), 5000, http.MAX_BODY)


class RawServer:
    """A loopback TCP server that reads each request and answers `reply` (None: nothing). With close=False it
    keeps its side open and waits for the client to close, setting client_closed. trickle: seconds between the
    reply's bytes, sent one at a time."""

    def __init__(self, reply, close=True, trickle=0):
        self.reply, self.close, self.trickle = reply, close, trickle
        self.requests = []
        self.client_closed = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.sock.close()

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                try:
                    self.requests.append(self._read_request(conn))
                    if self.reply is not None and self.trickle:
                        for i in range(len(self.reply)):
                            conn.sendall(self.reply[i:i + 1])
                            time.sleep(self.trickle)
                    elif self.reply is not None:
                        conn.sendall(self.reply)
                    if not self.close:
                        while conn.recv(1024):
                            pass
                        self.client_closed.set()
                except OSError:
                    pass

    @staticmethod
    def _read_request(conn):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(1024)
            if not chunk:
                return data, b""
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            body += conn.recv(1024)
        return head.decode(), body


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def collector(tmp_path):
    with Collector.with_units(tmp_path, {"T01": SECRET}) as c:
        yield c


def stored(collector):
    return collector.rows("SELECT id, seq, received FROM events WHERE unit = 'T01' ORDER BY seq")


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_signed_batch_reaches_the_collector_verified_and_stored_once(interpreter, request, collector):
    answer = sync(interpreter, request, collector.port, 1, 3)
    assert answer["status"] == 200, answer
    assert json.loads(answer["body"]) == {"ack": 3, "commands": []}
    assert collector.events("T01") == probe_events(1, 3)  # stored as signed: the signature checked out
    assert collector.unit_status("T01")["last_rejection"] is None
    first = stored(collector)
    answer = sync(interpreter, request, collector.port, 2, 4)  # a retry overlapping what is stored
    assert json.loads(answer["body"]) == {"ack": 5, "commands": []}
    assert collector.events("T01") == probe_events(1, 5)
    assert stored(collector)[:3] == first  # seqs 2 and 3 acknowledged again, not stored again
    assert collector.unit_status("T01")["last_rejection"] is None


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_commands_come_back_in_the_sync_response(interpreter, request, collector):
    assert collector.queue_command("T01", {"type": "message", "text": "Table 3: move N/S to table 4"}) == 1
    assert collector.queue_command("T01", {"type": "time", "now": 5}) == 2
    answer = sync(interpreter, request, collector.port, 1, 1, cmd_ack=1)
    [(event,)] = [tuple(r.values()) for r in collector.rows("SELECT id FROM store_event")]
    assert json.loads(answer["body"])["commands"] == [{"type": "time", "now": 5, "seq": 2, "event": event}]
    status = collector.unit_status("T01")
    assert status["cmd_ack"] == 1 and status["commands_pending"] == 1


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_wrong_secret_is_a_401_response_not_an_exception(interpreter, request, collector):
    answer = sync(interpreter, request, collector.port, 1, 2, secret="a5" * 32)
    assert answer["status"] == 401 and "bad signature" in json.loads(answer["body"])["error"]
    assert collector.events("T01") == []
    assert collector.unit_status("T01")["last_rejection"]["status"] == 401


def test_micropython_post_fits_a_small_heap(mpy_build, collector):
    answer = micropython(mpy_build, "sync", "127.0.0.1", collector.port, "T01", SECRET, 1, 10, 0)
    assert answer["status"] == 200
    assert answer["heap"] < 16 * 1024, answer  # all it allocates, first call (asyncio's lazy imports included)


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_request_carries_host_json_length_close_and_the_given_headers(interpreter, request):
    with RawServer(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n", close=False) as server:
        answer, closed = closed_by_post(server, interpreter, request)
        assert (answer.get("status"), answer.get("body")) == (204, ""), answer
        assert closed, "the client left the connection open"
    head, body = server.requests[0]
    lines = head.split("\r\n")
    assert lines[0] == "POST /api/v1/sync HTTP/1.1" and body == b"{}"
    assert set(lines[1:]) == {f"Host: 127.0.0.1:{server.port}", "Content-Type: application/json",
                              "Content-Length: 2", "Connection: close", "X-Probe: 1"}


CHUNKED = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
           b"4\r\nWiki\r\n5;name=value\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n")
ANSWERS = {  # id: (reply, server closes after replying, expected status and body)
    "content-length": (b"HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 11\r\n\r\n{\"ack\": 5}\n", False,
                       (200, '{"ack": 5}\n')),
    "header-names-any-case": (b"HTTP/1.1 200 OK\r\ncontent-LENGTH:2\r\nCONTENT-TYPE: application/json\r\n\r\n{}",
                              False, (200, "{}")),
    "chunked": (CHUNKED, False, (200, "Wikipedia in\r\n\r\nchunks.")),
    "chunked-lowercase": (b"HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", False,
                          (200, "{}")),
    "body-to-end-of-connection": (b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\": 1}", True,
                                  (200, '{"a": 1}')),
    "error-status-returned": (b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy", False,
                              (503, "busy")),
    "bare-lf-lines": (b"HTTP/1.1 401 Unauthorized\nContent-Length: 2\n\nno", False, (401, "no")),
}


@pytest.mark.parametrize("interpreter", INTERPRETERS)
@pytest.mark.parametrize("case", ANSWERS.values(), ids=ANSWERS.keys())
def test_response_read_and_connection_closed(interpreter, case, request):
    reply, close, (status, body) = case
    with RawServer(reply, close=close) as server:
        answer, closed = closed_by_post(server, interpreter, request)
        assert (answer.get("status"), answer.get("body")) == (status, body), answer
        assert closed and answer["fds"] == 0, "the client left the connection open"


FAILURES = {  # id: (reply, server closes after replying, words of the HttpError message)
    "garbage": (b"hello there\r\n\r\n", True, "not an HTTP/1.x status line"),
    "empty-reply": (b"", True, "closed the connection before the response was complete"),
    "never-answers": (None, False, "no complete response within 300 ms"),
    "headers-never-end": (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", False, "no complete response within"),
    "truncated-body": (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabcd", True, "closed the connection"),
    "truncated-chunk": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\nabc", True,
                        "closed the connection"),
    "header-without-colon": (b"HTTP/1.1 200 OK\r\nContent-Length 2\r\n\r\n{}", True, "malformed header line"),
    "bad-content-length": (b"HTTP/1.1 200 OK\r\nContent-Length: two\r\n\r\n{}", True, "two"),
    "bad-chunk-size": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", True, "zz"),
    "chunk-longer-than-said": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", True,
                               "longer than its size line"),
    "too-many-headers": (b"HTTP/1.1 200 OK\r\n" + b"X: 1\r\n" * 40 + b"\r\n", True, "more than 32 header lines"),
    "content-length-over-max": (b"HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n", False,
                                "Content-Length 1001 is not within 0..1000"),
    "chunks-over-max": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"100\r\n" + b"x" * 256 + b"\r\n"
                        + b"300\r\n" + b"x" * 768 + b"\r\n0\r\n\r\n", True, "over the 1000-byte limit"),
    "body-to-end-over-max": (b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 1500, True, "over the 1000-byte limit"),
}


@pytest.mark.parametrize("interpreter", INTERPRETERS)
@pytest.mark.parametrize("case", FAILURES.values(), ids=FAILURES.keys())
def test_a_response_that_does_not_arrive_whole_is_an_http_error(interpreter, case, request):
    reply, close, words = case
    with RawServer(reply, close=close) as server:
        answer, closed = closed_by_post(server, interpreter, request, timeout_ms=300)
        assert answer.get("error") == "HttpError" and words in answer["message"], answer
        assert answer["message"].startswith(f"POST http://127.0.0.1:{server.port}/api/v1/sync: ")
        assert closed and answer["fds"] == 0, "the client left the connection open"


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_the_timeout_bounds_the_whole_exchange_not_each_read(interpreter, request):
    """A server that keeps sending, a byte every 20 ms, never lets a read wait long: the exchange still ends at its
    deadline, and its error says so, not what the reply's 33rd header line (9 s away) would give. No clock."""
    reply = b"HTTP/1.1 200 OK\r\n" + b"X-Slow: a\r\n" * 40 + b"Content-Length: 2\r\n\r\n{}"
    if interpreter == "micropython":
        request.getfixturevalue("mpy_build")  # compiled before the clock starts
    with RawServer(reply, trickle=0.02) as server:
        answer = post(interpreter, request, server.port, timeout_ms=300)
    # a client timing each read alone would read on to the 33rd header line and fail on that, 9 s later
    assert answer.get("error") == "HttpError" and "no complete response within 300 ms" in answer["message"], answer
    assert answer["fds"] == 0


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_connection_refused_is_an_http_error(interpreter, request):
    answer = post(interpreter, request, free_port())
    assert answer.get("error") == "HttpError" and f"[Errno {errno.ECONNREFUSED}]" in answer["message"], answer
    assert answer["fds"] == 0


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_a_connect_that_never_completes_times_out_and_closes_its_socket(interpreter, request):
    """A collector host that drops SYNs (laptop asleep, Wi-Fi up): each attempt must not cost a socket."""
    with socket.create_server(("127.0.0.1", 0), backlog=0) as listener:
        port = listener.getsockname()[1]
        fillers = [socket.socket() for _ in range(3)]  # fill the accept queue: the kernel drops further SYNs
        try:
            for f in fillers:
                f.setblocking(False)
                f.connect_ex(("127.0.0.1", port))
            answer = post(interpreter, request, port, timeout_ms=300)
        finally:
            for f in fillers:
                f.close()
    assert answer.get("error") == "HttpError" and "no complete response within 300 ms" in answer["message"], answer
    assert answer["fds"] == 0, "the socket of the timed-out connect was left open"


def test_http_error_is_an_os_error_and_header_injection_is_refused():
    assert issubclass(http.HttpError, OSError)
    with pytest.raises(ValueError, match="line break"):
        asyncio.run(http.post("127.0.0.1", 1, "/", b"{}", (("X-Evil", "1\r\nHost: elsewhere"),)))


OK_REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"


def cpython_lookups(good, bad):
    async def run():
        seen = []
        for port in (good, good, bad, bad, good):
            try:
                await http.post("127.0.0.1", port, "/", b"{}", (), 2000)
            except http.HttpError:
                pass
            seen.append(http.lookups - start)
        return seen

    start = http.lookups
    http._addresses.clear()  # a fresh unit: nothing resolved yet
    return asyncio.run(run())


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_a_post_resolves_its_host_once_and_again_only_after_a_failure(interpreter, request):
    """Issue 13 item 6: getaddrinfo blocks the unit's whole loop (key scanning included), so not on every POST."""
    with RawServer(OK_REPLY) as good, RawServer(None) as bad:  # bad: reads the request, closes without a word
        if interpreter == "micropython":
            seen = micropython(request.getfixturevalue("mpy_build"), "lookups", "127.0.0.1", good.port,
                               bad.port)["lookups"]
        else:
            seen = cpython_lookups(good.port, bad.port)
        assert len(good.requests) == 3 and len(bad.requests) == 2
    # good: resolved at the first POST, not at the second; bad: each failure drops the address, so each
    # try resolves again; good again: its address was never dropped
    assert seen == [1, 1, 2, 3, 3]


def cpython_deinit(port, state_dir):
    sys.path.insert(0, str(ROOT / "tests" / "core"))
    from mpasyncio import asyncio as mpa  # noqa: F401 - sleep_ms, as the unit has it

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

    async def run():
        store = Store(Journal(state_dir), App("T01"), Clock())
        store.open({"firmware": "probe"})
        sync = Sync(store, {"unit": "T01", "collector": f"http://127.0.0.1:{port}", "secret": SECRET,
                            "heartbeat_ms": 5000}, Net())
        sync.start()
        task = sync._task
        while not sync.posts:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        sync.deinit()
        await asyncio.sleep(0.02)
        store.journal.close()
        return {"posts": sync.posts, "done": task.done(), "fds": client_sockets(port)}

    return asyncio.run(run())


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_sync_deinit_cancels_its_task_and_closes_the_socket_of_a_post_under_way(interpreter, request, tmp_path):
    with RawServer(None, close=False) as silent:  # takes the request, never answers, waits for the close
        if interpreter == "micropython":
            answer = micropython(request.getfixturevalue("mpy_build"), "deinit", "127.0.0.1", silent.port,
                                 tmp_path / "state", heap="160K")
        else:
            answer = cpython_deinit(silent.port, str(tmp_path / "state"))
        assert answer == {"posts": 1, "done": True, "fds": 0}, \
            "the socket stayed open after deinit: only the process or the loop's end would close it"
        assert silent.client_closed.wait(5)
