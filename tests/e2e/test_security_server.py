"""Security against a real `bidwire serve` on 127.0.0.1 (issue 6): slow clients hold only their own connection
(the units go on syncing meanwhile, and a stalled body gets 408 and loses the connection), and a collector
logging everything it can (debug, access log) writes no secret, token, password or cookie to its log or its
standard output while units sync, signatures are forged, the API is called and logins fail and succeed."""
import hashlib
import hmac
import json
import socket
import threading
import time

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring, rows

SECRET = "7e" * 32
UNITS = {"T01": SECRET, "T02": "c4" * 32}
DIRECTOR_PW, SCORER_PW = "quartz-lantern-88", "linen-osprey-41"


def signed(unit, events, secret=None, boot=1):
    raw = json.dumps({"unit": unit, "boot": boot, "cmd_ack": 0, "events": events}).encode()
    sig = hmac.new(bytes.fromhex(secret or UNITS[unit]), raw, hashlib.sha256).hexdigest()
    return raw, {"X-Bidwire-Signature": sig, "Content-Type": "application/json"}


def hello(seq):
    return {"seq": seq, "type": "hello", "boot": 1, "backlog": 0, "firmware": "bidwire-unit 0.3", "board": "unix_sim",
            "battery": 90, "rssi": -50, "t": 1000}


@pytest.fixture
def collector(tmp_path):
    (tmp_path / "director-pw").write_text(DIRECTOR_PW + "\n")
    (tmp_path / "scorer-pw").write_text(SCORER_PW + "\n")
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", UNITS), 0,
                  extra=["--log-level", "debug", "--access-log", "--body-timeout", "2",
                         "--director-password-file", str(tmp_path / "director-pw"),
                         "--scorer-password-file", str(tmp_path / "scorer-pw")])
    yield c
    c.stop()


def open_stalled(port, kind):
    """A connection that stops half way: 'headers' (never ends its headers) or 'body' (announces 10 KB of body
    and sends 10 bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if kind == "headers":
        s.sendall(b"POST /api/v1/sync HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bidwire-Sig")
    else:
        s.sendall(b"POST /api/v1/sync HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 10240\r\n\r\n{\"unit\": \"")
    return s


def test_slow_clients_hold_only_their_own_connection(collector):
    stalled = [open_stalled(collector.port, "headers" if i % 2 else "body") for i in range(100)]
    trickle_stop = threading.Event()

    def trickle():  # one byte every 200 ms: never done within the body deadline
        s = open_stalled(collector.port, "body")
        try:
            while not trickle_stop.is_set():
                s.sendall(b" ")
                time.sleep(0.2)
        except OSError:
            pass  # the collector cut it off
        finally:
            s.close()

    threads = [threading.Thread(target=trickle, daemon=True) for _ in range(5)]
    for t in threads:
        t.start()
    try:
        # while they hang on, a unit syncs 30 batches, each acknowledged
        with httpx.Client(base_url=collector.url, timeout=10) as unit:
            for seq in range(1, 31):
                raw, headers = signed("T01", [hello(seq)])
                r = unit.post("/api/v1/sync", content=raw, headers=headers)
                assert r.status_code == 200 and r.json()["ack"] == seq
            assert collector.api.get("/api/v1/units").status_code == 200
        # a stalled body is answered 408 once its 2 s are up, and the connection closed
        body_stalled = stalled[0]  # i = 0: 'body'
        body_stalled.settimeout(15)
        answer = b""
        while chunk := body_stalled.recv(4096):
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
        assert b"did not arrive within 2 s" in answer
    finally:
        trickle_stop.set()
        for s in stalled:
            s.close()
        for t in threads:
            t.join(10)
    assert [r["seq"] for r in rows(collector.data, "SELECT seq FROM events ORDER BY seq")] == list(range(1, 31))
    log = collector.log_text()
    assert "request refused (408)" in log and "did not arrive within 2 s" in log


def login(client, password):
    client.get("/login")
    return client.post("/login", data={"password": password, "csrf": client.cookies.get("bidwire_login")},
                       follow_redirects=False)


def test_no_secret_reaches_the_log_of_a_collector_logging_everything(collector):
    token = collector.api_headers["Authorization"].split()[1]
    with httpx.Client(base_url=collector.url, timeout=10) as c:
        raw, headers = signed("T01", [hello(1)])
        assert c.post("/api/v1/sync", content=raw, headers=headers).status_code == 200
        raw, headers = signed("T02", [hello(1)], secret=SECRET)  # T02's body signed with T01's key
        assert c.post("/api/v1/sync", content=raw, headers=headers).status_code == 401
        assert c.get("/api/v1/units", headers={"Authorization": f"Bearer {'9' * 64}"}).status_code == 401
        assert collector.api.get("/api/v1/units").status_code == 200
    with httpx.Client(base_url=collector.url, timeout=10) as browser:
        assert login(browser, "not-" + DIRECTOR_PW).status_code == 401
        assert login(browser, SCORER_PW).status_code == 303
        cookies = list(browser.cookies.values())
        assert browser.get("/scorer").status_code == 200
    collector.stop()
    log = collector.log_text() + collector.stdout_text
    assert "sync refused (401) for unit T02: bad signature" in log
    assert "API refused (401) GET /api/v1/units" in log and "wrong API token" in log
    assert "login refused from 127.0.0.1: wrong password" in log
    assert '"GET /api/v1/units' in log  # the access log is on
    secrets = [*UNITS.values(), token, "9" * 64, DIRECTOR_PW, SCORER_PW, *cookies,
               (collector.data / "dashboard-secret").read_text().strip()]
    for s in secrets:
        assert s not in log, f"a secret ({s[:6]}...) is in the collector's log"


def board_start(seq):
    return {"seq": seq, "type": "board_start", "board": 1, "dealer": "N", "vul": "None", "mode": "record", "t": 1000}


def call(seq, seat, token, verdict="legal"):
    return {"seq": seq, "type": "call", "board": 1, "input": token, "seat": seat, "verdict": verdict, "law": 0,
            "alert": False, "tempo": 12, "t": 1000}


def test_one_unit_cannot_blow_up_the_directors_page_with_long_calls(collector):
    """Issue 24.1: 48 calls whose `input` was 200 KB each, then 20 irregularities, made GET /director 366 MB. Each
    such call is now refused 400 naming the field, nothing of its batch is stored, and the unit's real calls
    and irregularities, sent next, make a page and a first live message of ordinary size."""
    director = httpx.Client(base_url=collector.url, timeout=30)
    login = director.get("/login")
    csrf = login.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    assert director.post("/login", data={"password": DIRECTOR_PW, "csrf": csrf, "role": "director"}).status_code \
        in (200, 303)
    before = len(director.get("/director").content)
    with httpx.Client(base_url=collector.url, timeout=30) as unit:
        raw, headers = signed("T01", [hello(1), board_start(2)])
        assert unit.post("/api/v1/sync", content=raw, headers=headers).json()["ack"] == 2
        for seq in range(3, 51):
            raw, headers = signed("T01", [call(seq, "NESW"[seq % 4], "N:" + "1H" * 100_000)])
            r = unit.post("/api/v1/sync", content=raw, headers=headers)
            assert r.status_code == 400 and "events[0] (call).input" in r.json()["error"], r.text
        for token in ("N:" + "7" * 60, "N:1H\x00", "X:1H", "!reject:N:N", ""):  # short, but not a token either
            raw, headers = signed("T01", [call(3, "N", token)])
            assert unit.post("/api/v1/sync", content=raw, headers=headers).status_code == 400, token
        events, seq = [], 3
        for i in range(20):  # the 20 irregularities, as a real unit sends them: out of rotation, each rejected
            events.append(call(seq, "E", "E:1S", "out_of_rotation"))
            events.append({"seq": seq + 1, "type": "irregularity", "board": 1, "kind": "out_of_rotation", "law": 31,
                           "offender": "E", "call": "1S", "entitled": "N", "options": ["reject"], "at": 2 * i,
                           "t": 1000})
            events.append({"seq": seq + 2, "type": "ruling_applied", "board": 1, "ruling": "reject", "seat": "E",
                           "by": "table", "verdict": "legal", "law": 31, "at": 2 * i, "t": 1000})
            seq += 3
        raw, headers = signed("T01", events)
        r = unit.post("/api/v1/sync", content=raw, headers=headers)
        assert r.status_code == 200 and r.json()["ack"] == seq - 1, r.text
    page = director.get("/director")
    assert page.status_code == 200 and len(page.content) < before + 200_000, len(page.content)
    first = ""
    with director.stream("GET", "/director/events") as stream:
        for line in stream.iter_lines():  # the first message: up to its blank line
            if line == "" and first:
                break
            first += line
    assert len(first) < 1_000_000
    director.close()
    assert "1H1H1H" not in collector.log_text()


def test_a_flood_of_refused_requests_writes_a_bounded_log(tmp_path):
    """Issue 24.10: one unauthenticated client wrote 182 KB/s of log, a line per refusal. 500 refused API calls
    and 500 forged syncs from one address now write the first refusal of each reason and count the rest. (A
    collector of its own, logging at its default level: the fixture's access log on a pipe nobody reads would
    fill it.)"""
    quiet = Collector(tmp_path, keyring(tmp_path / "keyring.json", UNITS), 0)
    try:
        with httpx.Client(base_url=quiet.url, timeout=10) as flooder:
            for seq in range(500):
                assert flooder.get("/api/v1/units").status_code == 401
                raw, headers = signed("T01", [hello(seq + 1)], secret="00" * 32)
                assert flooder.post("/api/v1/sync", content=raw, headers=headers).status_code == 401
    finally:
        quiet.stop()
    log = quiet.log_text()
    api = [line for line in log.splitlines() if "API refused (401)" in line]
    syncs = [line for line in log.splitlines() if "sync refused (401)" in line]
    assert 1 <= len(api) <= 4 and 1 <= len(syncs) <= 4, (api, syncs)  # one per reason each 10 s
    assert len(log.encode()) < 20_000, len(log.encode())
