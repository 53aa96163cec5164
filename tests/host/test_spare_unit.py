"""A spare unit takes a table (issue 36; docs/deploy.md "A spare unit"): `POST /api/v1/units/{unit}/table` gives a
table of the movement to any provisioned unit. The spare starts at the table's current round with only the boards
the table has still to play; the unit it replaces is retired from the table: what it sends for it later is stored
and held for the director with the reason, and nothing it sent before is lost.

The 3-table Mitchell, 2 boards a round, of test_collector_authority.py: in round 1 table 2 plays boards 3-4 (NS 2 v
EW 2). Units T01 and T02 sit at tables 1 and 2; T03 is the spare.
"""
import json

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2}


@pytest.fixture
def client(data):
    event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    with ApiClient(create_app(data, event=event, tables=TABLES)) as c:
        yield c


def board3(seq, tricks=10):
    """Board 3 (dealer S, EW vulnerable) 4S by S at table 2: 10 tricks +420, 11 tricks +450 (Law 77)."""
    return played(seq, 3, ["S:4S", "W:P", "N:P", "E:P"], "4S", "S", tricks, {10: 420, 11: 450}[tricks],
                  section="A", table=2, round=1, ns=2, ew=2)


def board4(seq):
    """Board 4 (dealer W, both vulnerable) 3NT by E making 9 at table 2: -600 for NS (Law 77)."""
    return played(seq, 4, ["W:P", "N:P", "E:3N", "S:P", "W:P", "N:P"], "3NT", "E", 9, -600, section="A",
                  table=2, round=1, ns=2, ew=2)


def commands_of(data, unit, kind):
    return [json.loads(r["body"]) for r in
            query(data, "SELECT body FROM commands WHERE unit = ? AND type = ? ORDER BY seq", unit, kind)]


def test_a_spare_takes_a_dead_units_table_at_its_next_unplayed_board(client, data):
    sync(client, board3(1), unit="T02")  # T02 plays board 3, then its battery dies
    r = client.post("/api/v1/units/T03/table", json={"section": "A", "table": 2, "reason": "T02's battery died"})
    assert r.status_code == 201, r.text
    [assign] = commands_of(data, "T03", "assign")
    assert (assign["section"], assign["table"], assign["round"], assign["boards"]) == ("A", 2, 1, [4])
    assert (assign["ns"], assign["ew"]) == (2, 2) or (str(assign["ns"]), str(assign["ew"])) == ("2", "2")
    assert any("T03" in m["text"] for m in commands_of(data, "T02", "message"))  # the old unit is told
    # the spare plays board 4: scored for table 2
    assert sync(client, board4(1), unit="T03").status_code == 200
    assert [(x["table"], x["score_ns"]) for x in client.get("/api/v1/travellers/4").json()["rows"]] == [(2, -600)]
    assert client.get("/api/v1/held").json()["held"] == []
    # the old unit comes back and sends board 3 again with another result: stored, held with the reason
    assert sync(client, board3(1) + board3(5, tricks=11), unit="T02").status_code == 200
    [h] = client.get("/api/v1/held").json()["held"]
    assert h["unit"] == "T02" and any("to unit T03, not to unit T02" in why for why in h["held"]), h
    assert [x["score_ns"] for x in client.get("/api/v1/travellers/3").json()["rows"]] == [420]  # what it sent first
    audit = [a for a in client.get("/api/v1/adjustments").json()["actions"]]
    assert audit == []
    kinds = [r["kind"] for r in query(data, "SELECT kind FROM director_actions")]
    assert kinds == ["table"]


def test_the_spare_gets_the_next_round_of_its_table(client, data):
    sync(client, board3(1), unit="T02")
    assert client.post("/api/v1/units/T03/table", json={"table": 2}).status_code == 201
    sync(client, board4(1), unit="T03")
    sync(client, played(1, 1, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", 7, 90, section="A", table=1, round=1,
                        ns=1, ew=1) +
         played(5, 2, ["E:1N", "S:P", "W:P", "N:P"], "1NT", "E", 7, -90, section="A", table=1, round=1, ns=1,
                ew=1), unit="T01")
    # table 3 has no unit: the director enters its two boards
    for board, contract, declarer, tricks in ((5, "1NT", "N", 7), (6, "1NT", "E", 7)):
        r = client.post("/api/v1/results", json={"table": 3, "board": board, "contract": contract,
                                                 "declarer": declarer, "tricks": tricks, "by": "TD"})
        assert r.status_code == 201, r.text
    rounds = [(a["table"], a["round"]) for a in commands_of(data, "T03", "assign")]
    assert rounds == [(2, 1), (2, 2)]
    assert [a["round"] for a in commands_of(data, "T02", "assign")] == [1]  # retired: no round 2


@pytest.mark.parametrize("unit, body, status, words", [
    ("T99", {"table": 2}, 404, "not provisioned"),
    ("T03", {"table": 9}, 404, "tables 1-3"),
    ("T03", {"section": "Z", "table": 2}, 404, "section"),
    ("T02", {"table": 2}, 409, "already"),
    ("T03", {"table": 0}, 422, "table"),
    ("T0 3", {"table": 2}, 422, "unit"),
])
def test_a_table_given_wrongly_is_refused_with_a_reason_and_changes_nothing(client, data, unit, body, status, words):
    before = query(data, "SELECT tables FROM setup")
    r = client.post(f"/api/v1/units/{unit}/table", json=body)
    assert r.status_code == status, r.text
    assert words in r.text
    assert query(data, "SELECT tables FROM setup") == before
    assert query(data, "SELECT count(*) AS n FROM director_actions")[0]["n"] == 0


def test_a_unit_that_has_a_table_is_not_taken_from_it_silently(client, data):
    before = query(data, "SELECT tables FROM setup")
    r = client.post("/api/v1/units/T01/table", json={"table": 2})
    assert r.status_code == 409 and "T01 has section A table 1" in r.text, r.text
    assert query(data, "SELECT tables FROM setup") == before
