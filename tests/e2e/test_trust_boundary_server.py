"""The trust boundary's second pass (issue 24), each attack made as it was seen against a real `bidwire serve`:
login limits per role and address, no server path named by a request, bounded numbers and events, names without
control characters, the session cookie's `Secure` behind a named https proxy, refusals logged at a bounded rate."""
import hashlib
import hmac
import json

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring, rows

SECRET = "5a" * 32
UNITS = {"T01": SECRET, "T02": "a7" * 32}
DIRECTOR_PW, SCORER_PW = "basalt-heron-57", "tidal-marten-13"


@pytest.fixture
def collector(tmp_path):
    (tmp_path / "director-pw").write_text(DIRECTOR_PW + "\n")
    (tmp_path / "scorer-pw").write_text(SCORER_PW + "\n")
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", UNITS), 0,
                  extra=["--log-level", "debug", "--access-log",
                         "--director-password-file", str(tmp_path / "director-pw"),
                         "--scorer-password-file", str(tmp_path / "scorer-pw")])
    yield c
    c.stop()


def login(client, password, role=None):
    client.get("/login")
    form = {"password": password, "csrf": client.cookies.get("bidwire_login")}
    if role is not None:
        form["role"] = role
    return client.post("/login", data=form, follow_redirects=False)


def signed(unit, events, boot=1):
    raw = json.dumps({"unit": unit, "boot": boot, "cmd_ack": 0, "events": events}).encode()
    sig = hmac.new(bytes.fromhex(UNITS[unit]), raw, hashlib.sha256).hexdigest()
    return raw, {"X-Bidwire-Signature": sig, "Content-Type": "application/json"}


@pytest.mark.parametrize("named", [None, "director"])
def test_a_scorer_login_forgives_no_director_guess(collector, named):
    """Issue 24.2: four wrong director passwords, then the right scorer one, repeated (the form naming no role, as
    the attack was made, or naming each). The scorer's success clears only the scorer's count: the fifth wrong
    director guess is the last one answered, the sixth waits (429)."""
    with httpx.Client(base_url=collector.url, timeout=10) as guesser:
        codes = []
        for _ in range(2):
            codes += [login(guesser, f"guess-{len(codes)}", named).status_code for _ in range(4)]
            codes.append(login(guesser, SCORER_PW, None if named is None else "scorer").status_code)
        assert codes[:5] == [401] * 4 + [303]
        assert codes[5] == 401  # the 5th wrong director password: still answered
        assert codes[6:9] == [429] * 3  # then the address waits for the director
        # the scorer's right password: refused too when the form did not say which role (the guesses may have been
        # the scorer's), let in when it named the scorer (nothing was guessed for that role)
        assert codes[9] == (429 if named is None else 303)
    with httpx.Client(base_url=collector.url, timeout=10,
                      transport=httpx.HTTPTransport(local_address="127.0.3.7")) as tablet:
        assert login(tablet, DIRECTOR_PW, named).status_code == 303  # another address: not locked out
    log = collector.log_text()
    assert "login refused from 127.0.0.1: wrong password (5 in a row)" in log
    assert "login refused from 127.0.0.1: too many wrong passwords" in log


def test_a_role_the_collector_has_no_password_for_is_refused_with_the_field(collector):
    with httpx.Client(base_url=collector.url, timeout=10) as c:
        r = login(c, DIRECTOR_PW, "admin")
        assert r.status_code == 400 and "role: one of director, scorer" in r.text
        assert login(c, DIRECTOR_PW, "scorer").status_code == 401  # the director's password is not the scorer's
