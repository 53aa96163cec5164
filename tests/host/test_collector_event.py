"""The collector with an event loaded: round 1's assigns, Law 15 against the movement (direction-aware pairs in a
Mitchell), the next round sent when every table is done, travellers and the ranking (docs/collector.md)."""
import json

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire_host.collector.event_setup import SetupError, parse_tables
from bidwire_host.event import model as ev
from bidwire_host.scoring.model import law77_score
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}


def mitchell():
    return ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))


@pytest.fixture
def client(data):
    with ApiClient(create_app(data, event=mitchell(), tables=TABLES)) as c:
        yield c


def assigns(data, unit):
    return [json.loads(r["body"]) for r in query(data, "SELECT body FROM commands WHERE unit = ? AND type = 'assign' "
                                                       "ORDER BY seq", unit)]


def nt(seq, board, tricks=7, **assignment):
    """A board played in 1NT by its dealer, as the unit reports it."""
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    return played(seq, board, inputs, "1NT", d, tricks, law77_score(board, "1NT", d, tricks), **assignment)


def play(client, unit, a, tricks=7, seq=1):
    """The unit plays its assign's boards (1NT by the dealer); returns the next seq."""
    for board in a["boards"]:
        r = sync(client, nt(seq, board, tricks=tricks, section=a["section"], table=a["table"],
                                round=a["round"], ns=a["ns"], ew=a["ew"]), unit=unit)
        assert r.status_code == 200, r.text
        seq += 4
    return seq


def test_loading_the_event_queues_round_1_for_the_mapped_units(client, data):
    for unit, table in TABLES.items():
        [a] = assigns(data, unit)
        assert (a["section"], a["table"], a["round"], a["ns"], a["ew"]) == ("A", table, 1, table, table)
    assert client.get("/api/v1/event").json()["rounds"] == {"A": 1}


def test_mitchell_ns_and_ew_with_one_number_are_different_pairs(client, data):
    """Regression: NS 3 v EW 2 and later NS 2 v EW 3 on one board is no Law 15 problem in a Mitchell."""
    seqs = {u: 1 for u in TABLES}
    for round_no in (1, 2, 3):
        for unit in TABLES:
            [a] = [x for x in assigns(data, unit) if x["round"] == round_no]
            seqs[unit] = play(client, unit, a, seq=seqs[unit])
    assert query(data, "SELECT kind, detail FROM alerts") == []
    assert len(query(data, "SELECT * FROM results")) == 18
    assert client.get("/api/v1/event").json()["rounds"] == {"A": 3}


def test_a_pair_at_the_wrong_table_is_a_movement_alert_and_the_result_is_held(client, data):
    [a] = assigns(data, "T01")
    r = sync(client, nt(1, 1, section="A", table=1, round=1, ns=1, ew=2), unit="T01")  # EW 2 is due at table 2
    assert r.status_code == 200
    movement, held = query(data, "SELECT kind, law, detail FROM alerts ORDER BY id")
    assert movement["kind"] == "movement" and movement["law"] == 15 and "EW should be EW 1, not 2" in movement["detail"]
    assert held["kind"] == "held_result" and "the movement seats NS 1 / EW 1" in held["detail"]
    [row] = query(data, "SELECT * FROM results")  # stored (never a refusal), held: not on the traveller
    assert row["held"] and client.get("/api/v1/travellers/1").json()["rows"] == []


def test_the_same_ew_pair_twice_on_a_board_is_still_law_15(client, data):
    sync(client, nt(1, 1, section="A", table=1, round=1, ns=1, ew=1), unit="T01")
    sync(client, nt(1, 1, section="A", table=3, round=2, ns=3, ew=1), unit="T03")  # EW 1 again on board 1
    kinds = [a["kind"] for a in query(data, "SELECT kind FROM alerts")]
    assert "board_played_twice" in kinds
    [a] = [a for a in query(data, "SELECT data FROM alerts WHERE kind = 'board_played_twice'")]
    assert json.loads(a["data"])["pairs"] == ["EW 1"]


def test_the_next_round_goes_out_when_every_table_is_done(client, data):
    seq = {}
    for unit in ("T01", "T02"):
        seq[unit] = play(client, unit, assigns(data, unit)[0])
    assert [a["round"] for a in assigns(data, "T01")] == [1]  # table 3 still playing
    r = sync(client, nt(1, 5, section="A", table=3, round=1, ns=3, ew=3), unit="T03")
    assert [c["type"] for c in r.json()["commands"]] == ["assign", "traveller"]
    r = sync(client, nt(5, 6, section="A", table=3, round=1, ns=3, ew=3), unit="T03")
    assert [c["type"] for c in r.json()["commands"]][-2:] == ["traveller", "assign"]  # round 2 in the same reply
    assert [a["round"] for a in assigns(data, "T01")] == [1, 2]
    [nxt] = [a for a in assigns(data, "T03") if a["round"] == 2]
    assert (nxt["boards"], nxt["ns"], nxt["ew"]) == ([1, 2], 3, 2)


def test_start_round_by_hand_and_once_only(client, data):
    r = client.post("/api/v1/rounds/2/start").json()
    assert r["round"] == 2 and len(r["queued"]) == 3
    assert client.post("/api/v1/rounds/2/start").json()["queued"] == []
    assert client.post("/api/v1/rounds/9/start").status_code == 400


def test_travellers_and_ranking(client, data):
    for unit, tricks in (("T01", 7), ("T02", 8), ("T03", 9)):
        play(client, unit, assigns(data, unit)[0], tricks=tricks)
    # round 2, boards 1-2 at table 3 (NS 3 v EW 2): a better NS score on board 1 (N declares 1NT)
    sync(client, nt(9, 1, 8, section="A", table=3, round=2, ns=3, ew=2), unit="T03")
    rows = client.get("/api/v1/travellers/1").json()["rows"]
    assert [(r["table"], r["ns"], r["ew"], r["score_ns"], r["mp_ns"], r["pct_ns"]) for r in rows] == [
        (1, "1", "1", 90, 0, 0), (3, "3", "2", 120, 2, 100)]
    ranking = client.get("/api/v1/ranking").json()["ranking"]
    ns3 = next(r for r in ranking if (r["direction"], r["pair"]) == ("NS", "3"))
    assert ns3["rank"] == 1 and ns3["boards"] == 3


def test_a_bad_event_or_table_map_is_refused(data):
    with pytest.raises(SetupError, match="tables 1-3"):
        create_app(data, event=mitchell(), tables={"T01": 4})
    with pytest.raises(SetupError, match="UNIT=TABLE"):
        parse_tables("T01:1")
    with pytest.raises(SetupError, match="UNIT=TABLE"):
        parse_tables("T01=²")  # a digit to str.isdigit(), not to int()
    assert parse_tables("T01=1, T02=B:2") == {"T01": [None, 1], "T02": ["B", 2]}
    with ApiClient(create_app(data)) as c:
        assert c.get("/api/v1/event").status_code == 404
        r = c.post("/api/v1/event", json={"event": mitchell(), "tables": {"T09": 1}})
        assert r.status_code == 400 and "T09" in r.json()["error"]
        r = c.post("/api/v1/event", json={"event": mitchell(), "tables": TABLES})
        assert r.status_code == 200 and len(r.json()["started"]["queued"]) == 3
