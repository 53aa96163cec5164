"""The result in force (docs/collector.md "The result in force"): one rule decides which result counts for a table
and board, and every reader follows it — the scorer's traveller, the unit's traveller, a round's completion.

The 3-table Mitchell, 2 boards a round, of test_collector_authority.py: in round 1 table 1 plays boards 1-2 (NS 1 v
EW 1), table 2 boards 3-4, table 3 boards 5-6. Board 1 in 1NT by N, nobody vulnerable (Law 77): 7 tricks +90,
8 tricks +120, 9 tricks +150.
"""
import json

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}


@pytest.fixture
def client(mitchell3):
    return mitchell3


def nt(seq, board, table, tricks=7):
    """Board `board` in 1NT by its dealer at `table` in round 1 (NS and EW pair `table`), as a unit reports it."""
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    score = {7: 90, 8: 120, 9: 150}[tricks] * (1 if d in "NS" else -1)
    return played(seq, board, inputs, "1NT", d, tricks, score, section="A", table=table, round=1, ns=table,
                  ew=table)


def unit_travellers(reply, board=1):
    """The rows of every `traveller` command for `board` in a sync's reply, oldest first."""
    return [c["rows"] for c in reply.json()["commands"] if c["type"] == "traveller" and c["board"] == board]


def test_a_units_traveller_follows_a_scorers_correction(client, data):
    reply = sync(client, nt(1, 1, 1, tricks=7))
    assert unit_travellers(reply)[-1] == [["1", "1", "1NTN", 90]]
    [seq] = [r["seq"] for r in query(data, "SELECT seq FROM results WHERE unit = 'T01'")]
    fixed = client.post(f"/api/v1/results/T01/{seq}/correct", json={"tricks": 8, "reason": "tricks miscounted"})
    assert fixed.status_code == 201, fixed.text
    # the unit's next sync brings the traveller as corrected: 8 tricks is +120, and the table once
    after = sync(client, [], cmd_ack=0)
    assert unit_travellers(after)[-1] == [["1", "1", "1NTN", 120]]
    assert [r["score_ns"] for r in client.get("/api/v1/travellers/1").json()["rows"]] == [120]


def test_a_table_that_reports_a_board_twice_is_listed_once(client):
    sync(client, nt(1, 1, 1, tricks=7))
    reply = sync(client, nt(1, 1, 1, tricks=7) + nt(5, 1, 1, tricks=9))  # the board played again at the table
    assert unit_travellers(reply)[-1] == [["1", "1", "1NTN", 150]]  # the later result, in force, once
    assert [r["score_ns"] for r in client.get("/api/v1/travellers/1").json()["rows"]] == [150]


def test_a_voided_result_leaves_the_units_traveller(client, data):
    sync(client, nt(1, 1, 1), unit="T01")
    # table 2's unit reports board 1 as played at table 1: held (board 1 is not table 2's), then voided
    sync(client, nt(1, 1, 1, tricks=9), unit="T02")
    [h] = client.get("/api/v1/held").json()["held"]
    assert h["unit"] == "T02"
    r = client.post(f"/api/v1/results/T02/{h['seq']}/resolve", json={"decision": "void", "reason": "wrong unit"})
    assert r.status_code == 201, r.text
    sent = [json.loads(c["body"])["rows"] for c in query(
        data, "SELECT body FROM commands WHERE type = 'traveller' ORDER BY unit, seq")]
    assert sent and all(rows == [["1", "1", "1NTN", 90]] for rows in sent), sent


def test_an_adjusted_score_for_a_tables_last_board_completes_its_round(client, data):
    sync(client, nt(1, 1, 1), unit="T01")  # table 1 plays board 1 and never board 2
    sync(client, nt(1, 3, 2) + nt(5, 4, 2), unit="T02")
    sync(client, nt(1, 5, 3) + nt(5, 6, 3), unit="T03")

    def rounds(unit):
        return [json.loads(r["body"])["round"] for r in
                query(data, "SELECT body FROM commands WHERE unit = ? AND type = 'assign' ORDER BY seq", unit)]
    assert rounds("T02") == [1]  # table 1 has still to play board 2
    r = client.post("/api/v1/adjustments", json={"section": "A", "table": 1, "board": 2, "ns": "A", "ew": "A",
                                            "reason": "not played: slow play, no fault (Law 12 C 2)"})
    assert r.status_code == 201, r.text
    assert rounds("T02") == [1, 2]


@pytest.mark.parametrize("mode", ["percent", "off"])
def test_the_unit_shows_the_boards_percentages_or_nothing_as_the_club_sets(data, mode):
    """Board 1 (dealer N, nobody vulnerable), 4S by N: 10 tricks +420 at table 1, 11 tricks +450 at table 3, 8
    tricks -100 at table 2 (Law 77). Law 78 A among the three: -100 beats none (0 of a top of 4), +420 beats one
    (2: 50 %), +450 beats two (4: 100 %)."""
    event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    event["evening"] = {"unit_results": mode}
    with ApiClient(create_app(data, event=event, tables=TABLES)) as client:
        for table, tricks in ((3, 11), (2, 8)):  # entered by the director from the paper travellers
            r = client.post("/api/v1/results", json={"table": table, "board": 1, "contract": "4S", "declarer": "N",
                                                     "tricks": tricks, "by": "TD"})
            assert r.status_code == 201, r.text
        reply = sync(client, played(1, 1, ["N:4S", "E:P", "S:P", "W:P"], "4S", "N", 10, 420, section="A", table=1,
                                    round=1, ns=1, ew=1))
        if mode == "off":
            assert unit_travellers(reply) == []
        else:
            # by table; the movement seats NS 2 v EW 3 at table 2 and NS 3 v EW 2 at table 3 for board 1
            assert unit_travellers(reply)[-1] == [["1", "1", "4SN", 420, 50], ["2", "3", "4SN", -100, 0],
                                                  ["3", "2", "4SN", 450, 100]]
