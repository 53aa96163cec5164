"""A minimal async HTTP/1.1 client: one POST per connection, for the sync client (docs/architecture.md §4).

The same code runs on MicroPython's asyncio and on CPython's. A response with any status comes back as
(status, body); anything that stops a whole response arriving (refused or reset connection, timeout,
malformed status line or headers, a body over max_body) raises HttpError, after which a retry is safe.

The head and the body are written one after the other, never joined into a request that would hold one more copy
of the body (docs/benchmarks.md, "The table unit"); TCP_NODELAY keeps the body from
waiting for the head's ACK (Nagle).

On MicroPython the exchange uses asyncio's core alone (no `stream`, no `funcs`: their modules would stay in the
heap, docs/benchmarks.md): a non-blocking socket, tried again every _POLL_MS (10 ms) until the exchange's deadline.
A timeout or a cancellation closes the socket. On CPython, asyncio's streams and wait_for do the same.

getaddrinfo blocks: on a unit it would hold up the whole asyncio loop, key scanning included, for as long as a
DNS answer takes. So a host is resolved once, at its first POST, and again only after a POST to it failed (the
collector may have moved); `lookups` counts the resolutions.
"""
import asyncio
import select
import socket
import sys
import time
from errno import EINPROGRESS
from bidwire.core.compat import const

MAX_BODY = const(16384)  # bytes; a sync response is an ack and a few commands
_MAX_HEADERS = const(32)
_READ = const(512)
_POLL_MS = const(10)  # MicroPython: how long a socket that is not ready is left before it is tried again
_IPPROTO_TCP = const(6)  # the same numbers on Linux and lwIP; the unix port's socket module has no names for them
_TCP_NODELAY = const(1)
_C_OR_T = const(b"cCtT")  # first letters of Content-Length and Transfer-Encoding
_TOO_BIG = const("response body over the %d-byte limit")
_MICROPYTHON = sys.implementation.name == "micropython"  # no asyncio streams there; see _Socket
_addresses = {}  # (host, port) -> getaddrinfo's first answer, kept until a POST to it fails
lookups = 0


class HttpError(OSError):
    """No complete HTTP response; the message names the request and why."""


async def post(host, port, path, body, headers=(), timeout_ms=5000, max_body=MAX_BODY):
    """POST body (JSON bytes) to http://host:port/path; return (status, response body as bytes).

    headers: (name, value) pairs sent after Host, Content-Type, Content-Length and Connection: close.
    timeout_ms bounds the whole exchange: connect, send and the complete response.
    """
    head = ("POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            "Connection: close\r\n" % (path, host, port, len(body)))
    for name, value in headers:
        line = "%s: %s\r\n" % (name, value)
        if "\n" in line[:-1] or "\r" in line[:-2]:
            raise ValueError("an HTTP header name or value contains a line break")
        head += line
    try:
        head = (head + "\r\n").encode()
        if _MICROPYTHON:
            return await _exchange(_Socket(_address(host, port), timeout_ms), head, body, max_body)
        return await asyncio.wait_for(_streams(_address(host, port), head, body, max_body), timeout_ms / 1000)
    except asyncio.TimeoutError:  # CPython's is an OSError too: caught first
        why = f"no complete response within {timeout_ms} ms"
    except EOFError:
        why = "the server closed the connection before the response was complete"
    except (OSError, ValueError) as e:  # ValueError: a response that does not parse
        why = str(e)
    _addresses.pop((host, port), None)  # resolved again before the next try
    # Raised here, not in the except clauses: `raise ... from` makes MicroPython print a warning.
    raise HttpError(f"POST http://{host}:{port}{path}: {why}")


def _address(host, port):
    global lookups
    ai = _addresses.get((host, port))
    if ai is None:
        lookups += 1
        ai = _addresses[(host, port)] = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)[0]
    return ai


async def _exchange(sock, head, body, max_body):
    """MicroPython: the socket is closed whatever happens, a timeout and a cancellation included."""
    try:
        await sock.connected()
        await sock.write(head)
        await sock.write(body)
        return await _response(sock, max_body)
    finally:
        sock.s.close()


async def _streams(ai, head, body, max_body):
    """CPython: asyncio's streams (a timeout while open_connection connects closes its socket; asyncio sets
    TCP_NODELAY on its connections)."""
    reader, writer = await asyncio.open_connection(*ai[-1][:2])
    try:
        writer.write(head)
        writer.write(body)
        await writer.drain()
        return await _response(reader, max_body)
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass  # a reset while closing loses nothing: the response is read or the error is on its way


class _Socket:
    """MicroPython: a non-blocking TCP socket with the reads of asyncio's StreamReader (readline, readexactly,
    read), for _response. Whatever is not ready yet is tried again after _POLL_MS, until the deadline (the whole
    exchange's: connect, send and response), then asyncio.TimeoutError. The socket exists before the connect is
    awaited, so that a timeout while connecting closes it too (an ESP32 has about ten)."""

    def __init__(self, ai, timeout_ms):
        self.deadline = time.ticks_add(time.ticks_ms(), timeout_ms)
        s = self.s = socket.socket(ai[0], ai[1], ai[2])
        s.setblocking(False)
        try:  # the head and the body leave as two writes: the body must not wait for the head's ACK (Nagle)
            s.setsockopt(_IPPROTO_TCP, _TCP_NODELAY, 1)
        except OSError:
            pass  # a stack without the option: slower by a delayed ACK at worst, not wrong
        try:
            s.connect(ai[-1])
        except OSError as e:
            if e.errno != EINPROGRESS:
                s.close()
                raise

    async def _later(self):
        left = time.ticks_diff(self.deadline, time.ticks_ms())
        if left <= 0:
            raise asyncio.TimeoutError
        await asyncio.sleep_ms(min(left, _POLL_MS))

    async def connected(self):
        """Until the connect has completed or failed (the socket polls writable; a failure is the first write's
        OSError): a write before that would fail on lwIP, not wait."""
        poller = select.poll()
        poller.register(self.s, select.POLLOUT)
        while True:
            for _ in poller.ipoll(0):
                return
            await self._later()

    async def write(self, data):
        while True:
            n = self.s.write(data)
            if n is None:  # the send buffer is full
                await self._later()
            elif n < len(data):
                data = memoryview(data)[n:]  # a short write: the rest, not a copy
            else:
                return

    async def readline(self):
        line = b""
        while True:
            piece = self.s.readline()  # a non-blocking readline: None, or what came up to the newline
            if piece is None:
                await self._later()
                continue
            line += piece
            if not piece or line[-1] == 10:  # the end of the connection, or of the line
                return line

    async def read(self, n):
        while True:
            piece = self.s.read(n)
            if piece is not None:
                return piece
            await self._later()

    async def readexactly(self, n):
        data = b""
        while len(data) < n:
            piece = await self.read(n - len(data))
            if not piece:
                raise EOFError
            data += piece
        return data


async def _response(reader, max_body):
    line = await reader.readline()
    if not line:
        raise EOFError
    parts = line.split(None, 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or len(parts[1]) != 3 or not parts[1].isdigit():
        raise ValueError(f"not an HTTP/1.x status line: {line[:60]}")
    status = int(parts[1])
    length = None
    chunked = False
    for _ in range(_MAX_HEADERS):
        line = await reader.readline()
        if line == b"\r\n" or line == b"\n":
            break
        if not line:
            raise EOFError
        colon = line.find(b":")
        if colon < 1:
            raise ValueError(f"malformed header line: {line[:60]}")
        if line[0] not in _C_OR_T:
            continue  # not a header we read: skip it without allocating
        name = line[:colon].lower()
        if name == b"content-length":
            length = int(line[colon + 1:])
        elif name == b"transfer-encoding":
            chunked = b"chunked" in line[colon + 1:].lower()
    else:
        raise ValueError(f"more than {_MAX_HEADERS} header lines")
    if chunked:
        return status, await _chunks(reader, max_body)
    if length is not None:
        if not 0 <= length <= max_body:
            raise ValueError(f"response Content-Length {length} is not within 0..{max_body} bytes")
        return status, await reader.readexactly(length)
    body = b""  # no length given: the body runs to the end of the connection
    while True:
        piece = await reader.read(_READ)
        if not piece:
            return status, body
        body += piece
        if len(body) > max_body:
            raise ValueError(_TOO_BIG % max_body)


async def _chunks(reader, max_body):
    body = b""
    while True:
        line = await reader.readline()
        if not line:
            raise EOFError
        size = int(line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            break
        if len(body) + size > max_body:
            raise ValueError(_TOO_BIG % max_body)
        body += await reader.readexactly(size)
        if (await reader.readline()).strip():
            raise ValueError("a chunk is longer than its size line says")
    while (await reader.readline()).strip():
        pass  # trailer fields, unused
    return body
