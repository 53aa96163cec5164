"""The collector's connection limits (web/connections.py) and the log's escaping (logs.py), in process; the
same limits against the real server are in tests/e2e/test_hostile_network.py."""
import logging

from bidwire_host.logs import EscapingAccessFormatter, EscapingFormatter, escape
from bidwire_host.web.connections import ConnectionLimits, total_for


class Transport:
    def __init__(self):
        self.closed = False

    def close(self):
        self.closed = True


class Conn:
    def __init__(self, address):
        self.address = address
        self.transport = Transport()


def test_one_address_gets_its_cap_and_no_more_others_are_not_affected():
    limits = ConnectionLimits(total=100, per_address=3)
    phone = [Conn("192.168.4.66") for _ in range(4)]
    assert [limits.admit(c) for c in phone[:3]] == [None] * 3
    assert limits.admit(phone[3]) == "too many connections from 192.168.4.66: 3 open, at most 3"
    assert limits.admit(Conn("192.168.4.21")) is None  # a unit
    limits.release(phone[0])
    limits.release(phone[0])  # twice: counted once
    assert limits.open_from("192.168.4.66") == 2 and limits.admit(phone[3]) is None


def test_the_machine_itself_and_the_named_proxies_are_not_capped_per_address():
    limits = ConnectionLimits(total=100, per_address=2, proxies=["10.0.0.0/24", "proxy.local"])
    for address in ("127.0.0.1", "::1", "10.0.0.7"):
        assert [limits.admit(Conn(address)) for _ in range(5)] == [None] * 5
    assert [limits.admit(Conn("127.0.0.2")) is None for _ in range(3)] == [True, True, False]
    everyone = ConnectionLimits(total=100, per_address=1, proxies=["*"])
    assert [everyone.admit(Conn("192.168.4.66")) for _ in range(3)] == [None] * 3


def test_at_the_total_the_longest_idle_connection_makes_room_and_busy_ones_never_do():
    limits = ConnectionLimits(total=3, per_address=0)
    a, b, c = Conn("10.1.0.1"), Conn("10.1.0.2"), Conn("10.1.0.3")
    for conn in (a, b, c):
        assert limits.admit(conn) is None
        limits.waiting(conn)
    limits.busy(a)  # a is in the middle of a request
    limits.waiting(b)  # b finished a response again: now the newest idle one
    d = Conn("10.1.0.4")
    assert limits.admit(d) is None and c.transport.closed and not a.transport.closed and not b.transport.closed
    limits.busy(b)
    limits.busy(d)
    assert limits.admit(Conn("10.1.0.5")) == "the collector is busy: 3 connections open, at most 3"
    assert limits.refused == {"address": 0, "total": 1, "evicted": 1, "head": 0}


def test_refusals_are_logged_once_per_address_and_kind_every_ten_seconds(caplog):
    now = [0.0]
    limits = ConnectionLimits(total=10, per_address=1, clock=lambda: now[0])
    limits.admit(Conn("10.2.0.1"))
    with caplog.at_level(logging.WARNING, "bidwire.collector"):
        for _ in range(50):
            limits.admit(Conn("10.2.0.1"))
        now[0] = 11.0
        limits.admit(Conn("10.2.0.1"))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "(49 more like it in the last 11 s)" in lines[1]
    assert lines[0].startswith("connection refused from 10.2.0.1: 1 connections already open")
    assert limits.refused["address"] == 51


def test_the_total_leaves_room_below_the_descriptor_limit():
    assert total_for(1024) == 774 and total_for(20000) == 19750 and total_for(50) == 16


def test_every_control_character_is_escaped_and_nothing_else():
    assert escape("T01\nINFO:  forged\r\x00\x1b[31m\x7f\x85\u2028\u2029") == \
        "T01\\x0aINFO:  forged\\x0d\\x00\\x1b[31m\\x7f\\x85\\u2028\\u2029"
    assert escape("Table 7 — ♠ 4♥ café \\x0a") == "Table 7 — ♠ 4♥ café \\x0a"


def test_the_formatters_escape_arguments_and_messages_but_keep_numbers_and_tracebacks():
    fmt = EscapingFormatter("%(levelname)s %(message)s", use_colors=False)
    record = logging.LogRecord("bidwire.collector", logging.WARNING, __file__, 1,
                               "sync refused (%d) for unit %s: %s", (403, "T01\nINFO: x", ValueError("a\nb")), None)
    assert fmt.format(record) == "WARNING sync refused (403) for unit T01\\x0aINFO: x: a\\x0ab"
    assert record.args[1] == "T01\nINFO: x"  # the record itself is left as it was, for other handlers
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        import sys
        failing = logging.LogRecord("bidwire.collector", logging.ERROR, __file__, 1, "storing %s", ("T\n1",),
                                    sys.exc_info())
    text = fmt.format(failing)
    assert text.startswith("ERROR storing T\\x0a1\nTraceback") and "RuntimeError: boom" in text
    access = EscapingAccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False)
    hit = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                            ("127.0.0.1:5", "GET", "/a\nINFO: b", "1.1", 404), None)
    assert access.format(hit) == '127.0.0.1:5 - "GET /a\\x0aINFO: b HTTP/1.1" 404 Not Found'
