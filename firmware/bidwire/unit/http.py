"""A minimal async HTTP/1.1 client: one POST per connection, for the sync client (architecture.md §4).

The same code runs on MicroPython's asyncio and on CPython's. A response with any status comes back as
(status, body); anything that stops a whole response arriving (refused or reset connection, timeout,
malformed status line or headers, a body over max_body) raises HttpError, after which a retry is safe.

The head and the body are written one after the other (MicroPython), never joined into a request that would
hold one more copy of the body (docs/benchmarks.md, "Cuts to the session's peak and the .mpy path"); TCP_NODELAY
keeps the body from waiting for the head's ACK (Nagle).

getaddrinfo blocks: on a unit it would hold up the whole asyncio loop, key scanning included, for as long as a
DNS answer takes. So a host is resolved once, at its first POST, and again only after a POST to it failed (the
collector may have moved); `lookups` counts the resolutions.
"""
import asyncio
import socket
import sys
from errno import EINPROGRESS
from bidwire.core.compat import const

MAX_BODY = const(16384)  # bytes; a sync response is an ack and a few commands
_MAX_HEADERS = const(32)
_READ = const(512)
_IPPROTO_TCP = const(6)  # the same numbers on Linux and lwIP; the unix port's socket module has no names for them
_TCP_NODELAY = const(1)
_C_OR_T = b"cCtT"  # first letters of Content-Length and Transfer-Encoding
_TOO_BIG = "response body over the %d-byte limit"
_MICROPYTHON = sys.implementation.name == "micropython"  # its asyncio streams differ; see _exchange
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
        exchange = _exchange(_address(host, port), (head + "\r\n").encode(), body, max_body)
        if _MICROPYTHON:
            return await asyncio.wait_for_ms(exchange, timeout_ms)
        return await asyncio.wait_for(exchange, timeout_ms / 1000)
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


async def _exchange(ai, head, body, max_body):
    if _MICROPYTHON:
        reader = writer = _connecting(ai)
    else:  # CPython: a timeout while open_connection connects closes its socket
        reader, writer = await asyncio.open_connection(*ai[-1][:2])
    try:
        if _MICROPYTHON:
            await _send(writer, head, body)
        else:  # CPython: asyncio sets TCP_NODELAY on its connections, so the body does not wait either
            writer.write(head)
            writer.write(body)
            await writer.drain()
        return await _response(reader, max_body)
    finally:
        writer.close()
        try:
            await writer.wait_closed()  # on MicroPython this is what closes the socket
        except OSError:
            pass  # a reset while closing loses nothing: the response is read or the error is on its way


async def _send(stream, head, body):
    """MicroPython: the head, then the body, each straight from where it is (no request joining the two). The
    stream's drain() waits until the socket is writable (the first time: connected), then sends its out_buf."""
    stream.out_buf = head  # pyright: ignore[reportAttributeAccessIssue]
    await stream.drain()
    stream.out_buf = body  # pyright: ignore[reportAttributeAccessIssue]
    await stream.drain()


def _connecting(ai):
    """MicroPython: open_connection's steps, but the stream exists before the connect is awaited, so that a
    timeout while connecting closes the socket too (open_connection's would be left to the GC: one socket lost
    per attempt while the collector does not answer, and an ESP32 has about ten)."""
    s = socket.socket(ai[0], ai[1], ai[2])
    s.setblocking(False)
    try:  # the head and the body leave as two writes (_send): the body must not wait for the head's ACK (Nagle)
        s.setsockopt(_IPPROTO_TCP, _TCP_NODELAY, 1)
    except OSError:
        pass  # a stack without the option: slower by a delayed ACK at worst, not wrong
    try:
        s.connect(ai[-1])
    except OSError as e:
        if e.errno != EINPROGRESS:
            s.close()
            raise
    return asyncio.StreamWriter(s)


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
