"""Security of the collector (issue 6): replayed bodies, a unit posting for another table, bodies too large or
nested too deep, the director's API without its token, a scorer's or a cookie-only change, login brute force,
CSRF. Each refusal leaves every table of the store as it was and is logged with its reason; no secret, token or
password is ever written to the log. (Forged signatures: test_collector_rejections.py; slow clients and the
logs of a real `bidwire serve`: tests/e2e/test_security_server.py.)"""
import json
import logging
import re

import pytest
from collector_kit import SECRETS, ApiClient, body, counts, hello, played, post, query, sign, sync
from fastapi.testclient import TestClient
from test_collector_event import TABLES, assigns, mitchell, nt

from bidwire_host.auth import LOGIN_COOKIE, LoginLimiter
from bidwire_host.collector.sync import MAX_BODY
from bidwire_host.server import create_app

DIRECTOR_PW, SCORER_PW = "velvet-kestrel-52", "amber-heron-17"


@pytest.fixture
def app(data):
    return create_app(data, event=mitchell(), tables=TABLES, director_password=DIRECTOR_PW,
                      scorer_password=SCORER_PW)


@pytest.fixture
def client(app):
    with ApiClient(app) as c:
        yield c


@pytest.fixture
def anonymous(app):
    with TestClient(app, base_url="https://testserver") as c:  # https: the session cookie is Secure-safe
        yield c


@pytest.fixture
def logs(caplog):
    caplog.set_level(logging.INFO)
    return caplog


def refused(logs, status, needle):
    """The log holds a refusal with this status and a reason containing needle."""
    lines = [r.getMessage() for r in logs.records]
    assert any(f"({status})" in line and needle in line for line in lines), lines
    return lines


def login(c, password):
    c.get("/login")
    return c.post("/login", data={"password": password, "csrf": c.cookies.get(LOGIN_COOKIE, path="/login")},
                  follow_redirects=False)


# ---- replays ---------------------------------------------------------------------------------------------------
def test_a_replayed_old_body_is_acknowledged_stores_nothing_and_is_counted(client, data, logs):
    a = assigns(data, "T01")[0]
    first = body([hello(1), *nt(2, a["boards"][0], section="A", table=1, round=1, ns=1, ew=1)], cmd_ack=1)
    assert post(client, first).json()["ack"] == 5
    second = body(nt(6, a["boards"][1], section="A", table=1, round=1, ns=1, ew=1), cmd_ack=1)
    assert post(client, second).json()["ack"] == 9
    before = {k: v for k, v in counts(data).items() if k != "unit_sync"}
    bodies = [r["body"] for r in query(data, "SELECT body FROM events ORDER BY id")]
    r = post(client, first)  # an eavesdropper sends the first body, signature and all, again
    assert r.status_code == 200 and r.json()["ack"] == 9
    assert {k: v for k, v in counts(data).items() if k != "unit_sync"} == before
    assert [r["body"] for r in query(data, "SELECT body FROM events ORDER BY id")] == bodies
    assert query(data, "SELECT duplicates FROM unit_sync WHERE unit = 'T01'") == [{"duplicates": 5}]


def test_a_replayed_body_cannot_be_renamed_to_another_unit(client, data, logs):
    raw = body([hello(1)], unit="T01")
    signature = sign(raw, "T01")  # the eavesdropper has T01's body and signature, not T02's secret
    forged = raw.replace(b'"T01"', b'"T02"')
    before = counts(data)
    r = post(client, forged, unit="T02", signature=signature)
    assert r.status_code == 401 and "bad signature" in r.json()["error"]
    assert counts(data) == before
    refused(logs, 401, "bad signature")


# ---- one unit posting for another table --------------------------------------------------------------------------
def test_a_unit_posting_for_another_units_table_is_alerted_and_not_scored(client, data):
    [a1] = assigns(data, "T01")
    board = a1["boards"][0]
    # T02 sits at table 2; it reports board 1 as if it were table 1 (an assignment never sent to it)
    r = sync(client, nt(1, board, tricks=9, section="A", table=1, round=1, ns=1, ew=1), unit="T02")
    assert r.status_code == 200  # stored (nothing a unit sends is lost) ...
    alerts = query(data, "SELECT unit, kind FROM alerts ORDER BY id")
    assert alerts == [{"unit": "T02", "kind": "unknown_assignment"}, {"unit": "T02", "kind": "held_result"}]
    assert client.get(f"/api/v1/travellers/{board}").json()["rows"] == []  # ... and it is not scored
    [held] = client.get("/api/v1/held").json()["held"]  # held for the director, with what differs
    assert any("the event gives section A table 1 to unit T01, not to unit T02" in why for why in held["held"])
    # table 1's own unit reports the board: that result is the one on the traveller
    assert sync(client, nt(1, board, tricks=7, section="A", table=1, round=1, ns=1, ew=1), unit="T01",
                cmd_ack=1).status_code == 200
    [row] = client.get(f"/api/v1/travellers/{board}").json()["rows"]
    assert (row["table"], row["tricks"]) == (1, 7)


# ---- bodies too large, nested too deep ----------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/api/v1/sync", "/api/v1/event", "/api/v1/units/T01/commands",
                                  "/api/v1/adjustments"])
def test_a_body_nested_too_deep_is_refused_400(client, data, logs, path):
    before = counts(data)
    deep = b"[" * 100_000 + b"]" * 100_000  # 200 KB: under every size limit
    r = client.post(path, content=deep, headers={"Content-Type": "application/json",
                                                 "X-Bidwire-Signature": "00"})
    assert r.status_code == 400 and r.json()["error"]
    assert counts(data) == before
    refused(logs, 400, "")


@pytest.mark.parametrize("path,limit", [("/api/v1/event", 1024 * 1024), ("/api/v1/units/T01/commands", 1024 * 1024),
                                        ("/api/v1/sync", MAX_BODY)])
def test_an_oversized_body_is_refused_413_before_it_is_parsed(client, data, logs, path, limit):
    before = counts(data)
    big = json.dumps({"event": {"name": "x" * limit}}).encode()
    r = client.post(path, content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "over the" in r.json()["error"]
    assert counts(data) == before
    refused(logs, 413, "limit")


# ---- the director's API -------------------------------------------------------------------------------------------
API_CALLS = [("GET", "/api/v1/units", None), ("GET", "/api/v1/alerts", None), ("GET", "/api/v1/ranking", None),
             ("GET", "/api/v1/travellers/1", None), ("GET", "/api/v1/export/pbn", None),
             ("POST", "/api/v1/units/T01/commands", {"type": "message", "text": "hello"}),
             ("POST", "/api/v1/publish", {"minutes": 30}),
             ("POST", "/api/v1/penalties", {"direction": "NS", "pair": "1", "amount": 1, "reason": "slow"}),
             ("POST", "/api/v1/rounds/2/start", None)]


@pytest.mark.parametrize("method,path,payload", API_CALLS)
def test_the_api_without_its_token_is_refused_401(anonymous, data, logs, method, path, payload):
    before = counts(data)
    for headers in ({}, {"Authorization": "Bearer " + "0" * 64}, {"Authorization": "Basic ZGlyZWN0b3I6eA=="}):
        r = anonymous.request(method, path, json=payload, headers=headers)
        assert r.status_code == 401, (headers, r.text)
        assert r.json()["error"] and r.headers["WWW-Authenticate"] == "Bearer"
    assert counts(data) == before
    refused(logs, 401, "wrong API token")
    refused(logs, 401, "the API needs")


def test_the_api_token_opens_the_api_and_is_kept_private_in_the_data_directory(client, data):
    assert client.get("/api/v1/units").status_code == 200
    assert client.post("/api/v1/units/T01/commands", json={"type": "message", "text": "hi"}).status_code == 201
    token = data / "api-token"
    assert token.stat().st_mode & 0o777 == 0o600
    assert re.fullmatch(r"[0-9a-f]{64}\n", token.read_text())


def test_a_scorer_may_read_the_api_but_not_change_anything(anonymous, data, logs):
    assert login(anonymous, SCORER_PW).status_code == 303
    assert anonymous.get("/api/v1/ranking").status_code == 200
    before = counts(data)
    r = anonymous.post("/api/v1/units/T01/commands", json={"type": "message", "text": "hi"})
    assert r.status_code == 403 and "scorer" in r.json()["error"]
    assert counts(data) == before
    refused(logs, 403, "scorer")


def test_a_change_through_the_api_with_only_the_directors_cookie_needs_its_csrf_token(anonymous, app, data, logs):
    """A page on another site can make a logged-in browser post (the cookie goes along); it cannot read the CSRF
    token, so the post is refused."""
    assert login(anonymous, DIRECTOR_PW).status_code == 303
    before = counts(data)
    r = anonymous.post("/api/v1/units/T01/commands", json={"type": "message", "text": "hi"})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = anonymous.post("/api/v1/units/T01/commands", json={"type": "message", "text": "hi"},
                       headers={"X-CSRF-Token": "not-the-token"})
    assert r.status_code == 403
    assert counts(data) == before
    refused(logs, 403, "CSRF")
    session = app.state.auth.session(type("R", (), {"cookies": dict(anonymous.cookies)})())
    r = anonymous.post("/api/v1/units/T01/commands", json={"type": "message", "text": "hi"},
                       headers={"X-CSRF-Token": session["csrf"]})
    assert r.status_code == 201


# ---- the dashboard's login and forms ------------------------------------------------------------------------------
def test_login_brute_force_is_rate_limited_per_address(anonymous, app, logs):
    clock = [1000.0]
    app.state.auth.limiter = LoginLimiter(clock=lambda: clock[0])
    for i in range(LoginLimiter.FREE_TRIES):
        assert login(anonymous, f"guess-{i}").status_code == 401
    r = login(anonymous, DIRECTOR_PW)  # even the right password waits: the guesser learns nothing
    assert r.status_code == 429 and int(r.headers["Retry-After"]) == LoginLimiter.FIRST_WAIT_S
    assert "Too many wrong passwords" in r.text
    refused_lines = [m for m in (r.getMessage() for r in logs.records) if "too many wrong passwords" in m]
    assert refused_lines
    clock[0] += LoginLimiter.FIRST_WAIT_S
    assert login(anonymous, "guess-again").status_code == 401  # one more try, then twice as long
    r = login(anonymous, DIRECTOR_PW)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) == 2 * LoginLimiter.FIRST_WAIT_S
    clock[0] += 2 * LoginLimiter.FIRST_WAIT_S
    assert login(anonymous, DIRECTOR_PW).status_code == 303  # the right password, in time: in, and forgiven
    assert app.state.auth.limiter.wait("testclient", ("director",)) == 0
    # the wrong passwords named no role, so they counted for every role with a password: the director's login
    # forgives none of the scorer's (issue 24.2)
    assert app.state.auth.limiter.wait("testclient", ("scorer",)) > 0


def test_the_wait_is_capped_and_another_address_is_not_locked_out():
    clock = [0.0]
    limiter = LoginLimiter(clock=lambda: clock[0])
    for _ in range(40):
        limiter.failed("10.0.0.66")
    assert limiter.wait("10.0.0.66") == LoginLimiter.MAX_WAIT_S
    assert limiter.wait("10.0.0.10") == 0  # the director's tablet
    clock[0] += LoginLimiter.FORGET_S + 1
    assert limiter.wait("10.0.0.66") == 0


@pytest.mark.parametrize("path,form", [("/director/rulings", {"unit": "T01", "seq": "1", "ruling": "accept"}),
                                       ("/director/adjust", {"table": "1", "board": "1", "ns": "A", "ew": "A"}),
                                       ("/director/penalty", {"direction": "NS", "pair": "1", "amount": "1"}),
                                       ("/scorer/publish", {"minutes": "30"}), ("/logout", {})])
def test_a_form_without_its_csrf_token_is_refused_and_logged(anonymous, data, logs, path, form):
    assert login(anonymous, DIRECTOR_PW).status_code == 303
    before = counts(data)
    for csrf in (None, "forged"):
        r = anonymous.post(path, data=dict(form, **({"csrf": csrf} if csrf else {})), follow_redirects=False)
        assert r.status_code == 403
    assert counts(data) == before
    assert any("form refused (403)" in r.getMessage() and path in r.getMessage() for r in logs.records)


# ---- secrets absent from the log ----------------------------------------------------------------------------------
def test_no_secret_token_or_password_reaches_the_log(app, client, anonymous, data, logs):
    sync(client, [hello(1), *played(2)])
    post(client, body([hello(9)]), signature="f" * 64)  # a bad signature
    client.get("/api/v1/units")
    anonymous.get("/api/v1/units", headers={"Authorization": "Bearer " + "1" * 64})
    login(anonymous, "wrong-" + DIRECTOR_PW)
    login(anonymous, DIRECTOR_PW)
    text = "\n".join(r.getMessage() for r in logs.records)
    assert "refused" in text  # the log did record the refusals ...
    secrets = [*SECRETS.values(), app.state.api_token, DIRECTOR_PW, SCORER_PW, "1" * 64, "f" * 64,
               (data / "dashboard-secret").read_text().strip(), *anonymous.cookies.values()]
    for s in secrets:  # ... and none of these
        assert s not in text, s[:8]


# ---- the log under a flood (issue 24.10) -----------------------------------------------------------------------------
def test_a_flood_of_refused_requests_logs_one_line_per_address_and_reason_every_ten_seconds(anonymous, app, logs):
    """One unauthenticated client wrote 182 KB/s of log: each refusal was a line. Now the first refusal of a kind
    from an address is logged, the rest are counted until 10 s (the service's clock, set here) have passed."""
    now = [0.0]
    app.state.service.refusals.clock = lambda: now[0]
    for _ in range(200):
        assert anonymous.get("/api/v1/units").status_code == 401
        assert anonymous.post("/api/v1/sync", content=b"{}", headers={"X-Bidwire-Signature": "00"}).status_code \
            in (400, 401)
    now[0] = 10.5
    assert anonymous.get("/api/v1/units").status_code == 401
    lines = [r.getMessage() for r in logs.records if r.levelno >= logging.WARNING]
    api = [line for line in lines if "API refused (401)" in line]
    assert len(api) == 2, lines
    assert "(199 more like it in the last 10 s)" in api[1]
    assert len([line for line in lines if "sync refused" in line]) == 1, lines
    assert len(lines) <= 4, lines  # and nothing else was written 400 times
