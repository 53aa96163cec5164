"""Auctions on the travellers (issue 36): the scorer's traveller and the public board page show each table's auction,
an irregular call marked with what the Laws did with it; the scorer's with each call's tempo, the public one without,
and only once the board is finished everywhere (withheld.py keeps it off before).

The 3-table Mitchell, 2 boards a round: table 1 plays boards 1-2 in round 1 (NS 1 v EW 1). Board 1 (dealer N): N
1♠, E 1♥ (insufficient, laws.md §4.6), S passes over it and so accepts it (Law 27 A), W, N pass: 1♥ by E; E takes 7
tricks: 1♥ making, 80 to EW (Law 77: 20 a trick + 50 part-score), −80 for NS.
"""
import re

import pytest
from collector_kit import ApiClient, auction_end, board_start, result, sync

from bidwire.core import readback, record
from bidwire.core.auction import Auction
from bidwire_host.event import model as ev
from bidwire_host.server import create_app

INPUTS = ["N:1S", "E:1H", "S:P", "W:P", "N:P"]


@pytest.fixture
def client(data):
    event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3}, scorer_password="pw")) as c:
        where = {"section": "A", "table": 1, "round": 1, "ns": 1, "ew": 1}
        presses = [{"seq": 2 + i, "type": "call", "input": t, "seat": t[0], "verdict": "legal", "alert": False,
                    "tempo": 10 * (i + 1), "board": 1, "t": 1000} for i, t in enumerate(INPUTS)]
        presses[1]["verdict"] = "insufficient_bid"
        end = auction_end(7, 1, INPUTS)
        a = Auction(0)
        for token in INPUTS:
            readback.apply(a, token)
        end["log"] = record.summary(a)["log"]  # as the firmware sends it (collector_kit's leaves it empty)
        events = [board_start(1, 1, **where), *presses, end,
                  {"seq": 8, "type": "lead", "board": 1, "seat": "S", "suit": "C", "t": 1000},
                  result(9, 1, "1H", "E", 7, -80)]
        assert sync(c, events).status_code == 200
        yield c


def _log_in(client):
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"password": "pw", "csrf": token}, follow_redirects=False).status_code == 303


def _auction_row(page):
    return re.sub(r"<[^>]+>", "", re.search(r'<tr class="auction-row" data-auction="1">(.*?)</tr>', page,
                                            re.S).group(1))


def test_the_scorers_traveller_shows_the_auction_its_irregular_call_and_each_tempo(client):
    _log_in(client)
    row = " ".join(_auction_row(client.get("/scorer").text).split())
    assert "N 1♠ 1.0s, E 1♥* 2.0s, S Pass 3.0s, W Pass 4.0s, N Pass 5.0s" in row, row
    assert "E 1♥ accepted (Law 27)" in row, row


def test_the_public_board_page_shows_the_auction_without_tempo_once_the_board_is_finished(client):
    assert client.post("/api/v1/publish", json={"minutes": 30, "override": True, "by": "TD"}).status_code == 201
    assert client.get("/results/boards/1").status_code == 404  # tables 2 and 3 have board 1 still to play
    for table in (2, 3):  # the other two tables' results, from their paper travellers
        r = client.post("/api/v1/results", json={"table": table, "board": 1, "contract": "Pass", "by": "TD"})
        assert r.status_code == 201, r.text
    page = client.get("/results/boards/1")
    assert page.status_code == 200, page.text
    row = " ".join(_auction_row(page.text).split())
    assert "N 1♠, E 1♥*, S Pass, W Pass, N Pass" in row and "E 1♥ accepted (Law 27)" in row, row
    assert "1.0s" not in page.text
