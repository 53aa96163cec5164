"""The director's JSON API: units, boards, alerts, and queueing commands (issue 4, part 1)."""
import pytest
from collector_kit import ApiClient, assign, hello, played, store_event, sync, write_keyring

from bidwire_host.server import create_app


@pytest.fixture
def client(tmp_path):
    write_keyring(tmp_path / "keyring.json")
    with ApiClient(create_app(tmp_path)) as c:
        yield c


def test_units_show_last_seen_boot_and_the_last_hello(client):
    sync(client, [hello(1, boot=4, backlog=12, battery=71)], boot=4)
    units = {u["unit"]: u for u in client.get("/api/v1/units").json()["units"]}
    assert set(units) == {"T01", "T02", "T03"}  # every provisioned unit, synced or not
    t01 = units["T01"]
    assert t01["boot"] == 4 and t01["last_seen"] and t01["events"] == 1
    assert t01["hello"] == {"firmware": "bidwire-unit 0.3", "hardware": "unix_sim", "boot": 4, "battery": 71,
                            "rssi": -61, "backlog": 12}
    assert units["T02"]["last_seen"] is None and units["T02"]["hello"] is None


def test_units_count_commands_not_yet_applied(client):
    for _ in range(3):
        client.post("/api/v1/units/T01/commands", json={"type": "message", "text": "hi"})
    sync(client, [], cmd_ack=1)
    [t01] = [u for u in client.get("/api/v1/units").json()["units"] if u["unit"] == "T01"]
    assert (t01["cmd_ack"], t01["commands_pending"]) == (1, 2)


def test_a_board_shows_every_table_and_its_result(client):
    assign(client, "T01", "A", 1, 1, [1])
    assign(client, "T02", "A", 2, 2, [1])
    sync(client, played(1, section="A", table=1, round=1, ns=1, ew=2), unit="T01")
    sync(client, played(1, section="A", table=2, round=2, ns=3, ew=4, tricks=9, score_ns=-50), unit="T02")
    b = client.get("/api/v1/boards/1").json()
    assert [(t["table"], t["contract"], t["declarer"], t["results"][0]["score_ns"]) for t in b["tables"]] == [
        (1, "4S", "N", 420), (2, "4S", "N", -50)]
    assert b["tables"][0]["inputs"][0] == "N:1S" and b["alerts"] == []
    assert client.get("/api/v1/boards/2").json()["tables"] == []
    assert client.get("/api/v1/boards/0").status_code == 404


def test_alerts_filter_by_unit_kind_and_board(client):
    sync(client, played(1, tricks=14), unit="T01")
    sync(client, played(1, score_ns=1), unit="T02")
    all_alerts = client.get("/api/v1/alerts").json()["alerts"]
    assert {a["kind"] for a in all_alerts} == {"impossible_tricks", "score_mismatch"}
    assert [a["unit"] for a in client.get("/api/v1/alerts", params={"kind": "score_mismatch"}).json()["alerts"]] \
        == ["T02"]
    assert client.get("/api/v1/alerts", params={"unit": "T01", "board": 2}).json()["alerts"] == []
    assert isinstance(all_alerts[0]["data"], dict)


def test_an_assign_command_is_queued_with_its_seq(client):
    command = {"type": "assign", "section": "A", "table": 3, "round": 1, "boards": [5, 6], "ns": 3, "ew": 3,
               "move": "NS stay, EW to table 2"}
    r = client.post("/api/v1/units/T01/commands", json=command)
    assert r.status_code == 201
    assert r.json()["command"] == {"seq": 1, "event": store_event(client), **command}  # the store's event
    assert client.get("/api/v1/units/T01/commands").json()["commands"][0]["applied"] is False


def test_a_time_command_without_a_time_gets_the_host_clock(client):
    r = client.post("/api/v1/units/T01/commands", json={"type": "time"})
    assert r.json()["command"]["now"] > 1_600_000_000


@pytest.mark.parametrize("command, words", [
    ({"type": "teleport"}, "type"),
    ({"type": "assign", "section": "A", "table": 1, "round": 1, "boards": []}, "boards"),
    ({"type": "assign", "section": "A", "table": 0, "round": 1, "boards": [1]}, "table"),
    ({"type": "ruling", "board": 1, "ruling": "shoot"}, "ruling"),
    ({"type": "message", "text": "x" * 49}, "text"),
    ({"type": "config", "mode": "strict"}, "mode"),
    ({"type": "message", "text": "hi", "colour": "red"}, "colour"),
])
def test_a_command_the_unit_could_not_apply_is_refused(client, command, words):
    r = client.post("/api/v1/units/T01/commands", json=command)
    assert r.status_code == 422 and words in r.json()["error"], r.text
    assert client.get("/api/v1/units/T01/commands").json()["commands"] == []


def test_a_command_for_an_unknown_unit_is_refused(client):
    r = client.post("/api/v1/units/T99/commands", json={"type": "message", "text": "hi"})
    assert r.status_code == 404 and "T99" in r.json()["error"]
