"""Who is at the table (issue 36; docs/director.md "A pair at the wrong table"): with the event's
evening.confirm_pairs each round's assign asks the sides to confirm, with the pairs' names; a side that is not the
pair the movement expects calls the director ("table 1 NS: pair 1 expected, pair 3 confirmed"); the director records
who sat (`POST /api/v1/seated`, Law 15), and the ranking, the pages and the exports follow who played.

The 3-table Mitchell, 2 boards a round: in round 1 table 1 plays boards 1-2 with NS 1 v EW 1, table 3 boards 5-6
with NS 3 v EW 3. Board 1 (dealer N, nobody vulnerable) 1NT by N making 7: +90 (Law 77).
"""
import json

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}
NAMES = {("NS", 1): ("Ann Smith", "Bob Jones"), ("EW", 1): ("Cy Brown", "Di Lee")}


@pytest.fixture
def client(data):
    e = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    for p in e["sessions"][0]["sections"][0]["pairs"]:
        if (p["line"], p["number"]) in NAMES:
            p["players"] = [{"name": n} for n in NAMES[p["line"], p["number"]]]
    e["evening"] = {"confirm_pairs": True}
    with ApiClient(create_app(data, event=e, tables=TABLES)) as c:
        yield c


def seated(seq, side, pair, expected, confirmed):
    return {"seq": seq, "type": "seated", "board": 1, "side": side, "seat": "N" if side == "NS" else "E",
            "pair": pair, "expected": expected, "confirmed": confirmed, "round": 1, "t": 1000}


def test_the_round_asks_each_side_to_confirm_with_its_names(client, data):
    [a] = [json.loads(r["body"]) for r in query(data, "SELECT body FROM commands WHERE unit = 'T01' AND "
                                                      "type = 'assign'")]
    assert a["confirm"] is True and a["names"] == ["Smith/Jones", "Brown/Lee"]


def test_a_wrong_pair_calls_the_director_and_the_score_follows_who_sat(client, data):
    start = played(1, 1, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", 7, 90, section="A", table=1, round=1, ns=1,
                   ew=1)
    events = start[:1] + [seated(2, "NS", "3", 1, False), seated(3, "EW", 1, 1, True)]
    assert sync(client, events, unit="T01").status_code == 200
    alerts = [a for a in client.get("/api/v1/queue").json()["alerts"] if a["kind"] == "wrong_pair"]
    assert len(alerts) == 1 and "table 1 NS: pair 1 expected, pair 3 confirmed" in alerts[0]["detail"], alerts
    r = client.post("/api/v1/seated", json={"table": 1, "round": 1, "ns": 3, "reason": "NS 3 sat at table 1"})
    assert r.status_code == 201, r.text
    assert [a for a in client.get("/api/v1/queue").json()["alerts"] if a["kind"] == "wrong_pair"] == []
    rest = [dict(e, seq=e["seq"] + 3) for e in start[1:]]  # the unit still names the movement's pairs
    assert sync(client, rest, unit="T01").status_code == 200
    assert client.get("/api/v1/held").json()["held"] == []
    [row] = client.get("/api/v1/travellers/1").json()["rows"]
    assert (row["table"], row["ns"], row["ew"], row["score_ns"]) == (1, "3", "1", 90)
    ranked = {(r["direction"], str(r["pair"])) for r in client.get("/api/v1/ranking").json()["ranking"]}
    assert ("NS", "3") in ranked and ("NS", "1") not in ranked


@pytest.mark.parametrize("body, status, words", [
    ({"table": 1, "round": 9, "ns": 3}, 404, "plays no round 9"),
    ({"table": 1, "round": 1, "ns": 99}, 404, "ns"),
    ({"table": 0, "round": 1}, 422, "table"),
])
def test_a_wrong_seating_record_is_refused_and_changes_nothing(client, data, body, status, words):
    r = client.post("/api/v1/seated", json=body)
    assert r.status_code == status and words in r.text, r.text
    assert query(data, "SELECT count(*) AS n FROM director_actions")[0]["n"] == 0


def test_membership_numbers_go_to_the_unit_and_a_stranger_is_named_in_the_alert(data):
    e = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    numbers = {("NS", 1): ("111", "112"), ("EW", 1): ("121", "122"), ("NS", 3): ("311", "312")}
    for p in e["sessions"][0]["sections"][0]["pairs"]:
        if (p["line"], p["number"]) in numbers:
            p["players"] = [{"name": f"Player {n}", "id": n} for n in numbers[p["line"], p["number"]]]
    e["evening"] = {"confirm_pairs": True, "member_numbers": True}
    with ApiClient(create_app(data, event=e, tables=TABLES)) as client:
        [a] = [json.loads(r["body"]) for r in query(data, "SELECT body FROM commands WHERE unit = 'T01' AND "
                                                          "type = 'assign'")]
        assert a["ids"] == [["111", "112"], ["121", "122"]] and a["names"] == ["111/112", "121/122"]
        start = played(1, 1, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", 7, 90, section="A", table=1, round=1, ns=1,
                       ew=1)
        stranger = dict(seated(2, "NS", None, 1, False), member="311")  # NS 3's player sat down at table 1
        assert sync(client, start[:1] + [stranger], unit="T01").status_code == 200
        [alert] = [x for x in client.get("/api/v1/queue").json()["alerts"] if x["kind"] == "wrong_pair"]
        assert "table 1 NS: pair 1 expected, member 311 (Player 311, NS pair 3) confirmed" in alert["detail"]


def test_who_sat_counts_for_a_result_corrected_or_entered_before_it(client, data):
    """A correction of the tricks and the director's entry of board 2 were made before the director recorded that
    NS 3 sat at table 1 in round 1: both count for NS 3 all the same (their pairs were not what they changed)."""
    events = played(1, 1, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", 7, 90, section="A", table=1, round=1, ns=1,
                    ew=1)
    assert sync(client, events, unit="T01").status_code == 200
    [seq] = [r["seq"] for r in query(data, "SELECT seq FROM results WHERE unit = 'T01'")]
    assert client.post(f"/api/v1/results/T01/{seq}/correct", json={"tricks": 8, "reason": "miscounted"}) \
        .status_code == 201
    assert client.post("/api/v1/results", json={"table": 1, "board": 2, "contract": "Pass", "by": "TD"}) \
        .status_code == 201
    assert client.post("/api/v1/seated", json={"table": 1, "round": 1, "ns": 3}).status_code == 201
    for board in (1, 2):
        [row] = client.get(f"/api/v1/travellers/{board}").json()["rows"]
        assert (row["ns"], row["ew"]) == ("3", "1"), (board, row)
