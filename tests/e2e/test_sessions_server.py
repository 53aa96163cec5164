"""Dashboard sessions end on the real `bidwire serve` (issue 12, item 2): after logout the old cookie and its CSRF
token open nothing (neither /director nor the API's unit commands) and an open live stream ends at once; a session
unused for the idle timeout, or older than its lifetime however much it is used, ends too. What was done while the
session was valid stays as it was."""
import re
import threading

import httpx2 as httpx
import pytest
from collector_proc import Collector, ProcessClock, keyring
from waiting import wait_until

UNITS = {"T01": "5a" * 32}
PASSWORD = "amber-heron-52"


def start(tmp_path, *extra, env=None):
    (tmp_path / "director-pw").write_text(PASSWORD + "\n")
    return Collector(tmp_path, keyring(tmp_path / "keyring.json", UNITS), 0, env=env,
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
    wait_until(lambda: "event: ready" in received, 10, 0.05, "the live stream's first event")
    assert received[:1] == [200]

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
    clock = ProcessClock(tmp_path / "clock")  # the collector's clock, moved by the test
    with start(tmp_path, "--session-idle-minutes", "10", env=clock.env) as collector:
        director, csrf = log_in(collector.url)
        for _ in range(3):  # used every 8 minutes: it stays open past the 10 minutes
            clock.advance(8 * 60)
            assert director_page_opens(director)
        clock.advance(11 * 60)
        assert not director_page_opens(director)
        r = director.post("/api/v1/units/T01/commands", json={"type": "message", "text": "late"},
                          headers={"X-CSRF-Token": csrf})
        assert r.status_code == 401
        assert collector.rows("SELECT * FROM commands") == []
        wait_until(lambda: "session of the director ended: unused for 10 min" in collector.log_text(), 10,
                   what="the log's line")
        director.close()


def test_a_session_ends_at_its_lifetime_however_much_it_is_used(tmp_path):
    clock = ProcessClock(tmp_path / "clock")
    with start(tmp_path, "--session-hours", "1", "--session-idle-minutes", "30", env=clock.env) as collector:
        director, _ = log_in(collector.url)
        cookie = director.cookies.get("bidwire_session")
        with with_cookie(collector.url, cookie) as kept:  # sends it even once a browser would have dropped it
            for _ in range(2):  # used every 25 minutes: valid all along, to 50 minutes after the login
                clock.advance(25 * 60)
                assert director_page_opens(kept)
            clock.advance(8 * 60)  # 58 minutes
            assert director_page_opens(kept)
            # 60.5 minutes: used 2.5 minutes ago, and its hour is over (the session's own clock says so and logs it;
            # a minute later the cookie's signed timestamp would refuse it first, without a word: auth.Auth.session)
            clock.advance(150)
            assert not director_page_opens(kept)
        wait_until(lambda: "session of the director ended: its lifetime (1 h) is over" in collector.log_text(), 10,
                   what="the log's line")
        director.close()
