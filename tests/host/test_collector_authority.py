"""The collector is the session's authority (docs/collector.md, "Held results", "Published results", "Alerts"):
a unit's result is a claim checked against the event; what differs is held for the director, counts for nothing
(ranking, travellers, the table's round) until he decides; after publication nothing changes by itself;
decisions are idempotent; a ruling names the irregularity it answers and is refused once that is settled.

The 3-table Mitchell, 2 boards a round (bidwire's own movement, worked out in docs/movements.md): round 1 has
table 1 play boards 1-2 (NS 1 v EW 1), table 2 boards 3-4 (NS 2 v EW 2), table 3 boards 5-6 (NS 3 v EW 3).
Board 1 in 1NT by N (dealer N, nobody vulnerable): 7 tricks +90, 8 tricks +120 (Law 77: 40 a trick in notrump,
30 after the first, plus the 50 part-score bonus).
"""
import json
from datetime import datetime, timedelta, timezone

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}
ONE_NT = ["N:1N", "E:P", "S:P", "W:P"]


def mitchell():
    return ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))


@pytest.fixture
def client(data):
    with ApiClient(create_app(data, event=mitchell(), tables=TABLES)) as c:
        yield c


def nt1(seq, tricks=7, score=None, board=1, **where):
    """Board `board` in 1NT by its dealer (board 1: N), as a unit reports it."""
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    score = score if score is not None else {7: 90, 8: 120, 9: 150}[tricks]
    return played(seq, board, inputs, "1NT", d, tricks, score, **where)


def traveller(client, board=1):
    return client.get(f"/api/v1/travellers/{board}").json()["rows"]


def ranking(client):
    return client.get("/api/v1/ranking").json()["ranking"]


def held(client):
    return client.get("/api/v1/held").json()["held"]


def assign_rounds(data, unit):
    return [json.loads(r["body"])["round"] for r in
            query(data, "SELECT body FROM commands WHERE unit = ? AND type = 'assign' ORDER BY seq", unit)]


def exports_fine(client):
    """Every export answers without ?section= (held results neither count nor add a made-up section)."""
    if not traveller(client, 3):  # something scored, so that there is a session to export: table 2's board 3
        sync(client, _nt(100, 3, 2, 2), unit="T02")
    for fmt in ("pbn", "usebio", "csv"):
        r = client.get(f"/api/v1/export/{fmt}")
        assert r.status_code == 200, (fmt, r.text)


# ---- the event decides who played what --------------------------------------------------------------------------
def test_a_result_naming_other_pairs_is_held_and_scores_nothing_until_the_director_decides(client, data):
    # table 1 round 1 is NS 1 v EW 1; the unit names NS 3 / EW 2
    r = sync(client, nt1(1, section="A", table=1, round=1, ns=3, ew=2), unit="T01")
    assert r.status_code == 200  # stored: nothing a unit sends is lost
    [h] = held(client)
    assert any("the unit names NS 3 / EW 2; the movement seats NS 1 / EW 1" in why for why in h["held"]), h
    assert h["expected"]["ns"] == "1" and h["decision"] is None
    assert traveller(client) == [] and ranking(client) == []
    exports_fine(client)


@pytest.mark.parametrize("decision", ["accept", "void"])
def test_the_director_accepts_a_held_result_as_played_or_voids_it(client, data, decision):
    sync(client, nt1(1, section="A", table=1, round=1, ns=3, ew=2), unit="T01")
    [h] = held(client)
    body = {"decision": decision, "ns": 1, "ew": 1, "reason": "the pairs entered the wrong numbers", "by": "TD"}
    r = client.post(f"/api/v1/results/T01/{h['seq']}/resolve", json=body)
    assert r.status_code == 201, r.text
    rows = traveller(client)
    if decision == "accept":  # credited to the pairs the director names, as his recorded decision
        assert [(x["table"], x["ns"], x["ew"], x["score_ns"]) for x in rows] == [(1, "1", "1", 90)]
        assert {(x["direction"], x["pair"]) for x in ranking(client)} == {("NS", "1"), ("EW", "1")}
    else:
        assert rows == [] and ranking(client) == []
    [action] = query(data, "SELECT kind, by_whom FROM director_actions")
    assert action == {"kind": "resolve", "by_whom": "TD"}
    exports_fine(client)


def test_a_result_that_is_not_held_cannot_be_resolved(client, data):
    sync(client, nt1(1, section="A", table=1, round=1, ns=1, ew=1), unit="T01")
    [res] = query(data, "SELECT seq, held FROM results")
    assert res["held"] is None
    r = client.post(f"/api/v1/results/T01/{res['seq']}/resolve", json={"decision": "void"})
    assert r.status_code == 409 and "not held" in r.json()["error"]
    assert query(data, "SELECT * FROM director_actions") == []


def test_a_result_for_a_round_not_reached_is_held_and_does_not_advance_the_round(client, data):
    # table 3's unit reports board 1 of round 2 (NS 3 v EW 2) while round 1 is under way
    sync(client, nt1(1, section="A", table=3, round=2, ns=3, ew=2), unit="T03")
    [h] = held(client)
    assert any("round 2 was never sent to unit T03" in why for why in h["held"]), h
    assert traveller(client) == []
    assert assign_rounds(data, "T01") == [1]


def test_results_for_boards_or_sections_outside_the_event_are_held_and_exports_still_work(client, data):
    # (a board outside the unit's own assignment is refused outright, 409: test_collector_rejections.py; these are
    # claims under assignments the collector never sent the unit)
    sync(client, _nt(1, 7, 1, 1), unit="T02")  # the event has boards 1-6
    sync(client, nt1(1, section="Z", table=1, round=1, ns=1, ew=1), unit="T03")
    reasons = {h["unit"]: " ".join(h["held"]) for h in held(client)}
    assert "board 7 is not in the event" in reasons["T02"], reasons
    assert "section 'Z' is not in the event" in reasons["T03"], reasons
    assert ranking(client) == [] and traveller(client, 7) == [] and traveller(client, 1) == []
    exports_fine(client)
    assert {r["section"] for r in ranking(client)} == {"A"}  # no made-up section to choose between


def test_a_held_result_does_not_count_towards_its_tables_round_until_accepted(client, data):
    for unit, table, (first, last) in (("T01", 1, (1, 2)), ("T02", 2, (3, 4))):
        sync(client, _nt(1, first, table, table) + _nt(5, last, table, table), unit=unit)
    # table 3 names the wrong EW pair on its last board: held, so round 1 is not complete
    sync(client, _nt(1, 5, 3, 3) + _nt(5, 6, 3, 3, ew=1), unit="T03")
    assert assign_rounds(data, "T01") == [1]
    [h] = held(client)
    r = client.post(f"/api/v1/results/T03/{h['seq']}/resolve", json={"decision": "accept", "ew": 3,
                                                                      "reason": "EW 3 sat there"})
    assert r.status_code == 201, r.text
    assert assign_rounds(data, "T01") == [1, 2]  # accepted: the round is complete, round 2 goes out


def _nt(seq, board, table, pair, ew=None):
    """Board `board` in 1NT by its dealer, 7 tricks, at `table` in round 1 (NS pair v EW pair, or EW `ew`)."""
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    score = 90 if d in "NS" else -90  # 1NT making 7 is 90 whatever the vulnerability (no game bonus)
    return played(seq, board, inputs, "1NT", d, 7, score, section="A", table=table, round=1, ns=pair,
                  ew=pair if ew is None else ew)


# ---- published results are frozen ---------------------------------------------------------------------------
def test_after_publication_a_board_played_again_is_held_and_published_results_stay(data):
    clock = {"now": datetime.now(timezone.utc)}  # the host clock: the units' syncs are stamped with it too
    with ApiClient(create_app(data, event=mitchell(), tables=TABLES)) as client:
        client.app.state.service.clock = lambda: clock["now"]
        sync(client, nt1(1, 7, section="A", table=1, round=1, ns=1, ew=1), unit="T01")
        before = (traveller(client), ranking(client))
        assert before[0][0]["score_ns"] == 90
        assert client.post("/api/v1/publish", json={"minutes": 30, "override": True, "by": "TD"}).status_code == 201
        # the unit plays board 1 again (a replay at the table) and reports 8 tricks
        r = sync(client, nt1(5, 8, section="A", table=1, round=1, ns=1, ew=1), unit="T01")
        assert r.status_code == 200
        assert (traveller(client), ranking(client)) == before  # nothing changed by itself
        [h] = held(client)
        assert any("published" in why for why in h["held"]), h
        # after the correction period, only with the director's override (Law 79 C)
        clock["now"] = datetime.now(timezone.utc) + timedelta(hours=2)
        late = client.post(f"/api/v1/results/T01/{h['seq']}/resolve", json={"decision": "accept"})
        assert late.status_code == 409 and "correction period ended" in late.json()["error"]
        assert (traveller(client), ranking(client)) == before
        ok = client.post(f"/api/v1/results/T01/{h['seq']}/resolve",
                         json={"decision": "accept", "override": True, "by": "TD Smith", "reason": "replayed"})
        assert ok.status_code == 201, ok.text
        assert traveller(client)[0]["score_ns"] == 120
        [row] = query(data, "SELECT post_period FROM director_actions WHERE kind = 'resolve'")
        assert row["post_period"] == 1


# ---- idempotent decisions ---------------------------------------------------------------------------------------
def test_a_retried_decision_is_recorded_once(client, data):
    sync(client, nt1(1, section="A", table=1, round=1, ns=1, ew=1), unit="T01")
    body = {"table": 1, "board": 1, "ns": "A+", "ew": "A-", "reason": "fouled board"}
    first = client.post("/api/v1/adjustments", json=body, headers={"Idempotency-Key": "k-1"})
    again = client.post("/api/v1/adjustments", json=body, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert len(query(data, "SELECT * FROM director_actions")) == 1
    other = client.post("/api/v1/adjustments", json=dict(body, ns="A"), headers={"Idempotency-Key": "k-1"})
    assert other.status_code == 409 and "another request" in other.json()["error"]
    assert len(query(data, "SELECT * FROM director_actions")) == 1
    client.post("/api/v1/adjustments", json=body, headers={"Idempotency-Key": "k-2"})  # a new key: a new decision
    assert len(query(data, "SELECT * FROM director_actions")) == 2


# ---- alerts: lifecycle, rulings naming their irregularity -------------------------------------------------------
def _irregular(seq, at=1, board=1):
    """E's 1S out of rotation (dealer N) at input `at`: pending, S may accept."""
    return [{"seq": seq, "type": "call", "board": board, "input": "E:1S", "seat": "E", "verdict": "out_of_rotation",
             "law": 31, "alert": False, "t": 1},
            {"seq": seq + 1, "type": "irregularity", "board": board, "kind": "out_of_rotation", "law": 31, "at": at,
             "offender": "E", "call": "1S", "entitled": "S", "options": ["reject"], "t": 1}]


def _queue(client, state="open"):
    conn = client.app.state.service.store.reader()
    from bidwire_host.dashboard import queries
    items, _ = queries.alerts(conn, queries.cmd_acks(conn), state)
    return {(i["source"], i["seq"]): i for i in items}


def test_an_irregularity_settled_at_the_table_closes_its_alert(client):
    start = {"seq": 1, "type": "board_start", "board": 1, "section": "A", "table": 1, "round": 1, "ns": 1, "ew": 1,
             "dealer": "N", "vul": "None", "mode": "record", "t": 1}
    sync(client, [start] + _irregular(2), unit="T01")
    assert ("irregularity", 3) in _queue(client)
    settled = {"seq": 4, "type": "settled", "board": 1, "at": 1, "how": "accepted", "law": 31, "seat": "S", "t": 2}
    sync(client, [settled], unit="T01")
    assert ("irregularity", 3) not in _queue(client)
    closed = _queue(client, "closed")[("irregularity", 3)]
    assert "accepted at the table" in closed["outcome"]


def test_a_ruling_for_a_settled_irregularity_is_refused_and_an_open_one_is_sent_with_its_identity(client, data):
    start = {"seq": 1, "type": "board_start", "board": 1, "section": "A", "table": 1, "round": 1, "ns": 1, "ew": 1,
             "dealer": "N", "vul": "None", "mode": "record", "t": 1}
    sync(client, [start] + _irregular(2, at=1)
         + [{"seq": 4, "type": "settled", "board": 1, "at": 1, "how": "accepted", "law": 31, "seat": "S", "t": 2}]
         + _irregular(5, at=3), unit="T01")
    old = client.post("/api/v1/rulings", json={"unit": "T01", "seq": 3, "ruling": "reject"})
    assert old.status_code == 409 and "no longer open" in old.json()["error"]
    new = client.post("/api/v1/rulings", json={"unit": "T01", "seq": 6, "ruling": "reject"})
    assert new.status_code == 201, new.text
    assert (new.json()["command"]["at"], new.json()["command"]["board"]) == (3, 1)
    twice = client.post("/api/v1/rulings", json={"unit": "T01", "seq": 6, "ruling": "reject"})
    assert twice.status_code == 409 and "on its way" in twice.json()["error"]
    assert len(query(data, "SELECT * FROM commands WHERE type = 'ruling'")) == 1


def test_a_director_call_ends_at_the_table_and_a_board_redone_supersedes(client):
    start = {"seq": 1, "type": "board_start", "board": 1, "section": "A", "table": 1, "round": 1, "ns": 1, "ew": 1,
             "dealer": "N", "vul": "None", "mode": "record", "t": 1}
    sync(client, [start, {"seq": 2, "type": "td_call", "board": 1, "seat": "S", "t": 1}] + _irregular(3), unit="T01")
    sync(client, [{"seq": 5, "type": "td_end", "board": 1, "seat": "S", "t": 2}], unit="T01")
    q = _queue(client)
    assert ("td_call", 2) not in q and ("irregularity", 4) in q
    sync(client, [dict(start, seq=6)], unit="T01")  # the board started again (redone)
    closed = _queue(client, "closed")
    assert "director ended the call" in closed[("td_call", 2)]["outcome"]
    assert "superseded" in closed[("irregularity", 4)]["outcome"]
    assert ("irregularity", 4) not in _queue(client)


def test_the_director_closes_a_validator_alert_once(client):
    sync(client, nt1(1, section="A", table=1, round=1, ns=3, ew=2), unit="T01")
    movement = [i for i in _queue(client).values() if i["kind"] == "movement"]
    assert movement
    key = movement[0]["key"]
    assert client.post("/api/v1/alerts/close", json={"alert": key, "note": "told the pairs"}).status_code == 201
    assert key not in {i["key"] for i in _queue(client).values()}
    again = client.post("/api/v1/alerts/close", json={"alert": key})
    assert again.status_code == 409


# ---- corrections are corrections ----------------------------------------------------------------------------------
def test_a_correction_changes_the_result_not_into_an_assigned_score(client, data):
    sync(client, nt1(1, 7, section="A", table=1, round=1, ns=1, ew=1), unit="T01")
    [res] = query(data, "SELECT seq FROM results")
    r = client.post(f"/api/v1/results/T01/{res['seq']}/correct",
                    json={"tricks": 9, "reason": "one trick miscounted", "by": "scorer"})
    assert r.status_code == 201, r.text
    [row] = traveller(client)
    # 1NT by N with 9 tricks: 40 + 30 + 30 + 50 = +150 (Law 77); contract and declarer kept
    assert (row["contract"], row["declarer"], row["tricks"], row["score_ns"]) == ("1NT", "N", 9, 150)
    assert row["adjusted"] is None and row["corrected"]["reason"] == "one trick miscounted"
    bad = client.post(f"/api/v1/results/T01/{res['seq']}/correct", json={"contract": "8S", "reason": "x"})
    assert bad.status_code in (400, 422)
    assert traveller(client)[0]["score_ns"] == 150
