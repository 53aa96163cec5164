"""Slow play (issue 36; docs/director.md "Slow play"): a board a table has not played is marked not played, with the
club's Law 12 C score, or as late play, at its own table or another; the round goes on, and nothing is dropped
without a record.

The 3-table Mitchell, 2 boards a round, of test_collector_authority.py: in round 1 table 1 plays boards 1-2 (NS 1 v
EW 1), table 2 boards 3-4 (NS 2 v EW 2), table 3 boards 5-6 (NS 3 v EW 3). Law 77 by hand: 1NT by the dealer making 7
is 90 to the dealer's side; board 4 (dealer W, both vulnerable) 3NT by W making 9 is 600 to EW.
"""
import json

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}


def event(**evening):
    e = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    if evening:
        e["evening"] = evening
    return e


@pytest.fixture
def client(data):
    with ApiClient(create_app(data, event=event(), tables=TABLES)) as c:
        yield c


def nt(seq, board, table):
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    return played(seq, board, [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]], "1NT", d, 7,
                  90 if d in "NS" else -90, section="A", table=table, round=1, ns=table, ew=table)


def assigns(data, unit):
    return [json.loads(r["body"]) for r in
            query(data, "SELECT body FROM commands WHERE unit = ? AND type = 'assign' ORDER BY seq", unit)]


def round_one_but_board_4(client):
    sync(client, nt(1, 1, 1) + nt(5, 2, 1), unit="T01")
    sync(client, nt(1, 3, 2), unit="T02")  # table 2 is slow: board 4 not played when the round is called
    sync(client, nt(1, 5, 3) + nt(5, 6, 3), unit="T03")


def test_a_board_a_table_did_not_play_holds_its_round_until_the_director_records_it(client, data):
    round_one_but_board_4(client)
    assert [a["round"] for a in assigns(data, "T01")] == [1]  # board 4 is neither played nor recorded
    r = client.post("/api/v1/adjustments", json={"table": 2, "board": 4, "not_played": True})
    assert r.status_code == 201, r.text
    assert [a["round"] for a in assigns(data, "T01")] == [1, 2]  # the round goes on
    [row] = client.get("/api/v1/travellers/4").json()["rows"]
    assert row["table"] == 2 and row["adjusted"] == "A/A" and row["pct_ns"] == 50  # average to both (Law 12 C)
    [action] = [a for a in client.get("/api/v1/adjustments").json()["actions"]]
    assert action["not_played"] is True and "not played" in action["reason"]


def test_the_clubs_own_not_played_score_from_the_event_file(data):
    with ApiClient(create_app(data, event=event(not_played=["A+", "A-"]), tables=TABLES)) as client:
        round_one_but_board_4(client)
        assert client.post("/api/v1/adjustments", json={"table": 2, "board": 4, "not_played": True}).status_code \
            == 201
        [row] = client.get("/api/v1/travellers/4").json()["rows"]
        assert row["adjusted"] == "A+/A-" and row["pct_ns"] == 60 and row["pct_ew"] == 40


def test_late_play_at_another_table_is_credited_to_the_table_it_belongs_to(client, data):
    round_one_but_board_4(client)
    r = client.post("/api/v1/late", json={"table": 2, "board": 4, "at_table": 3, "reason": "slow: play it at 3"})
    assert r.status_code == 201, r.text
    [late] = [a for a in assigns(data, "T03") if a.get("late")]
    assert (late["section"], late["table"], late["round"], late["boards"]) == ("A", 2, 1, [4])
    assert (str(late["ns"]), str(late["ew"])) == ("2", "2") and "Late play" in late["move"]
    assert [a["round"] for a in assigns(data, "T01")] == [1, 2]  # the round goes on meanwhile
    # T03 plays it with NS 2 and EW 2, as the late assign says: scored for table 2, not held
    board4 = played(9, 4, ["W:3N", "N:P", "E:P", "S:P"], "3NT", "W", 9, -600, section="A", table=2, round=1,
                    ns=2, ew=2)
    assert sync(client, nt(1, 5, 3) + nt(5, 6, 3) + board4, unit="T03").status_code == 200
    assert client.get("/api/v1/held").json()["held"] == []
    assert [(x["table"], x["score_ns"]) for x in client.get("/api/v1/travellers/4").json()["rows"]] == [(2, -600)]


def test_a_played_board_cannot_be_sent_for_late_play(client):
    round_one_but_board_4(client)
    r = client.post("/api/v1/late", json={"table": 2, "board": 3})
    assert r.status_code == 409 and "nothing to play late" in r.text
    r = client.post("/api/v1/late", json={"table": 2, "board": 4, "at_table": 9})
    assert r.status_code == 404 and "at_table" in r.text


def test_a_board_of_a_round_not_begun_cannot_be_sent_for_late_play(client, data):
    """Board 5 is table 2's in round 2, which has not begun: sending it for late play would stand in for the
    round's own assign, so it is refused and nothing is queued."""
    r = client.post("/api/v1/late", json={"table": 2, "board": 5})
    assert r.status_code == 409 and "only once its round has begun" in r.text, r.text
    assert [a for a in assigns(data, "T02") if a.get("late")] == []
