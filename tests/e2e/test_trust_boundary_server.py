"""The trust boundary's second pass (issue 24), each attack made as it was seen against a real `bidwire serve`:
login limits per role and address, no server path named by a request, bounded numbers and events, names without
control characters, the session cookie's `Secure` behind a named https proxy, refusals logged at a bounded rate."""
import hashlib
import hmac
import json
from pathlib import Path

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring, rows

from bidwire_host.event import analysis
from bidwire_host.event import model as ev

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


# ---- no server path from a request (issue 24.3) --------------------------------------------------------------------
REGISTER = "number,name\n1001,Ann Lee\n1002,Bo Park\n"


def _event():
    data = ev.to_dict(ev.new_event("Club night", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    data["sessions"][0]["sections"][0]["pairs"][0]["players"] = [{"id": "1001"}, {"id": "1002"}]
    return data


def _secrets(collector):
    out = {"the API token": (collector.data / "api-token").read_text().strip(),
           "the dashboard's session key": (collector.data / "dashboard-secret").read_text().strip(),
           "the director's password": DIRECTOR_PW, "the scorer's password": SCORER_PW}
    out.update({f"{u}'s secret": s for u, s in UNITS.items()})
    return out


class Recorder:
    """Every answer's head and body, to scan for secrets afterwards."""

    def __init__(self):
        self.seen = []

    def __call__(self, response):
        response.read()
        heads = "\n".join(f"{k}: {v}" for k, v in response.headers.items() if k.lower() != "set-cookie")
        self.seen.append((f"{response.request.method} {response.request.url.path}", heads + "\n" + response.text))


def test_a_request_names_no_file_and_no_reply_or_log_line_holds_a_secret(collector):
    """Issue 24.3, the attack as made: POST /api/v1/event with `register` or a session's `hand_records` naming the
    API token's file, the session key's file or /etc/passwd. Each is refused with 400 naming the field, before any
    file is read. Then a whole session (syncs, logins of both roles, the event loaded with its register and hand
    records sent in the body, a result, the pages, the exports): no answer and no line of the log (debug, access
    log) holds the token, the session key, a password or a unit's secret."""
    record = Recorder()
    token = collector.api_headers["Authorization"].split()[1]
    api = httpx.Client(base_url=collector.url, headers=collector.api_headers, timeout=20,
                       event_hooks={"response": [record]})
    passwd_line = open("/etc/passwd").readline().strip()
    targets = [str(collector.data / "api-token"), str(collector.data / "dashboard-secret"), "/etc/passwd",
               "api-token", "../" + collector.data.name + "/api-token"]
    for target in targets:
        event = _event()
        event["register"] = target
        r = api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1}})
        assert r.status_code == 400 and r.json()["error"].startswith("event.register: a request names no file"), r.text
        event = _event()
        event["sessions"][0]["hand_records"] = target
        r = api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1}})
        assert r.status_code == 400, r.text
        assert r.json()["error"].startswith("event.sessions[0].hand_records: a request names no file"), r.text
        event = _event()
        event["sim"] = {"hub": "http://127.0.0.1:9", "id": "s", "club": "c", "secret_file": target}
        r = api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1}})
        assert r.status_code == 400 and r.json()["error"].startswith("event.sim.secret_file:"), r.text
    assert rows(collector.data, "SELECT * FROM setup") == []  # nothing of it was stored

    # the whole session, the files in the body
    event = _event()
    hands = analysis.deal_session(range(1, 7), seed=3)
    r = api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1, "T02": 2}, "register_csv": REGISTER,
                                        "hand_records": {event["sessions"][0]["name"]: hands}})
    assert r.status_code == 200, r.text
    stored = json.loads(rows(collector.data, "SELECT body FROM setup")[0]["body"])
    assert stored["sessions"][0]["sections"][0]["pairs"][0]["players"][0] == {"name": "Ann Lee", "id": "1001"}
    kept = Path(stored["sessions"][0]["hand_records"])
    assert kept.parent == (collector.data / "hand-records").resolve() and kept.read_text() == hands
    bad = api.post("/api/v1/event", json={"event": _event(), "tables": {"T01": 1},
                                          "register_csv": "who,what\n" + token + ",x\n"})
    assert bad.status_code == 400 and bad.json()["error"].startswith("event: register line 1:")
    start = {"seq": 1, "type": "board_start", "board": 1, "section": "A", "table": 1, "round": 1, "ns": 1,
             "ew": 1, "dealer": "N", "vul": "None", "mode": "record", "t": 1}
    end = {"seq": 2, "type": "auction_end", "board": 1, "inputs": ["N:1N", "E:P", "S:P", "W:P"], "contract": "1NT",
           "declarer": "N", "t": 2}
    res = {"seq": 3, "type": "result", "board": 1, "contract": "1NT", "declarer": "N", "tricks": 7, "score_ns": 90,
           "t": 3}
    with httpx.Client(base_url=collector.url, timeout=20, event_hooks={"response": [record]}) as anyone:
        raw, headers = signed("T01", [start, end, res])
        assert anyone.post("/api/v1/sync", content=raw, headers=headers).status_code == 200
        raw, headers = signed("T02", [start])
        forged = dict(headers, **{"X-Bidwire-Signature": "0" * 64})
        assert anyone.post("/api/v1/sync", content=raw, headers=forged).status_code == 401
        assert anyone.get("/api/v1/units", headers={"Authorization": "Bearer " + "9" * 64}).status_code == 401
        assert login(anyone, "not-" + DIRECTOR_PW).status_code == 401
        assert login(anyone, SCORER_PW).status_code == 303
        for path in ("/scorer", "/api/v1/ranking", "/results"):
            anyone.get(path)
    with httpx.Client(base_url=collector.url, timeout=20, event_hooks={"response": [record]}) as director:
        assert login(director, DIRECTOR_PW).status_code == 303
        for path in ("/director", "/director/live", "/director/pairs", "/api/v1/event", "/api/v1/units",
                     "/api/v1/alerts", "/api/v1/queue", "/api/v1/travellers/1", "/api/v1/players"):
            assert director.get(path).status_code == 200, path
    for path in ("/api/v1/export/pbn", "/api/v1/export/csv", "/api/v1/publish", "/api/v1/hub", "/openapi.json"):
        api.get(path)
    api.close()
    collector.stop()
    said = record.seen + [("the log", collector.log_text()), ("standard output", collector.stdout_text)]
    assert len(said) > 40
    for name, secret in _secrets(collector).items():
        for where, text in said:
            assert secret not in text, f"{name} is in {where}"
    for where, text in said:
        assert passwd_line not in text, f"/etc/passwd is in {where}"


# ---- numbers (issue 24.7) -------------------------------------------------------------------------------------------
@pytest.fixture
def event_loaded(collector):
    event = ev.to_dict(ev.new_event("Club night", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    r = collector.api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1, "T02": 2}})
    assert r.status_code == 200, r.text
    return collector


def _post_raw(collector, path, text):
    return collector.api.post(path, content=text, headers={"Content-Type": "application/json"})


def _actions(collector):
    return rows(collector.data, "SELECT kind, body FROM director_actions")


@pytest.mark.parametrize("path, body, field", [
    ("/api/v1/penalties", '{"pair": "1", "direction": "NS", "amount": "1e20000000", "reason": "Law 90"}', "amount"),
    ("/api/v1/penalties", '{"pair": "1", "direction": "NS", "amount": 1e308, "reason": "Law 90"}', "amount"),
    ("/api/v1/penalties", '{"pair": "1", "direction": "NS", "amount": NaN, "reason": "Law 90"}', "amount"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1, "ns": "1e20000000", "ew": "A"}', "ns"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1, "ns": "A", "ew": "1e-20000000"}', "ew"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1, "ns": NaN, "ew": "A"}', "ns"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1, "ns": "A", "ew": Infinity}', "ew"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1, "ns": -Infinity, "ew": "A"}', "ns"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1, "score_ns": 1' + "0" * 4000 + '}', "score_ns"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1, "score_ns": 7610}', "score_ns"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1, "score_ns": 100, "score_ew": -7700}', "score_ew"),
    ("/api/v1/adjustments", '{"table": 1, "board": 1' + "0" * 20 + ', "ns": "A", "ew": "A"}', "board"),
])
def test_a_number_out_of_bounds_is_refused_naming_the_field(event_loaded, path, body, field):
    """Issue 24.7, as the attack was made: a penalty amount or an artificial score of "1e20000000" held the writer
    (a unit's sync waited 18 s), 10^4000 as an assigned score was stored and published, NaN and Infinity were a
    500. Each is refused (400 or 422) naming the field, before the writer: nothing is stored, and the same route still
    takes a number within the bounds."""
    collector = event_loaded
    r = _post_raw(collector, path, body)
    assert r.status_code in (400, 422), r.text  # 422: the API's schema (the score's range); 400: the bounds
    assert field in r.json()["error"].split(":")[0], r.text
    assert _actions(collector) == []
    good = {"/api/v1/penalties": '{"pair": "1", "direction": "NS", "amount": "1.5", "reason": "Law 90"}',
            "/api/v1/adjustments": '{"table": 1, "board": 1, "score_ns": 7600, "score_ew": -7600}'}[path]
    assert _post_raw(collector, path, good).status_code == 201
    assert len(_actions(collector)) == 1


def _director(collector):
    client = httpx.Client(base_url=collector.url, timeout=10)
    assert login(client, DIRECTOR_PW, "director").status_code == 303
    page = client.get("/director")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    return client, csrf


@pytest.mark.parametrize("path, form, field", [
    ("/director/rulings", {"unit": "T01", "seq": "1" + "0" * 20, "ruling": "accept"}, "seq"),
    ("/director/held", {"unit": "T01", "seq": "1" + "0" * 20, "decision": "accept"}, "seq"),
    ("/director/adjust", {"table": "1", "board": "1" + "0" * 20, "kind": "artificial", "ns": "A", "ew": "A"}, "board"),
    ("/director/adjust", {"table": "1", "board": "1", "kind": "assigned", "score_ns": "9" * 30}, "score_ns"),
    ("/director/adjust", {"table": "1", "board": "1", "kind": "assigned", "score_ns": "10000"}, "score_ns"),
    ("/director/penalty", {"pair": "1", "direction": "NS", "amount": "1e20000000", "reason": "Law 90"}, "amount"),
])
def test_a_form_number_out_of_bounds_is_a_4xx_naming_the_field(event_loaded, path, form, field):
    """Issue 24.7: a form field `seq` of 10^20 gave a 500. Every dashboard form's number is bounded to 64 bits (a
    score to what a board can score), refused with the page and the field named, nothing stored."""
    collector = event_loaded
    client, csrf = _director(collector)
    try:
        r = client.post(path, data=dict(form, csrf=csrf, idem="k1"), follow_redirects=False)
    finally:
        client.close()
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    assert f"{field}: a" in r.text
    assert _actions(collector) == [] and rows(collector.data, "SELECT * FROM commands WHERE type = 'ruling'") == []


# ---- bounds on the event (issue 24.8) -------------------------------------------------------------------------------
def _section(name, movement, boards_per_round=2, **more):
    return {"name": name, "movement": movement, "boards_per_round": boards_per_round, **more}


def _sized(sections, sessions=1):
    return {"name": "Big night", "sessions": [{"name": f"S{i}", "sections": sections} for i in range(sessions)]}


@pytest.mark.parametrize("event, said", [
    (_sized([_section("A", {"type": "mitchell", "tables": 1001})]), "tables of a Mitchell must be a whole number 3-"),
    (_sized([_section("A", {"type": "mitchell", "tables": 201})]), "3-200, not 201"),
    (_sized([_section("A", {"type": "mitchell", "tables": 10**18})]), "3-200"),
    (_sized([_section("A", {"type": "teams", "rounds": 10**9})]), "rounds of a team match must be a whole number 2-"),
    (_sized([_section("A", {"type": "mitchell", "tables": 3}, first_board=9998)]), "more than 9999"),
    (_sized([_section(f"S{k}", {"type": "mitchell", "tables": 3}) for k in range(501)]), "at most 500 sections"),
    (_sized([_section(f"S{k}", {"type": "mitchell", "tables": 200}) for k in range(51)]),
     "at most 10,000 tables in a session, all sections together, not 10,200"),
    (_sized([_section("A", {"type": "mitchell", "tables": 3})], sessions=17), "at most 16 sessions"),
])
def test_an_event_beyond_the_bounds_is_refused_with_the_bound(collector, event, said):
    """Issue 24.8, as the attack was made: a 1,001-table Mitchell took 89 s to load (a sync waited 69 s). Tables
    per section (200), rounds (100), board numbers (9999), sections (500), tables of a session (10,000) and
    sessions (16) are bounded: refused
    with 400 saying the bound, nothing stored; the collector goes on storing a unit's sync."""
    r = collector.api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1}, "method": "mp"})
    assert r.status_code == 400 and said in r.json()["error"], r.text
    assert rows(collector.data, "SELECT * FROM setup") == []
    raw, headers = signed("T01", [{"seq": 1, "type": "hello", "boot": 1, "backlog": 0, "firmware": "bidwire-unit 0.3",
                                   "board": "unix_sim", "battery": 90, "rssi": -50, "t": 1000}])
    assert httpx.post(collector.url + "/api/v1/sync", content=raw, headers=headers, timeout=10).status_code == 200


def test_the_largest_section_allowed_loads(collector):
    """The bound is one a real event can use: a 200-table Mitchell (the most allowed) loads."""
    event = ev.to_dict(ev.new_event("Big night", {"type": "mitchell", "tables": 200}, boards_per_round=1))
    r = collector.api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1}, "start": False}, timeout=60)
    assert r.status_code == 200, r.text
    assert r.json()["setup"]["sections"][0]["movement"] == "200-table skip Mitchell"


# ---- names (issue 24.10) --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["Ann\x00Lee", "Ann\x1bLee", "Ann\x7fLee", "Ann\x9bLee"])
def test_a_control_character_in_a_name_is_refused_everywhere(event_loaded, name):
    """Issue 24.10: a NUL in a player's name reached the CSV files. The register, the event file and the pairs
    editor each refuse a control character in a name (400 or 422 naming the field); nothing is stored, so no export
    can carry it."""
    collector = event_loaded
    before = rows(collector.data, "SELECT body FROM setup")
    register = f"number,name\n1001,{name}\n1002,Bo Park\n"
    r = collector.api.post("/api/v1/event", json={"event": _event(), "tables": {"T01": 1}, "register_csv": register})
    assert r.status_code == 400 and "register line 2: no control characters" in r.json()["error"], r.text
    event = _event()
    event["sessions"][0]["sections"][0]["pairs"][0]["players"] = [{"name": name}, {"name": "Bo Park"}]
    r = collector.api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1}})
    assert r.status_code == 400, r.text
    assert "pairs[0].players[0].name: no control characters" in r.json()["error"], r.text
    event = _event()
    event["sessions"][0]["sections"][0]["pairs"][0] = {"number": 1, "line": "NS", "name": name}
    r = collector.api.post("/api/v1/event", json={"event": event, "tables": {"T01": 1}})
    assert r.status_code == 400 and "pairs[0].name: no control characters" in r.json()["error"], r.text
    assert rows(collector.data, "SELECT body FROM setup") == before
    fix = {"direction": "NS", "pair": 1, "players": [{"name": name}, {"name": "Bo Park"}], "reason": "swap"}
    r = collector.api.post("/api/v1/players", json=fix)
    assert r.status_code in (400, 422) and "players[0].name" in r.json()["error"], r.text
    client, csrf = _director(collector)
    try:
        form = {"csrf": csrf, "idem": "p1", "pair": "1", "direction": "NS", "name0": name, "name1": "Bo Park",
                "reason": "swap"}
        r = client.post("/director/pairs", data=form, follow_redirects=False)
    finally:
        client.close()
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    assert _actions(collector) == []


# ---- the session cookie behind a proxy (issue 24.10) ----------------------------------------------------------------
def _session_cookie(collector, headers):
    with httpx.Client(base_url=collector.url, timeout=10, headers=headers) as c:
        c.get("/login")
        r = c.post("/login", data={"password": DIRECTOR_PW, "role": "director",
                                   "csrf": c.cookies.get("bidwire_login")}, follow_redirects=False)
    assert r.status_code == 303
    [cookie] = [v for k, v in r.headers.multi_items() if k.lower() == "set-cookie" and "bidwire_session" in v]
    return [part.strip().lower() for part in cookie.split(";")]


def test_the_session_cookie_is_secure_over_https_through_a_named_proxy(tmp_path):
    """Issue 24.10: the session cookie never had `Secure`, even behind a named https proxy. Through the proxy the
    operator named (--forwarded-allow-ips), a request that came over https gets `Secure`; plain http does not (the
    browser would drop the cookie), nor does a peer that is not a named proxy claiming https."""
    (tmp_path / "director-pw").write_text(DIRECTOR_PW + "\n")
    ring = keyring(tmp_path / "keyring.json", UNITS)
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "10.2.3.4"}
    proxied = Collector(tmp_path, ring, 0, extra=["--director-password-file", str(tmp_path / "director-pw"),
                                                  "--forwarded-allow-ips", "127.0.0.1"])
    try:
        assert "secure" in _session_cookie(proxied, https)
        assert "secure" not in _session_cookie(proxied, {"X-Forwarded-Proto": "http"})
    finally:
        proxied.stop()
    direct = Collector(tmp_path, ring, 0, extra=["--director-password-file", str(tmp_path / "director-pw")])
    try:
        parts = _session_cookie(direct, https)
        assert "secure" not in parts and "httponly" in parts and "samesite=strict" in parts
    finally:
        direct.stop()
