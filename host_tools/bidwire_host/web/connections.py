"""Who may hold a connection to the collector, and how long a connection may take to say what it wants.

uvicorn does part of it itself: h11 refuses a request head over 16 KB (400), and a connection idle
`timeout_keep_alive` (5 s) after a response is closed. Its `limit_concurrency` does not do the rest: it answers
503 only once a request head has come, so connections that never send one are not bounded by it, and its count
does not tell one address from another. The rest is here, in a subclass of uvicorn's h11 protocol
(`guarded_protocol(limits)`, given to uvicorn's Config as its `http`):

- **a deadline for the request head**: a connection that has not sent a whole head `head_timeout_s` after it
  opened (or after its previous response) is answered 408 and closed, so a half-sent request holds a descriptor
  for seconds, not for as long as its client likes (the body has its own deadline: body_limit.py);
- **a cap per client address** (`per_address`): a connection from an address that already holds that many is
  answered 503 and closed at once. The collector's own machine (127.0.0.1, ::1) and the proxies the operator
  names (`--forwarded-allow-ips`) are not capped per address: every client behind them would share the cap;
- **a cap in total** (`total`), kept below the process's descriptor limit (`total_for()`), so that accepting a
  connection never fails for want of a descriptor: when it is reached, the connection that has waited longest
  for its request head is closed to make room (an idle connection loses nothing: its client opens another), and
  only when every connection is in the middle of a request is the newcomer refused (503). So idle connections,
  however many and from however many addresses, never keep a unit's sync out. asyncio accepts every connection
  waiting, up to its `backlog`, before it hands any of them to a protocol, so uvicorn's `backlog` is ACCEPT_BATCH
  and `CollectorServer` gives the kernel's queue its length back once the server listens.

`raise_descriptor_limit()` raises the soft descriptor limit to the hard one at start. Refusals are logged with the
address and the reason, once per address and kind every LOG_EVERY_S seconds (a flood would fill the log).
"""
import ipaddress
import logging
import resource
import time

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from bidwire_host import logs
from bidwire_host.web import errors

log = logging.getLogger("bidwire.collector")

HEAD_TIMEOUT_S = 10.0
PER_ADDRESS = 32
ACCEPT_BATCH = 32  # connections asyncio accepts in one turn of the loop, before any of them is admitted or refused
RESERVE_FDS = 250  # the store's files (a read connection per worker thread, 2 descriptors each: about 85 seen with
# 40 threads busy), the log, the listening socket, the event loop's own, a file being served, and the connections
# accepted but not yet admitted or not yet closed: up to 4 turns of ACCEPT_BATCH
LOG_EVERY_S = 10.0
UNCAPPED = ("127.0.0.1", "::1")


def raise_descriptor_limit():
    """The soft limit on open files raised to the hard one (where the system lets it); the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


def total_for(descriptors):
    """The total connections allowed under a descriptor limit: RESERVE_FDS kept for everything else."""
    return max(16, descriptors - RESERVE_FDS)


def _networks(proxies):
    nets = []
    for entry in proxies:
        if entry == "*":
            return None  # every peer is a proxy: none is capped per address
        try:
            nets.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            pass  # a host name or a unix socket: uvicorn matches those itself, there is no address to exempt
    return nets


class ConnectionLimits:
    """The connections open now, per address and in total, and which of them wait for a request head."""

    def __init__(self, total, per_address=PER_ADDRESS, head_timeout_s=HEAD_TIMEOUT_S, proxies=(), clock=time.monotonic):
        self.total = total
        self.per_address = per_address
        self.head_timeout_s = head_timeout_s
        self.clock = clock
        self._uncapped = _networks([*UNCAPPED, *proxies])
        self._open = set()
        self._by_address = {}
        self._waiting = {}  # protocol -> None, oldest first: the connections waiting for a request head
        self._log = logs.RefusalLog(LOG_EVERY_S, clock)  # one line per kind and address every LOG_EVERY_S
        self.refused = {"address": 0, "total": 0, "evicted": 0, "head": 0}

    def capped(self, address):
        if self._uncapped is None:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return True
        return not any(ip in net for net in self._uncapped)

    def open_from(self, address):
        return self._by_address.get(address, 0)

    def admit(self, protocol):
        """None if the connection may stay (it is counted), else the reason it is refused."""
        address = protocol.address
        held = self._by_address.get(address, 0)
        if self.per_address and held >= self.per_address and self.capped(address):
            self.note("address", address, f"{held} connections already open from {address}, the most one address "
                                          f"may hold")
            return f"too many connections from {address}: {held} open, at most {self.per_address}"
        if len(self._open) >= self.total:
            if not self._waiting:
                self.note("total", address, f"{len(self._open)} connections open, every one busy with a request")
                return f"the collector is busy: {len(self._open)} connections open, at most {self.total}"
            oldest = next(iter(self._waiting))
            self.note("evicted", oldest.address, f"the longest idle connection closed for a newcomer: "
                                                 f"{len(self._open)} connections open, at most {self.total}")
            self.release(oldest)
            oldest.transport.close()
        self._open.add(protocol)
        self._by_address[address] = held + 1
        return None

    def release(self, protocol):
        """The connection is gone (or going); idempotent."""
        if protocol not in self._open:
            return
        self._open.discard(protocol)
        self._waiting.pop(protocol, None)
        n = self._by_address[protocol.address] - 1
        if n:
            self._by_address[protocol.address] = n
        else:
            del self._by_address[protocol.address]

    def waiting(self, protocol):
        """The connection waits for a request head (newly opened, or its last response sent)."""
        if protocol in self._open:
            self._waiting.pop(protocol, None)
            self._waiting[protocol] = None

    def busy(self, protocol):
        self._waiting.pop(protocol, None)

    def note(self, kind, address, reason):
        """Count a refusal; log it unless one of its kind and address was logged under LOG_EVERY_S ago."""
        self.refused[kind] += 1
        self._log.warning(log, address, kind, "connection %s from %s: %s",
                          "closed" if kind in ("evicted", "head") else "refused", address, reason)

def answer(transport, status, phrase, reason):
    """A whole HTTP response, the one refusal shape (web/errors.py), written straight to the transport, which is
    then closed."""
    body = errors.encoded(reason)
    transport.write(f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}"
                    f"\r\nconnection: close\r\n\r\n".encode() + body)
    transport.close()


class CollectorServer(uvicorn.Server):
    """uvicorn's server, its listening sockets' queue set back to `listen_backlog` once asyncio serves them (asyncio
    gave them its accept batch, uvicorn's `backlog`, as their queue length too)."""

    listen_backlog = 2048

    async def startup(self, sockets=None):
        await super().startup(sockets=sockets)
        for sock in sockets or ():
            sock.listen(self.listen_backlog)


def guarded_protocol(limits):
    """uvicorn's h11 protocol with the limits above."""

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport):
            peer = transport.get_extra_info("peername")
            self.address = peer[0] if peer else "?"
            self.head_timer = None
            self.refused = limits.admit(self)
            if self.refused is not None:
                self.transport = transport
                answer(transport, 503, "Service Unavailable", self.refused)
                return
            super().connection_made(transport)
            self.await_head()

        def await_head(self):
            limits.waiting(self)
            if self.head_timer is not None:
                self.head_timer.cancel()
            self.head_timer = self.loop.call_later(limits.head_timeout_s, self.head_late)

        def head_late(self):
            self.head_timer = None
            if self.transport.is_closing():
                return
            reason = f"the request head did not arrive within {limits.head_timeout_s:g} s"
            limits.note("head", self.address, reason)
            limits.release(self)
            answer(self.transport, 408, "Request Timeout", reason)

        def data_received(self, data):
            if self.refused is None:
                super().data_received(data)

        def handle_events(self):
            before = self.cycle
            super().handle_events()
            if self.cycle is not before:  # a request head came: the deadline is met, the connection busy
                limits.busy(self)
                if self.head_timer is not None:
                    self.head_timer.cancel()
                    self.head_timer = None

        def on_response_complete(self):
            if not self.transport.is_closing():
                self.await_head()  # before uvicorn handles a pipelined request, which makes it busy again
            super().on_response_complete()

        def connection_lost(self, exc):
            limits.release(self)
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None
            if self.refused is None:
                super().connection_lost(exc)

    return GuardedH11Protocol
