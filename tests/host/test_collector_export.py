"""Exports of the collector's session (docs/collector.md): PBN 2.1 with auctions, alerts as notes, ScoreTable and
TotalScoreTable, adjusted scores marked; USEBIO and CSV; the round trip PBN export -> `bidwire score-pbn` (both
Neuberg by default) -> the collector's own matchpoints and ranking.
"""
import codecs
import csv
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

import pytest
from collector_kit import ApiClient, played, sync, write_keyring

from bidwire_host.event import model as ev
from bidwire_host.event import seating
from bidwire_host.scoring.model import law77_score
from bidwire_host.server import create_app

BIDWIRE = os.path.join(os.path.dirname(sys.executable), "bidwire")
TABLES = {"T01": 1, "T02": 2, "T03": 3}


def mitchell():
    return ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2,
                                   date="2024-05-01"))


def nt(seq, board, tricks, alert=False, **assignment):
    """1NT by the dealer, all pass; with `alert`, the opener's partner alerts it (the core's `S@` token)."""
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + ([f"{seats[2]}@"] if alert else []) + [f"{x}:P" for x in seats[1:]]
    return played(seq, board, inputs, "1NT", d, tricks, law77_score(board, "1NT", d, tricks), **assignment)


def play_session(c, skip=(), seqs=None):
    """Every table plays its boards in all three rounds; tricks vary with board and table (7-9). `seqs`: each unit's
    first event number, if not 1 (a test that syncs a board of its own first)."""
    seqs = dict(dict.fromkeys(TABLES, 1), **(seqs or {}))
    e = ev.from_dict(mitchell())
    for rnd in (1, 2, 3):
        for a in seating.assignments(e, rnd):
            unit = f"T0{a['table']}"
            for board in a["boards"]:
                if (a["table"], board) in skip:
                    continue
                tricks = 7 + (board + a["table"] + rnd) % 3
                r = sync(c, nt(seqs[unit], board, tricks, alert=board == 1 and a["table"] == 1, section="A",
                               table=a["table"], round=rnd, ns=a["ns"], ew=a["ew"]), unit=unit)
                assert r.status_code == 200, r.text
                seqs[unit] += 4


@pytest.fixture
def client(data):
    with ApiClient(create_app(data, event=mitchell(), tables=TABLES)) as c:
        play_session(c, skip={(2, 1)})  # board 1 not played at table 2 (round 3): the director's A+/A-
        r = c.post("/api/v1/adjustments", json={"table": 2, "board": 1, "ns": "A+", "ew": "A-"})
        assert r.status_code == 201, r.text
        yield c


def test_pbn_export_carries_auctions_alerts_tables_and_adjusted_scores(client):
    r = client.get("/api/v1/export/pbn")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-pbn")
    text = r.text
    assert text.startswith("% PBN 2.1\r\n% EXPORT\r\n")
    assert '[Event "Club, Session 1"]' in text and '[Date "2024.05.01"]' in text
    assert '[Scoring "MP;MP1"]' in text and text.count("[TotalScoreTable") == 1
    assert text.count("[ScoreTable") == 6  # one per board
    # Board 1 at table 1: N opened 1NT, alerted -> a note; contract, declarer, result, score.
    game = text.split('[Board "1"]')[1].split("[Event")[0]
    assert "1NT =1= Pass Pass Pass" in game and '[Note "1:alert"]' in game
    assert '[Contract "1NT"]' in game and '[Declarer "N"]' in game and '[Score "NS ' in game
    # The artificial score is marked with a caret (PBN §5.2).
    assert "^A+" in text and "^A-" in text


def test_round_trip_pbn_export_score_pbn_gives_the_collectors_matchpoints(client, tmp_path):
    path = tmp_path / "session.pbn"
    path.write_bytes(client.get("/api/v1/export/pbn").content)
    out = subprocess.run([BIDWIRE, "score-pbn", str(path)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["problems"] == []
    collector = client.get("/api/v1/ranking").json()["ranking"]
    assert [(r["direction"], r["pair"], r["rank"], r["display"], r["mp"], r["pct"], r["boards"]) for r in collector] \
        == [(r["direction"], r["pair"], r["rank"], r["display"], r["total"], r["pct"], r["boards"])
            for r in report["ranking"]]
    assert len(report["boards"]) == 6
    for b in report["boards"]:  # the collector lists a traveller by table, the export in arrival order
        ours = client.get(f"/api/v1/travellers/{b['board']}").json()["rows"]
        assert sorted((r["ns"], r["ew"], r["score_ns"] or 0, r["mp_ns"], r["pct_ns"]) for r in ours) == \
            sorted((r["ns"], r["ew"], r["score_ns"] or 0, r["mp_ns"], r["pct_ns"]) for r in b["rows"])


def test_usebio_and_csv(client):
    r = client.get("/api/v1/export/usebio")
    assert r.status_code == 200
    root = ET.fromstring(r.text.split("\n", 2)[2])
    assert root.tag == "USEBIO" and root.find("EVENT/BOARD_SCORING_METHOD").text == "MATCH_POINTS"
    section = root.find("EVENT")  # PARTICIPANTS and BOARD straight under EVENT
    assert len(section.findall("BOARD")) == 6 and len(section.findall("PARTICIPANTS/PAIR")) == 6
    assert "A6040" in [x.text for x in root.iter("SCORE")]
    tables = {}
    for name in ("travellers", "ranking", "scorecards"):
        r = client.get("/api/v1/export/csv", params={"table": name})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
        assert r.content.startswith(codecs.BOM_UTF8)
        tables[name] = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"), newline="")))
    travellers, ranking, cards = tables["travellers"], tables["ranking"], tables["scorecards"]
    # every row says the event, date and section; travellers and score cards the round and the lead
    assert travellers[0][:8] == ["event", "date", "section", "round", "board", "table", "ns", "ew"]
    assert len(travellers) == 1 + 18
    column = {name: k for k, name in enumerate(travellers[0])}
    assert "A+/A-" in [row[column["adjusted"]] for row in travellers]
    assert {(row[0], row[1], row[2]) for row in travellers[1:]} == {("Club, Session 1", "2024-05-01", "A")}
    assert {row[column["round"]] for row in travellers[1:]} == {"1", "2", "3"}
    played_rows = [row for row in travellers[1:] if not row[column["adjusted"]]]
    assert {row[column["lead"]] for row in played_rows} == {"C"}  # collector_kit.played: the leader leads a club
    assert not [name for name in travellers[0] + ranking[0] + cards[0] if "imp" in name]  # a matchpoint event
    # Table 2 met board 1 in round 3 (the Mitchell's board 1 goes 1 -> 3 -> 2); its A+/A- row says so too.
    adjusted_row = [row for row in travellers[1:] if row[column["adjusted"]]][0]
    assert (adjusted_row[column["board"]], adjusted_row[column["table"]], adjusted_row[column["round"]]) == \
        ("1", "2", "3")
    assert ranking[0][:7] == ["event", "date", "section", "rank", "display", "direction", "pair"]
    assert len(ranking) == 1 + 6
    assert cards[0][:7] == ["event", "date", "section", "direction", "pair", "round", "board"]
    assert len(cards) == 1 + 2 * 18  # each result, both sides
    for rows in tables.values():  # one rectangular table per file
        assert len({len(row) for row in rows}) == 1
    r = client.get("/api/v1/export/csv")  # no table: the three in one zip
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        assert sorted(z.namelist()) == ["bidwire-ranking.csv", "bidwire-scorecards.csv", "bidwire-travellers.csv"]
        assert z.read("bidwire-ranking.csv") == client.get("/api/v1/export/csv?table=ranking").content
    r = client.get("/api/v1/export/csv", params={"table": "totals"})
    assert r.status_code == 422 and "ranking, travellers, scorecards" in r.json()["error"]
    assert client.get("/api/v1/export/doc").status_code == 404


def test_the_cli_export_equals_the_api(client, data, tmp_path):
    expected = client.get("/api/v1/export/pbn").content
    out = tmp_path / "out.pbn"
    r = subprocess.run([BIDWIRE, "export", "--data", str(data), "--format", "pbn", "--out", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == expected
    r = subprocess.run([BIDWIRE, "export", "--data", str(data), "--format", "csv", "--table", "travellers"],
                       capture_output=True, timeout=60)
    assert r.returncode == 0 and r.stdout == client.get("/api/v1/export/csv?table=travellers").content
    out = tmp_path / "out.zip"
    r = subprocess.run([BIDWIRE, "export", "--data", str(data), "--format", "csv", "--out", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == client.get("/api/v1/export/csv").content
    for args, url in ((["--format", "pbn", "--irregular", "marks"], "/api/v1/export/pbn?irregular=marks"),
                      (["--format", "lin", "--board", "1"], "/api/v1/export/lin?board=1")):
        r = subprocess.run([BIDWIRE, "export", "--data", str(data), *args], capture_output=True, timeout=60)
        assert r.returncode == 0 and r.stdout == client.get(url).content, r.stderr
    r = subprocess.run([BIDWIRE, "export", "--data", str(data), "--format", "lin", "--board", "99"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "board 99" in r.stderr and r.stdout == ""


def test_nothing_to_export(tmp_path):
    write_keyring(tmp_path / "keyring.json")
    with ApiClient(create_app(tmp_path)) as c:
        r = c.get("/api/v1/export/pbn")
        assert r.status_code == 409 and "nothing scored" in r.json()["error"]
