"""POST /api/v1/sync (docs/architecture.md §4): stored once, acknowledged after commit, commands by cmd_ack."""
import json

import pytest
from collector_kit import ApiClient, body, counts, hello, played, post, query, sign, store_event, sync

from bidwire_host.server import create_app


@pytest.fixture
def client(data):
    with ApiClient(create_app(data)) as c:
        yield c


def seqs(data, unit="T01"):
    return [r["seq"] for r in query(data, "SELECT seq FROM events WHERE unit = ? ORDER BY seq", unit)]


def test_a_batch_is_stored_and_acknowledged_with_its_highest_seq(client, data):
    r = sync(client, [hello(1), *played(2)])
    assert r.status_code == 200
    assert r.json() == {"ack": 5, "commands": []}
    assert seqs(data) == [1, 2, 3, 4, 5]
    stored = query(data, "SELECT type, board, boot, body FROM events WHERE seq = 5")[0]
    assert stored["type"] == "result" and stored["board"] == 1 and stored["boot"] == 1
    assert json.loads(stored["body"])["tricks"] == 10  # the event as the unit sent it


def test_an_empty_batch_is_a_heartbeat_answered_with_the_ack(client, data):
    assert sync(client, []).json() == {"ack": 0, "commands": []}
    sync(client, [hello(1)])
    assert sync(client, []).json() == {"ack": 1, "commands": []}


def test_a_retry_of_the_same_body_is_acknowledged_and_not_stored_twice(client, data):
    raw = body([hello(1), *played(2)])
    first, again = post(client, raw), post(client, raw)
    assert first.json() == again.json() == {"ack": 5, "commands": []}
    assert seqs(data) == [1, 2, 3, 4, 5]


def test_a_partly_overlapping_batch_stores_only_the_new_seqs(client, data):
    events = [hello(1), *played(2), *played(6, board=2, tricks=9, score_ns=-100)]
    sync(client, events[:3])
    before = counts(data)
    r = sync(client, events[1:])  # seqs 2..9: 2 and 3 are stored already
    assert r.json()["ack"] == 9
    assert seqs(data) == list(range(1, 10))
    after = counts(data)
    assert after["events"] == before["events"] + 6
    # the two that came again are counted as duplicates suppressed, per unit
    assert query(data, "SELECT duplicates FROM unit_sync WHERE unit = 'T01'") == [{"duplicates": 2}]
    assert sync(client, events[:4]).json()["ack"] == 9
    assert query(data, "SELECT duplicates FROM unit_sync WHERE unit = 'T01'") == [{"duplicates": 6}]
    # the duplicated seqs kept their first version: events are immutable
    assert query(data, "SELECT count(*) AS n FROM boards")[0]["n"] == 2


def test_a_batch_entirely_below_the_highest_seq_changes_nothing(client, data):
    sync(client, [hello(1), *played(2)])
    before = counts(data)
    assert sync(client, played(2)[:2]).json()["ack"] == 5
    assert counts(data) == before


def test_a_seq_gap_is_stored_and_the_ack_is_the_highest(client, data):
    # a unit replaced under the same id renumbers after the collector's ack (unit/store.py Store.ack)
    sync(client, [hello(1)])
    assert sync(client, [hello(7, boot=1)]).json()["ack"] == 7
    assert seqs(data) == [1, 7]


def test_commands_round_trip_by_cmd_ack(client, data):
    for text in ("one", "two", "three"):
        r = client.post("/api/v1/units/T01/commands", json={"type": "message", "text": text})
        assert r.status_code == 201, r.text
    assert r.json()["command"] == {"seq": 3, "event": store_event(client), "type": "message", "text": "three"}
    got = sync(client, [], cmd_ack=0).json()["commands"]
    assert [(c["seq"], c["text"]) for c in got] == [(1, "one"), (2, "two"), (3, "three")]
    assert [c["seq"] for c in sync(client, [], cmd_ack=2).json()["commands"]] == [3]
    assert sync(client, [], cmd_ack=3).json()["commands"] == []
    listing = client.get("/api/v1/units/T01/commands").json()["commands"]
    assert [c["applied"] for c in listing] == [True, True, True]
    # a stale copy (nothing new, an older cmd_ack: a replay, a duplicate delayed on the way) is answered with
    # the commands after its own cmd_ack, but the recorded state is not turned back
    assert len(sync(client, [], cmd_ack=0).json()["commands"]) == 3
    assert query(data, "SELECT cmd_ack FROM unit_sync WHERE unit = 'T01'") == [{"cmd_ack": 3}]
    assert [c["applied"] for c in client.get("/api/v1/units/T01/commands").json()["commands"]] == [True] * 3
    # a unit with a fresh flash (cmd_ack 0) reports it with its new hello: taken, and it gets everything again
    assert len(sync(client, [hello(1)], cmd_ack=0).json()["commands"]) == 3
    assert query(data, "SELECT cmd_ack FROM unit_sync WHERE unit = 'T01'") == [{"cmd_ack": 0}]
    assert [c["applied"] for c in client.get("/api/v1/units/T01/commands").json()["commands"]] == [False] * 3


def test_commands_are_per_unit(client, data):
    client.post("/api/v1/units/T01/commands", json={"type": "config", "mode": "enforce"})
    client.post("/api/v1/units/T02/commands", json={"type": "time", "now": 1700000000})
    event = store_event(client)
    assert sync(client, [], unit="T01").json()["commands"] == [{"seq": 1, "event": event, "type": "config",
                                                                "mode": "enforce"}]
    assert sync(client, [], unit="T02").json()["commands"] == [{"seq": 1, "event": event, "type": "time",
                                                                "now": 1700000000}]


def test_a_reply_carries_no_more_commands_than_the_unit_can_read(client, data):
    rows = [["1", "2", "4S N", "+420", "x" * 24]] * 40
    for _ in range(10):
        assert client.post("/api/v1/units/T01/commands",
                           json={"type": "traveller", "board": 1, "rows": rows}).status_code == 201
    r = sync(client, [])
    assert len(r.content) < 16384  # firmware/bidwire/unit/http.py MAX_BODY
    got = r.json()["commands"]
    assert 1 <= len(got) < 10 and [c["seq"] for c in got] == list(range(1, len(got) + 1))


def test_boot_and_cmd_ack_are_kept_per_unit(client, data):
    sync(client, [hello(1, boot=3)], boot=3, cmd_ack=0)
    assert query(data, "SELECT unit, boot, cmd_ack FROM unit_sync") == [{"unit": "T01", "boot": 3, "cmd_ack": 0}]


def test_health_and_openapi(client):
    assert client.get("/healthz").json()["status"] == "ok"
    schema = client.get("/openapi.json").json()
    assert "/api/v1/sync" in schema["paths"]
    assert set(schema["paths"]["/api/v1/sync"]["post"]["responses"]) >= {"200", "400", "401", "403", "409", "413"}
    assert "SyncBody" in schema["components"]["schemas"]
    ref = schema["components"]["schemas"]["SyncBody"]["properties"]["events"]["items"]
    assert "oneOf" in ref or "anyOf" in ref or "discriminator" in ref


def test_a_unit_provisioned_while_the_collector_runs_can_sync_at_once(client, data):
    assert sync(client, [], unit="T03").status_code == 200
    ring = json.loads((data / "keyring.json").read_text())
    ring["units"]["T09"] = {"secret": "77" * 32}
    (data / "keyring.json").write_text(json.dumps(ring, indent=1))
    raw = body([], unit="T09")
    assert post(client, raw, signature=sign(raw, secret="77" * 32)).status_code == 200
