"""Exports carry what units, directors and event files typed (issue 12 item 9): every such field is written so that
it stays data -- PBN tag values escaped as the standard says (§3.2: quote and backslash escaped, no line break),
CSV cells that a spreadsheet would run as a formula neutralised -- and each file still reads back as one piece."""
import csv
import io
import xml.etree.ElementTree as ET

import pytest
from collector_kit import ApiClient, played, sync
from endplay.parsers import pbn as endplay_pbn

from bidwire_host.event import model as ev
from bidwire_host.formats import pbn_export, results_csv, usebio
from bidwire_host.formats.pbn import parse, parse_deal
from bidwire_host.formats.pbn_import import HandRecord
from bidwire_host.formats.publish import AuctionCall, EventInfo, publication
from bidwire_host.scoring import Result
from bidwire_host.server import create_app

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
FORMULAS = ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"]
BREAKER = 'Club "A"\\\r\n[Board "99"]\n%'  # quote, backslash, CR/LF and a tag on the next line


def hostile(second_ew="2"):
    ews = ["1", second_ew, "3", "4", "5", 'E\r\n"W"']
    results = [Result.played(1, ns, ew, "4S", "N", 10 - k % 2, table=str(k + 1))
               for k, (ns, ew) in enumerate(zip(FORMULAS, ews, strict=True))]
    event = EventInfo(BREAKER, "Hall\nTwo", "2024.05.01", "mp")
    hands = {1: HandRecord(1, "N", 0, parse_deal(DEAL))}
    auction = [AuctionCall("1S", seat="N"), AuctionCall("Pass", seat="E"),
               AuctionCall("4S", True, 'splinter "short"\r\n[Note "2:forged"]', seat="S"),
               AuctionCall("Pass", seat="W"), AuctionCall("Pass", seat="N"), AuctionCall("Pass", seat="E")]
    names = {"1": "Zoë\r\nO'Brien", FORMULAS[0]: "=cmd|' /C calc'!A0"}
    return publication(results, event, hands=hands, auctions={(1, 0): auction}, names=names)


def test_pbn_tag_values_from_outside_are_escaped_and_hold_no_line_break():
    text = pbn_export.dumps(hostile())
    for line in text.split("\r\n"):
        assert "\r" not in line and "\n" not in line
    games = parse(text).games
    assert len(games) == 6 and {g.get("Board") for g in games} == {"1"}  # a game per result; no forged Board 99
    first = games[0]
    assert first.get("Event") == 'Club "A"\\  [Board "99"] %' and first.get("Site") == "Hall Two"
    assert first.notes["auction"] == {1: 'splinter "short"  [Note "2:forged"]'}
    assert '[Event "Club \\"A\\"\\\\  [Board \\"99\\"] %"]' in text
    pairs = [(row["PairId_NS"], row["PairId_EW"]) for _, row in first.tables["ScoreTable"].rows]
    assert pairs == [(f.replace("\t", " ").replace("\r", " "), ew) for f, ew in
                     zip(FORMULAS, ["1", "2", "3", "4", "5", 'E  "W"'], strict=True)]
    names = {row["PairId"]: row["Names"] for _, row in first.tables["TotalScoreTable"].rows}
    assert names["1"] == "Zoe  O'Brien"  # in ASCII, as every reader decodes it (pbn_export.pbn_text)
    # endplay reads the file as one board too (it keeps the \" escapes of a value as they are: its own way)
    board = endplay_pbn.loads(text)[0]  # (the game with the auction and the tables)
    assert board.board_num == 1 and board.deal.to_pbn() == DEAL and board.auction[2].alertable
    assert len(board.info["ScoreTable"]["rows"]) == 6


@pytest.mark.parametrize(("name", "column"), [("travellers", "ns"), ("ranking", "pair"), ("scorecards", "pair")])
def test_csv_cells_that_would_be_formulas_are_neutralised(name, column):
    text = results_csv.table(hostile(), name)
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))
    assert len({len(r) for r in rows}) == 1  # one rectangular table
    for row in rows[1:]:
        for value in row:
            assert not value.startswith(("=", "+", "@", "\t", "\r")), (name, value)
            assert not value.startswith("-") or value.lstrip("-").replace(".", "").isdigit(), (name, value)
    at = rows[0].index(column)
    assert {"'" + f for f in FORMULAS} <= {row[at] for row in rows[1:]}
    if name == "ranking":
        by_pair = {row[at]: row[rows[0].index("name")] for row in rows[1:]}
        assert by_pair["'" + FORMULAS[0]] == "'=cmd|' /C calc'!A0" and by_pair["1"] == "Zoë\r\nO'Brien"


def test_csv_numbers_stay_numbers():
    # three tables make 4S (420), three go one down (-50): 8 and 2 matchpoints of a top of 10 (Law 78 A)
    rows = list(csv.DictReader(io.StringIO(results_csv.travellers(hostile()).removeprefix("\ufeff"))))
    assert [r["score_ns"] for r in rows] == ["420", "-50"] * 3
    assert [r["pct_ns"] for r in rows] == ["80", "20"] * 3


def test_usebio_stays_well_formed_xml_whatever_the_pair_ids_hold():
    pub = hostile("<b>&\x01\x1f")  # markup, and characters XML 1.0 cannot hold even escaped
    root = ET.fromstring(usebio.dumps(pub).split("\n", 2)[2])
    assert "<b>&  " in [x.text for x in root.iter("EW_PAIR_NUMBER")]
    assert FORMULAS[0] in [x.text for x in root.iter("NS_PAIR_NUMBER")]


def test_the_collectors_pbn_export_keeps_an_event_name_typed_with_a_line_break_in_its_tag(data):
    event = ev.to_dict(ev.new_event('Club "Spring"\r\n[Board "99"]', {"type": "mitchell", "tables": 3},
                                    boards_per_round=2, date="2024-05-01"))
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3})) as c:
        inputs = ["N:1N", "E:P", "S:P", "W:P"]
        r = sync(c, played(1, 1, inputs, "1NT", "N", 7, 90, section="A", table=1, round=1, ns=1, ew=1), unit="T01")
        assert r.status_code == 200, r.text
        for table in (2, 3):  # board 1 done at the other tables too (an export leaves out a board still in play)
            adj = {"table": table, "board": 1, "ns": "A", "ew": "A", "reason": "no time"}
            assert c.post("/api/v1/adjustments", json=adj).status_code == 201
        text = c.get("/api/v1/export/pbn").text
    assert '[Event "Club \\"Spring\\"  [Board \\"99\\"], Session 1"]\r\n' in text
    games = parse(text).games
    assert [g.get("Board") for g in games] == ["1"] and games[0].get("Event").startswith('Club "Spring"  [Board')


WORLD = {"1": "Łukasz Żółć & Hélène Müller", "2": "Дмитрий Орлов & 王芳", "3": "Ann Smith & Bo Lee"}


def test_pbn_text_is_ascii_with_the_nearest_form_and_the_exact_names_stay_in_usebio_and_csv():
    """PBN 2.1 §2.2 names ISO 8859-1 as PBN's character set: the PBN is written in its ASCII part, which UTF-8
    shares, each other character in its nearest ASCII form (issue 40 item 3: the standard's verifier read the
    UTF-8 é as two characters, and a one-byte é is not UTF-8 to endplay or bridgebots); the USEBIO and the CSV
    keep the names exactly."""
    results = [Result.played(1, str(k), str(k + 3), "4S", "N", 10, table=str(k)) for k in (1, 2, 3)]
    pub = publication(results, EventInfo("Bridż Klub Łódź", "Café Zürich", "2024.05.01", "mp"),
                      hands={1: HandRecord(1, "N", 0, parse_deal(DEAL))}, names=WORLD)
    text = pbn_export.dumps(pub)
    assert text.isascii()  # the same bytes in ISO 8859-1 and in UTF-8
    game = parse(text).games[0]
    assert game.get("Event") == "Bridz Klub Lodz" and game.get("Site") == "Cafe Zurich"
    names = {row["PairId"]: row["Names"] for _, row in game.tables["TotalScoreTable"].rows}
    assert names["1"] == "Lukasz Zolc & Helene Muller" and names["3"] == "Ann Smith & Bo Lee"
    assert names["2"].startswith("Dmitri") and " Orlov & " in names["2"]
    assert names["2"].isascii() and len(names["2"]) > 16  # 王芳 in Latin letters
    board = endplay_pbn.loads(text)[0]
    assert board.info["Event"] == "Bridz Klub Lodz" and board.info["Site"] == "Cafe Zurich"
    root = ET.fromstring(usebio.dumps(pub).split("\n", 2)[2])
    written = {x.text for x in root.iter("PLAYER_NAME")}
    assert {"Łukasz Żółć", "Hélène Müller", "Дмитрий Орлов", "王芳"} <= written
    ranking = list(csv.DictReader(io.StringIO(results_csv.ranking(pub).removeprefix("\ufeff"))))
    assert {r["name"] for r in ranking if r["pair"] in WORLD} >= set(WORLD.values())
