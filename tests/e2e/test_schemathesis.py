"""Schemathesis against the real collector (`bidwire serve` on 127.0.0.1), from the schema it serves.

Every operation of /openapi.json gets generated requests (valid and not, by the schema): never a 5xx, and a
response whose status the schema declares must match the schema declared for it. The director's API is called
with the collector's API token (the file `api-token` in its data directory). Generated sync bodies carry no
valid X-Bidwire-Signature, so they are refused (401/403/400): what matters here is that the refusal is a 4xx;
the sync body parser itself is fuzzed with signed bodies in tests/host/test_fuzz_sync.py.

A second test: without the token, every /api/v1 operation but the units' sync answers 401.
"""
import hashlib
import hmac
import json

import httpx2 as httpx
import pytest
import requests
import schemathesis
from collector_proc import Collector
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from bidwire_host.event import model as ev
from bidwire_host.scoring.model import law77_score

SECRETS = {"T01": "5a" * 32, "T02": "a5" * 32, "T03": "3c" * 32}
TABLES = {"T01": 1, "T02": 2, "T03": 3}
SYNC = "/api/v1/sync"


def token_headers(collector):
    """The API token header, if the collector keeps a token (the file `api-token` in its data directory)."""
    path = collector.data / "api-token"
    return {"Authorization": f"Bearer {path.read_text().strip()}"} if path.exists() else {}


def sync(collector, unit, events, cmd_ack=0):
    raw = json.dumps({"unit": unit, "boot": 1, "cmd_ack": cmd_ack, "events": events}).encode()
    signature = hmac.new(bytes.fromhex(SECRETS[unit]), raw, hashlib.sha256).hexdigest()
    r = httpx.post(collector.url + SYNC, content=raw, headers={"X-Bidwire-Signature": signature}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def one_notrump(seq, board, a):
    """A board played in 1NT by its dealer, made with 7 tricks, as a unit reports it under its assignment a."""
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    where = {"section": a["section"], "table": a["table"], "round": a["round"], "ns": a["ns"], "ew": a["ew"],
             "event": a["event"]}
    vul = ("None", "NS", "EW", "Both", "NS", "EW", "Both", "None", "EW", "Both", "None", "NS", "Both", "None",
           "NS", "EW")[(board - 1) % 16]
    inputs = [f"{seats[0]}:1N"] + [f"{s}:P" for s in seats[1:]]
    return [{"seq": seq, "type": "board_start", "board": board, "dealer": seats[0], "vul": vul, **where, "t": 1},
            {"seq": seq + 1, "type": "auction_end", "board": board, "inputs": inputs, "contract": "1NT",
             "declarer": seats[0], "t": 2},
            {"seq": seq + 2, "type": "result", "board": board, "contract": "1NT", "declarer": seats[0], "tricks": 7,
             "score_ns": law77_score(board, "1NT", seats[0], 7), "t": 3}]


@pytest.fixture(scope="module")
def collector(tmp_path_factory):
    """The collector with an event loaded and round 1 played at every table: scores, travellers, exports exist."""
    with Collector.with_units(tmp_path_factory.mktemp("schemathesis"), SECRETS) as c:
        h = token_headers(c)
        event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
        r = httpx.post(c.url + "/api/v1/event", json={"event": event, "tables": TABLES}, headers=h, timeout=10)
        assert r.status_code == 200, r.text
        for unit in TABLES:
            reply = sync(c, unit, [])
            [a] = [cmd for cmd in reply["commands"] if cmd["type"] == "assign"]
            seq = 1
            for board in a["boards"]:
                sync(c, unit, one_notrump(seq, board, a), cmd_ack=a["seq"])
                seq += 3
        assert httpx.get(c.url + "/api/v1/ranking", headers=h, timeout=10).json()["ranking"]
        yield c


@pytest.fixture(scope="module")
def api_schema(collector):
    return schemathesis.openapi.from_url(collector.url + "/openapi.json")


CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
SESSION = requests.Session()  # one connection kept open, not one per request
EXAMPLES = 25  # per operation and mode


# What the director and the scorer read: a request that changed something must not have broken any of them.
READS = ["/api/v1/units", "/api/v1/event", "/api/v1/ranking", "/api/v1/travellers/1", "/api/v1/boards/1",
         "/api/v1/alerts", "/api/v1/adjustments", "/api/v1/penalties", "/api/v1/publish", "/api/v1/export/pbn",
         "/api/v1/units/T01/commands", "/healthz"]


def still_readable(base_url, headers):
    for path in READS:
        r = httpx.get(base_url + path, headers=headers, timeout=30)
        assert r.status_code < 500, (path, r.status_code, r.text)


def fuzz(operation, mode, headers, url):
    """EXAMPLES generated requests for one operation; the first failure (shrunk), or None."""
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case):
        response = case.call_and_validate(session=SESSION, headers=headers, timeout=30, checks=CHECKS)
        if operation.path == SYNC:  # unsigned, or signed with a made-up value: refused, and clearly
            assert 400 <= response.status_code < 500, response.text
            assert isinstance(response.json().get("error"), str)
        elif response.status_code >= 400:
            assert isinstance(response.json().get("error"), str), response.text

    try:
        run()
        # What the requests stored must not break what the director and the scorer read (checked once per
        # operation and mode, for time: what broke them is then in the store, with the operation named here).
        still_readable(url, headers)
    except Unsatisfiable:
        if mode != GenerationMode.NEGATIVE:
            raise
        return None  # nothing in this operation can be made invalid (no parameters, no body)
    except (Exception, BaseExceptionGroup) as e:  # every operation is run, the failures reported together
        return f"{operation.label} ({mode}): {type(e).__name__}: {e}"
    return None


def test_no_operation_answers_a_server_error_or_off_its_schema(collector, api_schema):
    """Every operation, positive and negative requests, the checks in CHECKS. Not through schemathesis' pytest
    plugin (`schemathesis.pytest.from_fixture`): 4.32 reads `request.node._nodeid`, which pytest 9 no longer
    has; the same generation (`APIOperation.as_strategy`) and checks (`Case.call_and_validate`) are used here."""
    headers = token_headers(collector)
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 19 and any(op.path == SYNC for op in operations), [op.label for op in operations]
    failures = [f for op in operations for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
                if (f := fuzz(op, mode, headers, collector.url)) is not None]
    assert not failures, "\n\n".join(failures)


def test_every_api_operation_but_sync_needs_the_token(collector, api_schema):
    """Without `Authorization: Bearer <token>` (or with a wrong one), each /api/v1 operation but sync is 401."""
    h = token_headers(collector)
    assert h, "the collector keeps no API token (api-token in its data directory)"
    raw = api_schema.raw_schema
    checked = []
    for path, operations in raw["paths"].items():
        if not path.startswith("/api/v1/") or path == SYNC:
            continue
        url = collector.url + path.replace("{board}", "1").replace("{unit}", "T01").replace("{round_no}", "1") \
                                  .replace("{fmt}", "pbn").replace("{seq}", "1")
        assert "{" not in url, path
        for method in operations:
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            for headers in ({}, {"Authorization": "Bearer " + "0" * 64}, {"Authorization": "Basic dTpw"}):
                r = httpx.request(method.upper(), url, json={}, headers=headers, timeout=10)
                assert r.status_code == 401, (method, path, headers, r.status_code, r.text)
                assert isinstance(r.json().get("error"), str) and r.json()["error"]
            checked.append((method, path))
            if method == "get":  # and the token opens it (a read: nothing changes)
                r = httpx.get(url, headers=h, timeout=10)
                assert r.status_code == 200, (path, r.status_code, r.text)
    assert len(checked) >= 15, checked


def test_regressions_found_while_fuzzing(collector):
    """Numbers beyond what SQLite or a date can hold: each was a 500 (the last one on every later read)."""
    h, url, huge = token_headers(collector), collector.url, 2**70
    r = httpx.get(f"{url}/api/v1/boards/{huge}", headers=h, timeout=10)
    assert r.status_code == 404 and r.json()["error"], r.text
    r = httpx.get(f"{url}/api/v1/alerts", params={"board": huge}, headers=h, timeout=10)
    assert r.status_code == 200 and r.json() == {"alerts": []}, r.text
    before = httpx.get(f"{url}/api/v1/publish", headers=h, timeout=10).json()
    for minutes in (huge, 10**10, -1):
        r = httpx.post(f"{url}/api/v1/publish", json={"minutes": minutes}, headers=h, timeout=10)
        assert r.status_code == 400 and "minutes" in r.json()["error"], (minutes, r.text)
    r = httpx.get(f"{url}/api/v1/publish", headers=h, timeout=10)
    kept = ("published_at", "minutes", "ends_at", "publications")  # not "now" and "open": the clock runs
    assert r.status_code == 200 and {k: r.json()[k] for k in kept} == {k: before[k] for k in kept}, r.text
    still_readable(url, h)
