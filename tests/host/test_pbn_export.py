"""PBN export (and CSV; USEBIO: test_usebio.py), and the round trip PBN export -> `bidwire score-pbn` -> the
same figures."""
import csv
import io
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest
from endplay.parsers import pbn as endplay_pbn

from bidwire_host.formats import pbn_export, results_csv
from bidwire_host.formats.pbn import parse, parse_deal
from bidwire_host.formats.pbn_import import HandRecord, load
from bidwire_host.formats.publish import AuctionCall, EventInfo, publication
from bidwire_host.scoring import Artificial, Assigned, Result
from bidwire_host.scoring.model import format_number

BIDWIRE = os.path.join(os.path.dirname(sys.executable), "bidwire")
DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
# Seven tables; each board: (contract, declarer, tricks) per table, None = not played there.
PLAYS = {
    1: [("4S", "N", 10), ("4S", "N", 11), ("3NT", "S", 9), ("4S", "N", 9), ("4SX", "N", 9), ("2S", "N", 10),
        ("Pass", None, None)],
    2: [("3NT", "S", 9), ("3NT", "S", 10), ("4H", "E", 9), ("5DX", "E", 9), None, ("3NT", "S", 8), ("1NT", "N", 7)],
    3: [("6S", "N", 12), ("4S", "N", 12), ("6S", "N", 11), ("7S", "N", 12), ("6NT", "S", 12), ("6S", "N", 12),
        ("4S", "N", 11)],
}


def field():
    results = []
    for board, plays in PLAYS.items():
        for table, play in enumerate(plays, 1):
            if play is not None:
                results.append(Result.played(board, str(table), str(table), *play, table=str(table)))
    results.append(Result(1, "8", "8", adjusted=Artificial("A+", "A-"), table="8"))
    results.append(Result(2, "8", "8", adjusted=Assigned(400, 630), table="8"))
    return results


def hands():
    return {b: HandRecord(b, "NESW"[(b - 1) % 4], (0, 1, 2)[b - 1], parse_deal(DEAL)) for b in PLAYS}


AUCTION = [AuctionCall("1S"), AuctionCall("Pass"), AuctionCall("2NT", True, "Jacoby: game-forcing raise"),
           AuctionCall("Pass"), AuctionCall("4S"), AuctionCall("Pass"), AuctionCall("Pass"), AuctionCall("Pass")]


def publish(method, results=None):
    event = EventInfo("Club pairs", "Hall", "2024.05.01", method, club="Bidwire BC")
    return publication(results or field(), event, hands=hands(), auctions={(1, 0): AUCTION})


def score_pbn_cli(path, method, *extra):
    proc = subprocess.run([BIDWIRE, "score-pbn", "--method", method, *extra, str(path)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def expected_rows(pub):
    out = {}
    for record in pub.boards:
        out[record.board] = [{"ns": row.result.ns, "ew": row.result.ew, "score_ns": row.result.shown_score(),
                              "mp_ns": format_number(row.mp_ns), "pct_ns": format_number(row.pct_ns),
                              "imp_ns": format_number(row.imp_ns)} for row in record.rows]
    return out


@pytest.mark.parametrize("method", ["mp", "neuberg", "cross-imps", "butler"])
def test_round_trip_export_then_score_pbn_gives_the_same_figures(tmp_path, method):
    pub = publish(method)
    path = tmp_path / "event.pbn"
    path.write_text(pbn_export.dumps(pub), encoding="utf-8")
    report = score_pbn_cli(path, method)
    assert report["problems"] == []
    assert {b["board"]: b["rows"] for b in report["boards"]} == expected_rows(pub)
    assert [(r["display"], r["direction"], r["pair"]) for r in report["ranking"]] == [
        (s.display, *s.contestant) for s in pub.standings]
    # The figures the file itself carries (ScoreTable columns) are the ones score-pbn recomputes.
    games = parse(path.read_text()).games
    column = "IMP_NS" if method in ("cross-imps", "butler") else "MP_NS"
    written = {}
    for g in games:
        if "ScoreTable" in g.tables:
            written[int(g.get("Board"))] = [row[column].lstrip("^") for _, row in g.tables["ScoreTable"].rows]
    figure = "imp_ns" if column == "IMP_NS" else "mp_ns"
    # Each within 1/100 of the figure score-pbn recomputes, and each board's together its exact total (the rule
    # in docs/scorer.md "Exact figures": a 2-decimal rounding of each may not sum to it).
    recomputed = {b["board"]: [Fraction(str(r[figure])) for r in b["rows"]] for b in report["boards"]}
    assert sorted(written) == sorted(recomputed)
    for record in pub.boards:
        figures = [Fraction(x) for x in written[record.board]]
        assert all(abs(f - r) <= Fraction(1, 100) for f, r in zip(figures, recomputed[record.board], strict=True))
        exact = sum(Fraction(getattr(row, figure)) for row in record.rows)
        cents = int(abs(exact) * 100 + Fraction(1, 2))  # the exact total to 2 decimals, halves away from zero
        assert sum(figures) == Fraction(cents if exact >= 0 else -cents, 100)


def test_round_trip_teams(tmp_path):
    results = [Result.played(1, "Aces", "Kings", "4S", "N", 10), Result.played(1, "Kings", "Aces", "3S", "N", 10),
               Result.played(2, "Aces", "Kings", "3NT", "E", 8), Result.played(2, "Kings", "Aces", "3NT", "E", 9),
               Result(3, "Aces", "Kings", adjusted=Assigned(140, 620)),
               Result.played(3, "Kings", "Aces", "3S", "N", 10)]
    pub = publish("teams", results)
    path = tmp_path / "match.pbn"
    path.write_text(pbn_export.dumps(pub))
    report = score_pbn_cli(path, "teams")
    assert {b["board"]: b["rows"] for b in report["boards"]} == expected_rows(pub)
    # Board 1 (none vul): Aces +420 at table 1, −170 at table 2: +250 → 6.
    # Board 2 (NS vul): Aces NS defeat 3NT by E (+50), then as EW make 3NT not vulnerable (+400): +450 → 10.
    # Board 3: the laws.md §9.3 Law 86 B example: Aces assigned +140, Kings −620, Kings +170 at table 2: +4.5.
    assert [b["rows"][0]["imp_ns"] for b in report["boards"]] == [6, 10, 4.5]
    assert report["ranking"][0] == {"rank": 1, "display": "1", "direction": None, "pair": "Aces", "total": 20.5,
                                    "pct": None, "boards": 3}


def test_export_format_tags_sections_and_alerts():
    text = pbn_export.dumps(publish("neuberg"))
    assert text.startswith("% PBN 2.1\r\n% EXPORT\r\n[Event \"Club pairs\"]\r\n")
    first = text.split("\r\n\r\n")[0].split("\r\n")
    tags = [line.split()[0][1:] for line in first if line.startswith("[")]
    mandatory = ["Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal",
                 "Scoring", "Declarer", "Contract", "Result"]
    assert tags[:15] == mandatory
    assert tags[15:19] == ["PairEW", "PairNS", "Score", "Table"]  # supplemental tags sorted
    assert tags[19:] == ["Auction", "Note", "ScoreTable", "TotalScoreTable"]
    assert "1S Pass 2NT =1= Pass" in first and '[Note "1:Jacoby: game-forcing raise"]' in first
    game = parse(text).games[0]
    assert game.auction.calls[2].note == 1 and game.notes["auction"][1] == "Jacoby: game-forcing raise"
    assert game.get("Score") == "NS 420" and game.get("Deal") == DEAL


def test_endplay_reads_our_export():
    pub = publish("mp")
    boards = endplay_pbn.loads(pbn_export.dumps(pub))
    first = boards[0]
    assert first.board_num == 1 and str(first.contract).startswith("4")
    assert first.auction[2].announcement == "Jacoby: game-forcing raise"
    assert first.deal.to_pbn() == DEAL
    assert len(first.info["ScoreTable"]["rows"]) == len(pub.boards[0].rows)
    assert len(first.info["TotalScoreTable"]["rows"]) == len(pub.standings)


def test_hand_records_round_trip():
    text = pbn_export.hand_records(hands())
    got = load(text)
    assert not got.results
    assert {b: (h.dealer, h.vulnerable, h.deal) for b, h in got.hands.items()} == {
        b: (h.dealer, h.vulnerable, h.deal) for b, h in hands().items()}


def test_csv_exports():
    pub = publish("neuberg")
    text = results_csv.travellers(pub)
    assert text.startswith("\ufeffevent,date,section,round,board,")  # UTF-8 with a byte order mark, a header row
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert len(rows) == sum(len(b.rows) for b in pub.boards)
    assert rows[0]["contract"] == "4S" and rows[0]["score_ns"] == "420" and "imp_ns" not in rows[0]
    assert [r["adjusted"] for r in rows if r["adjusted"]] == ["A+/A-", "assigned 400/630"]
    ranking = list(csv.DictReader(io.StringIO(results_csv.ranking(pub).removeprefix("\ufeff"))))
    assert [r["display"] for r in ranking] == [s.display for s in pub.standings]
