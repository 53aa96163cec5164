"""The director enters a result (issue 36; docs/director.md "A result no unit reported"): `POST /api/v1/results` for
any table and board of the movement, whether or not a unit reported it; a recorded decision, scored at once, marked
on the traveller; a unit's result that arrives later for the same table and board is held, never silently put in
its place.

The 3-table Mitchell, 2 boards a round, of test_collector_authority.py: in round 1 table 1 plays boards 1-2 (NS 1 v
EW 1), table 2 boards 3-4 (NS 2 v EW 2), table 3 boards 5-6. Law 77, worked by hand: board 3 (dealer S, EW
vulnerable) 4S by S making 10 tricks, NS not vulnerable: 120 + 300 = +420; making 11: +450. Board 4 (dealer W,
both vulnerable) 3NT by E making 9: 100 + 500 = 600 to EW, -600 for NS.
"""
import csv
import io
import json
import re

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}


@pytest.fixture
def client(mitchell3):
    return mitchell3


def traveller(client, board):
    return client.get(f"/api/v1/travellers/{board}").json()["rows"]


def enter(client, **body):
    return client.post("/api/v1/results", json={"section": "A", "by": "TD Jones", **body})


def test_a_result_for_a_table_whose_unit_never_reported_is_scored_and_marked(client):
    r = enter(client, table=2, board=3, contract="4S", declarer="S", tricks=10, lead="H",
              reason="unit T02 died: the pairs' agreed result")
    assert r.status_code == 201, r.text
    [row] = traveller(client, 3)
    assert (row["table"], row["ns"], row["ew"], row["contract"], row["declarer"], row["tricks"], row["score_ns"]) \
        == (2, "2", "2", "4S", "S", 10, 420)
    assert row["entered"]["by"] == "TD Jones" and "died" in row["entered"]["reason"]
    audit = [a for a in client.get("/api/v1/adjustments").json()["actions"]]  # adjustments stay apart
    assert audit == []


def test_a_units_result_that_comes_later_is_held_and_only_a_decision_puts_it_in(client):
    assert enter(client, table=2, board=3, contract="4S", declarer="S", tricks=10).status_code == 201
    late = played(1, 3, ["S:4S", "W:P", "N:P", "E:P"], "4S", "S", 11, 450, section="A", table=2, round=1, ns=2,
                  ew=2)
    assert sync(client, late, unit="T02").status_code == 200
    [h] = client.get("/api/v1/held").json()["held"]
    assert any("director entered a result" in why for why in h["held"]), h
    assert [row["score_ns"] for row in traveller(client, 3)] == [420]  # his result stands
    ok = client.post(f"/api/v1/results/T02/{h['seq']}/resolve", json={"decision": "accept", "reason": "unit right"})
    assert ok.status_code == 201, ok.text
    [row] = traveller(client, 3)
    assert (row["score_ns"], row["entered"]) == (450, None)  # accepted after his entry: the unit's counts


def test_an_entered_result_for_a_tables_last_board_completes_its_round(client, data):
    sync(client, played(1, 1, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", 7, 90, section="A", table=1, round=1,
                        ns=1, ew=1) +
         played(5, 2, ["E:1N", "S:P", "W:P", "N:P"], "1NT", "E", 7, -90, section="A", table=1, round=1, ns=1,
                ew=1), unit="T01")
    sync(client, played(1, 5, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", 7, 90, section="A", table=3, round=1,
                        ns=3, ew=3) +
         played(5, 6, ["E:1N", "S:P", "W:P", "N:P"], "1NT", "E", 7, -90, section="A", table=3, round=1, ns=3,
                ew=3), unit="T03")
    # table 2's unit is dead: the director enters both its boards from the paper traveller
    assert enter(client, table=2, board=3, contract="4S", declarer="S", tricks=10).status_code == 201

    def rounds():
        return [json.loads(r["body"])["round"] for r in
                query(data, "SELECT body FROM commands WHERE unit = 'T01' AND type = 'assign' ORDER BY seq")]
    assert rounds() == [1]
    assert enter(client, table=2, board=4, contract="3NT", declarer="E", tricks=9).status_code == 201
    assert [row["score_ns"] for row in traveller(client, 4)] == [-600]
    assert rounds() == [1, 2]


@pytest.mark.parametrize("body, status, field", [
    ({"table": 2, "board": 3, "contract": "9Z", "declarer": "S", "tricks": 10}, 400, "contract"),
    ({"table": 2, "board": 3, "contract": "4S", "tricks": 10}, 400, "declarer"),
    ({"table": 2, "board": 3, "contract": "4S", "declarer": "S"}, 400, "tricks"),
    ({"table": 2, "board": 3, "contract": "4S", "declarer": "S", "tricks": 14}, 422, "tricks"),
    ({"table": 2, "board": 7, "contract": "4S", "declarer": "S", "tricks": 10}, 404, "board"),
    ({"table": 9, "board": 3, "contract": "4S", "declarer": "S", "tricks": 10}, 404, "table"),
    ({"table": 2, "board": 3, "contract": "4S", "declarer": "S", "tricks": 10, "ns": 7}, 404, "ns"),
])
def test_a_bad_entry_is_refused_naming_the_field_and_stores_nothing(client, data, body, status, field):
    r = enter(client, **body)
    assert r.status_code == status, r.text
    assert field in r.text
    assert query(data, "SELECT count(*) AS n FROM director_actions")[0]["n"] == 0
    assert traveller(client, 3) == []


def test_a_passed_out_board_can_be_entered(client):
    assert enter(client, table=2, board=3, contract="Pass").status_code == 201
    [row] = traveller(client, 3)
    assert (row["contract"], row["score_ns"]) == ("Pass", 0)


def test_the_exports_say_which_results_the_director_entered(client):
    """Board 3 entered at all three tables (table 2 in round 1, table 1 in round 2, table 3 in round 3): the CSV
    travellers name who entered each, and the PBN says so in a commentary (no tag does)."""
    for table in (1, 2, 3):
        r = enter(client, table=table, board=3, contract="4S", declarer="S", tricks=10)
        assert r.status_code == 201, r.text
    csv_text = client.get("/api/v1/export/csv?table=travellers").text
    header, *lines = list(csv.reader(io.StringIO(csv_text.lstrip("\ufeff"))))
    at = header.index("entered_by")
    board = header.index("board")
    entered = [line[at] for line in lines if line[board] == "3"]
    assert entered == ["TD Jones"] * 3, csv_text
    pbn = client.get("/api/v1/export/pbn").text
    assert "{Table 2: result entered by the director (TD Jones)}" in pbn


def test_the_scorers_form_enters_a_result_only_when_asked_to(data):
    """Table 2's unit never reported board 3. The scorer's correction form says so (404) unless "enter it as a new
    result" is ticked; then the result is entered (4S by S making 10, +420) as the scorer's decision."""
    event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    with ApiClient(create_app(data, event=event, tables=TABLES, scorer_password="pw")) as c:
        token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
        assert c.post("/login", data={"password": "pw", "csrf": token}, follow_redirects=False).status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', c.get("/scorer").text).group(1)
        form = {"csrf": csrf, "table": "2", "board": "3", "contract": "4S", "declarer": "S", "tricks": "10",
                "reason": "the paper traveller"}
        r = c.post("/scorer/correct", data=form, follow_redirects=False)
        assert r.status_code == 404 and "enter it as a new result" in r.text
        assert traveller(c, 3) == []
        r = c.post("/scorer/correct", data=dict(form, new="on"), follow_redirects=False)
        assert r.status_code == 303, r.text
        [row] = traveller(c, 3)
        assert (row["table"], row["score_ns"], row["entered"]["by"]) == (2, 420, "scorer")


def test_a_held_result_accepted_after_the_entry_counts_even_when_a_later_one_came(client):
    """Board 1 (dealer N, nobody vulnerable) at table 1: T02 reports it first (held: table 1 is T01's), 1NT making 9
    (+150); T01 then reports 7 tricks (+90); the director enters 8 (+120); then he accepts T02's held result: that
    decision is the latest, so +150 counts (Law 77: 1NT +150 with 9 tricks, +120 with 8, +90 with 7)."""
    def one_nt(tricks):
        return played(1, 1, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", tricks, {7: 90, 8: 120, 9: 150}[tricks],
                      section="A", table=1, round=1, ns=1, ew=1)
    assert sync(client, one_nt(9), unit="T02").status_code == 200
    [h] = client.get("/api/v1/held").json()["held"]
    assert sync(client, one_nt(7), unit="T01").status_code == 200
    assert enter(client, table=1, board=1, contract="1NT", declarer="N", tricks=8).status_code == 201
    assert [r["score_ns"] for r in traveller(client, 1)] == [120]
    ok = client.post(f"/api/v1/results/T02/{h['seq']}/resolve", json={"decision": "accept", "reason": "T02's"})
    assert ok.status_code == 201, ok.text
    assert [r["score_ns"] for r in traveller(client, 1)] == [150]
