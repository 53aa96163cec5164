"""Dashboard sessions end on the real `bidwire serve` (issue 12, item 2): after logout the old cookie and its CSRF
token open nothing (neither /director nor the API's unit commands) and an open live stream ends at once; a session
unused for the idle timeout, or older than its lifetime however much it is used, ends too. What was done while the
session was valid stays as it was."""
import re
import threading
import time

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring

UNITS = {"T01": "5a" * 32}
PASSWORD = "amber-heron-52"


def start(tmp_path, *extra):
    (tmp_path / "director-pw").write_text(PASSWORD + "\n")
    return Collector(tmp_path, keyring(tmp_path / "keyring.json", UNITS), 0,
                     extra=["--log-level", "info", "--director-password-file", str(tmp_path / "director-pw"), *extra])


def log_in(url):
    """A browser-like client logged in as the director, and the CSRF token its pages carry."""
    client = httpx.Client(base_url=url, timeout=10)
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"password": PASSWORD, "csrf": token}).status_code == 303
    page = client.get("/director")
    assert page.status_code == 200
    return client, re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


def with_cookie(url, cookie):
    """A fresh client presenting only the given session cookie (what someone who copied it would send)."""
    return httpx.Client(base_url=url, timeout=10, cookies={"bidwire_session": cookie})


def director_page_opens(client):
    r = client.get("/director")
    assert r.status_code in (200, 303), r.status_code
    return r.status_code == 200 and "/login" not in r.headers.get("location", "")


@pytest.fixture
def collector(tmp_path):
    c = start(tmp_path)
    yield c
    c.stop()


def test_logout_revokes_the_cookie_and_its_csrf_token_and_ends_the_live_stream(collector):
    director, csrf = log_in(collector.url)
    cookie = director.cookies.get("bidwire_session")
    # while logged in, the cookie queues a unit command through the API
    r = director.post("/api/v1/units/T01/commands", json={"type": "message", "text": "round 2 soon"},
                      headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    before = collector.rows("SELECT unit, seq, body FROM commands ORDER BY unit, seq")
    assert len(before) == 1

    stream_done, received = threading.Event(), []

    def watch():  # the director's page's live stream, read until the server ends it
        with with_cookie(collector.url, cookie) as c, c.stream("GET", "/director/events",
                                                               timeout=httpx.Timeout(10, read=60)) as r:
            received.append(r.status_code)
            for line in r.iter_lines():
                received.append(line)
        stream_done.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    deadline = time.monotonic() + 10
    while "event: ready" not in received and time.monotonic() < deadline:
        time.sleep(0.05)
    assert received[:1] == [200] and "event: ready" in received

    out = director.post("/logout", data={"csrf": csrf})
    assert out.status_code == 303 and out.headers["location"] == "/login"
    assert stream_done.wait(5), "the live stream went on after logout"  # the tick is 15 s: it was ended, not timed out

    with with_cookie(collector.url, cookie) as thief:
        page = thief.get("/director")
        assert page.status_code == 303 and page.headers["location"] == "/login"
        r = thief.post("/api/v1/units/T01/commands", json={"type": "message", "text": "forged"},
                       headers={"X-CSRF-Token": csrf})
        assert r.status_code == 401 and "dashboard login" in r.json()["error"]
        assert thief.get("/director/events").status_code == 403
        assert thief.get("/api/v1/units").status_code == 401
        assert thief.post("/logout", data={"csrf": csrf}).status_code == 403
    assert collector.rows("SELECT unit, seq, body FROM commands ORDER BY unit, seq") == before
    assert "API refused (401) POST /api/v1/units/T01/commands" in collector.log_text()
    # logging in again makes a new session; the old cookie stays dead
    again, _ = log_in(collector.url)
    assert again.cookies.get("bidwire_session") != cookie
    with with_cookie(collector.url, cookie) as thief:
        assert not director_page_opens(thief)
    director.close()
    again.close()


def test_a_session_unused_for_the_idle_timeout_ends(tmp_path):
    with start(tmp_path, "--session-idle-minutes", "0.05") as collector:  # 3 s
        director, csrf = log_in(collector.url)
        for _ in range(3):  # used every second: it stays open past the 3 s
            time.sleep(1)
            assert director_page_opens(director)
        time.sleep(3.5)
        assert not director_page_opens(director)
        r = director.post("/api/v1/units/T01/commands", json={"type": "message", "text": "late"},
                          headers={"X-CSRF-Token": csrf})
        assert r.status_code == 401
        assert collector.rows("SELECT * FROM commands") == []
        assert "session of the director ended: unused for 0.05 min" in collector.log_text()
        director.close()


def test_a_session_ends_at_its_lifetime_however_much_it_is_used(tmp_path):
    lifetime = 0.003 * 3600  # 10.8 s
    with start(tmp_path, "--session-hours", "0.003") as collector:
        director = httpx.Client(base_url=collector.url, timeout=10)
        token = re.search(r'name="csrf" value="([^"]+)"', director.get("/login").text).group(1)
        sent = time.monotonic()  # the session begins while the login is answered: between these two
        assert director.post("/login", data={"password": PASSWORD, "csrf": token}).status_code == 303
        answered = time.monotonic()
        cookie = director.cookies.get("bidwire_session")
        opened = []  # (asked, answered, valid) for a request every half second
        with with_cookie(collector.url, cookie) as kept:  # sends it even once a browser would have dropped it
            while time.monotonic() - sent < lifetime + 3:
                asked = time.monotonic()
                ok = director_page_opens(kept)
                opened.append((asked - sent, time.monotonic() - sent, ok))
                time.sleep(0.5)
        slack = answered - sent
        assert all(ok for _, end, ok in opened if end < lifetime), opened  # used all along, valid all along
        assert not any(ok for begin, _, ok in opened if begin > lifetime + slack), (slack, opened)
        assert any(not ok for _, _, ok in opened)
        assert "session of the director ended: its lifetime (0.003 h) is over" in collector.log_text()
        director.close()
