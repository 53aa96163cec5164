"""Results during the session (issue 36): with the event's evening.provisional, the public page shows the standings
so far before publication, marked provisional, and no deal, frequency or result of a board a table still has to
play (withheld.py); without it nothing is public before publication.

The 3-table Mitchell, 2 boards a round: in round 1 table 1 plays boards 1-2, table 2 boards 3-4, table 3 boards 5-6;
every board is played at all three tables, so after round 1 each is still to be played somewhere.
"""
import re

import pytest
from collector_kit import ApiClient, played, sync

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}


def club(data, provisional):
    event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    event["evening"] = {"provisional": provisional}
    return ApiClient(create_app(data, event=event, tables=TABLES))


def one_nt(seq, board, table):
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    return played(seq, board, [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]], "1NT", d, 7,
                  90 if d in "NS" else -90, section="A", table=table, round=1, ns=table, ew=table)


@pytest.mark.parametrize("provisional", [True, False])
def test_the_standings_so_far_are_public_only_if_the_club_wants_them(data, provisional):
    with club(data, provisional) as client:
        for table, unit in ((1, "T01"), (2, "T02"), (3, "T03")):
            b = 2 * table - 1
            assert sync(client, one_nt(1, b, table) + one_nt(5, b + 1, table), unit=unit).status_code == 200
        page = client.get("/results")
        if not provisional:
            assert page.status_code == 200 and "not published yet" in page.text and "<table" not in page.text
            assert client.get("/results/boards/1").status_code == 404
            return
        assert "Provisional" in page.text and "Ranking (provisional)" in page.text
        ranked = set(re.findall(r'<tr data-direction="(NS|EW)" data-pair="(\d+)">', page.text))
        assert ranked == {(d, str(p)) for d in ("NS", "EW") for p in (1, 2, 3)}  # every pair, on its board
        # every board of round 1 is still to be played at the two other tables: none is shown
        assert 'class="traveller"' not in page.text and "Not shown yet" in page.text
        assert client.get("/results/boards/1").status_code == 404
