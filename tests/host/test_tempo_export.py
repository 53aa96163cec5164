"""The tempo of each call in the exports (docs/scorer.md "Tempo"): the PBN's AuctionTimeTable (PBN 2.1 §5.4: one
row per call token of the Auction section, Time and TotalTime) and the CSV travellers' `tempo` column, read as
text and by Python's csv module. The readers (endplay, bridge-utils, bridgebots) read the demo's PBN, whose units
measure every call's tempo, in tests/host/test_pbn_irregular_export.py.

Board 1 (dealer N) at table 1: E bids 1S out of rotation at N's turn and the director rejects it; N opens 1NT,
E bids 1S again, then three passes (the 1S is insufficient over 1NT: accepted by S's pass). The unit's tempos
(tenths of a second) are chosen here: the cancelled 1S took 5.0 s, 1NT 12.3 s, the 1S that stands 0.8 s, S's
pass 0.0 s, W's 30.1 s, and N's last pass has none (a restart)."""
import csv
import io
import zipfile

import pytest
from collector_kit import ApiClient, auction_end, board_start, result, sync
from test_collector_export import TABLES, mitchell, play_session

from bidwire_host.event import model as ev
from bidwire_host.event import seating
from bidwire_host.server import create_app

TOKENS = ["E:1S", "!reject", "N:1N", "E:1S", "S:P", "W:P", "N:P"]
PRESSED = [("E:1S", 50), ("N:1NT", 123), ("E:1S", 8), ("S:P", 0), ("W:P", 301), ("N:P", None)]


@pytest.fixture
def client(data):
    event = mitchell()
    with ApiClient(create_app(data, event=event, tables=TABLES)) as c:
        [a] = [x for r in (1, 2, 3) for x in seating.assignments(ev.from_dict(event), r)
               if x["table"] == 1 and 1 in x["boards"]]
        where = {"section": a["section"], "table": 1, "round": a["round"], "ns": a["ns"], "ew": a["ew"]}
        events = [board_start(1, 1, **where)]  # table 1's first board, played first
        for token, tempo in PRESSED:
            events.append({"seq": 1 + len(events), "type": "call", "board": 1, "input": token, "seat": token[0],
                           "verdict": "legal", "law": 0, "alert": False, "tempo": tempo, "t": 1000})
        events.append(auction_end(1 + len(events), 1, TOKENS))
        events.append({"seq": 1 + len(events), "type": "lead", "board": 1, "seat": "S", "suit": "H", "t": 1000})
        events.append(result(1 + len(events), 1, "1S", "E", 7, -80))  # 1S by E made: EW +80
        assert sync(c, events).status_code == 200
        # every other table and board: no board is withheld from the export
        play_session(c, skip={(1, 1)}, seqs={"T01": 1 + len(events)})
        yield c


def test_the_pbn_carries_each_calls_thinking_time_in_its_auction_time_table(client):
    text = client.get("/api/v1/export/pbn").text
    [game] = [g for g in text.split("\r\n\r\n") if '[Board "1"]' in g and '[Table "1"]' in g]
    lines = game.split("\r\n")
    auction = lines.index('[Auction "N"]')
    # E's second 1S is insufficient over 1NT, accepted by S's pass: a noted call, still one call token
    assert lines[auction + 1:auction + 3] == ["1NT 1S =1= Pass Pass", "Pass"]
    at = lines.index(next(x for x in lines if x.startswith("[AuctionTimeTable ")))
    assert lines[at] == '[AuctionTimeTable "Time\\2R;TotalTime\\2R"]'  # one backslash: PBN 2.1 §3.8
    # whole seconds, tenths rounded half up; the total since the board's start; ? from the call without one
    assert [x.split() for x in lines[at + 1:at + 6]] == [["12", "12"], ["1", "13"], ["0", "13"], ["30", "43"],
                                                         ["?", "?"]]
    assert auction < at  # after the Auction section (§5.4); the other games, whose units sent no tempo, have none
    assert text.count("[AuctionTimeTable ") == 1


def test_the_csv_travellers_carry_each_calls_tempo(client):
    archive = zipfile.ZipFile(io.BytesIO(client.get("/api/v1/export/csv").content))
    name = next(n for n in archive.namelist() if "travellers" in n)
    rows = list(csv.DictReader(io.StringIO(archive.read(name).decode("utf-8-sig"))))
    assert [r["tempo"] for r in rows if (r["board"], r["table"]) == ("1", "1")] == [
        "N 1NT 12.3; E 1S 0.8; S P 0.0; W P 30.1; N P ?"]
    assert {r["tempo"] for r in rows if (r["board"], r["table"]) != ("1", "1")} == {""}  # units that sent none
