"""Issue 39, finding 6, against real hub workers and a real PostgreSQL: the organiser's page session is kept on the
server. A logout ends it for every copy of its cookie; a password change (the hub restarted with another password)
ends every session opened with the old one; a forged or foreign cookie opens nothing."""
import tempfile
from datetime import UTC, datetime, timedelta

import httpx2 as httpx
from hubkit import Hub

SIM = "sessions"


def _login(hub, password):
    """A browser's login: the session cookie it is given (the login answers 303 to the page)."""
    with httpx.Client(base_url=hub.url, timeout=30) as c:
        r = c.post("/organiser/login", data={"password": password, "next": f"/organiser/sims/{SIM}"})
        assert r.status_code == 303 and r.headers["location"] == f"/organiser/sims/{SIM}", r.text
        return r.cookies["bidwire_hub"]


def _reads_audit(hub, cookie):
    with httpx.Client(base_url=hub.url, timeout=30, cookies={"bidwire_hub": cookie}) as c:
        return c.get(f"/api/v1/sims/{SIM}/audit").status_code


def test_a_logout_and_a_new_password_end_the_sessions(pg):
    with tempfile.TemporaryDirectory(prefix="bidwire-hub-") as folder:
        hub = Hub(pg.dsn, folder, password="first-password-of-the-evening").start()
        try:
            with hub.organiser() as org:
                assert org.post("/api/v1/sims", json={
                    "id": SIM, "name": SIM, "boards": [1],
                    "release_at": (datetime.now(UTC) + timedelta(days=1)).isoformat()}).status_code == 201
            kept, ended = _login(hub, hub.password), _login(hub, hub.password)
            assert _reads_audit(hub, kept) == 200 and _reads_audit(hub, ended) == 200
            with httpx.Client(base_url=hub.url, timeout=30, cookies={"bidwire_hub": ended}) as c:
                r = c.post("/organiser/logout")
            assert r.status_code == 303 and r.headers["location"] == "/"
            assert r.headers["set-cookie"].startswith('bidwire_hub=""') and "Max-Age=0" in r.headers["set-cookie"]
            assert _reads_audit(hub, ended) == 401  # and a copy kept elsewhere opens nothing
            assert _reads_audit(hub, kept) == 200  # another session is not touched
            assert _reads_audit(hub, kept[:-4] + "AAAA") == 401  # a forged signature
            with httpx.Client(base_url=hub.url, timeout=30, cookies={"bidwire_hub": ended},
                              follow_redirects=False) as c:
                assert c.get(f"/organiser/sims/{SIM}").status_code == 303  # the page sends it to log in
        finally:
            hub.stop()
        hub.password = "second-password-after-a-leak"
        hub.start()  # the same database, the password changed
        try:
            assert _reads_audit(hub, kept) == 401  # the old password's sessions are over
            fresh = _login(hub, hub.password)
            assert _reads_audit(hub, fresh) == 200
        finally:
            hub.stop()


def test_a_forwarded_address_is_not_believed_from_a_sender_the_operator_did_not_name(hub):
    """Finding 5: each wrong password sent with another X-Forwarded-For counted for "another address": 40 guesses in
    0.1 s and no 429. The hub names no proxy by default, so the sixth wrong guess from one connection's address
    waits, whatever its headers say, and a header naming someone else's address does not lock them out."""
    def client(address):
        return httpx.Client(base_url=hub.url, timeout=30, transport=httpx.HTTPTransport(local_address=address))

    with client("127.0.0.5") as c:
        codes = [c.post("/organiser/login", data={"password": f"guess{n}"},
                        headers={"X-Forwarded-For": f"198.51.100.{n}"}).status_code for n in range(6)]
    assert codes == [401] * 5 + [429]
    with client("127.0.0.6") as c:  # five guesses that claim to come from 127.0.0.7 ...
        for n in range(5):
            assert c.post("/organiser/login", data={"password": f"x{n}"},
                          headers={"X-Forwarded-For": "127.0.0.7"}).status_code == 401
    with client("127.0.0.7") as c:  # ... do not lock 127.0.0.7 out
        assert c.post("/organiser/login", data={"password": hub.password}).status_code == 303
