"""The director's desk against the loaded event (issue 26): a table is late only while it still has a board of
its round to play, a correction answers the suspicious-result alert it corrects, alerts name the table."""
import json

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire_host.dashboard import queries
from bidwire_host.event import model as ev
from bidwire_host.scoring.model import law77_score
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}


def mitchell():
    return ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3, "rounds": 1}, boards_per_round=2))


@pytest.fixture
def client(data):
    with ApiClient(create_app(data, event=mitchell(), tables=TABLES)) as c:
        yield c


def assign(data, unit):
    [a] = [json.loads(r["body"]) for r in query(data, "SELECT body FROM commands WHERE unit = ? AND type = 'assign'",
                                                unit)]
    return a


def nt(seq, board, tricks, a):
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    return played(seq, board, inputs, "1NT", d, tricks, law77_score(board, "1NT", d, tricks), section=a["section"],
                  table=a["table"], round=a["round"], ns=a["ns"], ew=a["ew"])


def test_a_table_that_has_played_its_boards_is_never_late(client, data, monkeypatch):
    """Issue 26 item 1: after the session's last board every table turned "late: over 15 min in the round"."""
    monkeypatch.setattr(queries, "ROUND_MINUTES", -1)  # every round is over its budget, whatever the clock says
    one, two = assign(data, "T01"), assign(data, "T02")
    for seq, board in ((1, one["boards"][0]), (5, one["boards"][1])):
        assert sync(client, nt(seq, board, 7, one), "T01").status_code == 200
    assert sync(client, nt(1, two["boards"][0], 7, two), "T02").status_code == 200  # its second board to come
    rows = {r["unit"]: r for r in queries.grid(client.app.state.service)}
    assert rows["T01"]["phase"] == "done" and rows["T01"]["late"] is None
    assert rows["T02"]["phase"] == "done" and "over" in rows["T02"]["late"]
