"""`make demo`'s engine: a Mitchell played by virtual units against the real collector, ranked at the end."""
import csv
import json
import os
import re
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from abf_usebio import abf_read
from anyascii import anyascii
from endplay.parsers import pbn
from endplay.types import Player

from bidwire_host.formats.pbn_import import load as load_pbn
from bidwire_host.formats.score_pbn import decode

SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
PLAYERS = {"N": Player.north, "E": Player.east, "S": Player.south, "W": Player.west}


def test_the_demo_plays_a_three_table_mitchell_to_a_ranking(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "bidwire_host.demo.club", "--tables", "3", "--port", "0", "--dir",
                           str(tmp_path / "demo"), "--exit-when-done"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert len(re.findall(r"table \d round \d board +\d+: ", out)) == 18  # 3 tables x 3 rounds x 2 boards
    ranking = re.findall(r"^  (NS|EW) +\d+=? +pair +\d+ +(\d+) of 24", out, re.M)
    assert len(ranking) == 6
    # 6 boards, each played 3 times: 2 per result beaten + 1 per tie gives 6 to each direction on a board
    assert sum(int(mp) for _, mp in ranking) == 6 * 12
    # the one result the demo enters wrongly on purpose is the only alert left open: no lead is flagged as a
    # fouled board and no other result as far from double dummy (the play agrees with the hand records)
    staged = re.search(r"staged: table 1 enters board (\d+)'s tricks", out)
    assert staged, out
    assert "director alerts: 1 open" in out
    assert re.findall(r"^  open: (\S+) board (\d+): (.*)$", out, re.M) == [("T01", staged.group(1),
                                                                            "suspicious result")]
    _check_names_hands_and_leads(tmp_path / "demo", out)
    _check_exports(tmp_path / "demo", out)
    assert re.search(r"director calls from the tables: [1-9]", out)  # the scripted players call the director
    assert re.search(r"irregularities: .*insufficient_bid \(Law 27\)", out)
    # the dashboard's address and login, with the generated password kept in a file only its owner reads
    password_file = tmp_path / "demo" / "director-password"
    assert password_file.stat().st_mode & 0o777 == 0o600
    password = password_file.read_text().strip()
    assert re.search(r"dashboard: http://127\.0\.0\.1:\d+/director", out)
    assert f"login: director / {password}" in out
    scorer_file = tmp_path / "demo" / "scorer-password"  # the scorer's own login, kept the same way
    assert scorer_file.stat().st_mode & 0o777 == 0o600
    scorer = scorer_file.read_text().strip()
    assert scorer != password and f"login: scorer / {scorer}" in out


def _check_names_hands_and_leads(workdir, out):
    """The event file names every pair's players by number from the club's register, the ranking and traveller
    printed show their names, its hand records
    (read by endplay) cover every board played, and every opening lead the units sent is a suit the leader
    (declarer's left-hand opponent) holds there."""
    event = json.loads((workdir / "event.json").read_text(encoding="utf-8"))
    session = event["sessions"][0]
    pairs = session["sections"][0]["pairs"]
    with open(workdir / event["register"], encoding="utf-8", newline="") as f:  # the players by number only
        members = {r["Number"]: f"{r['First name']} {r['Last name']}" for r in csv.DictReader(f)}
    assert all(len(p["players"]) == 2 and all(str(pl["id"]) in members for pl in p["players"]) for p in pairs)
    for p in pairs:  # the ranking line of each pair carries its players' names, the register's
        a, b = (re.escape(members[str(pl["id"])]) for pl in p["players"])
        assert re.search(rf"^  {p['line']} +\d+=? +pair +{p['number']} .*{a}.*{b}$", out, re.M), (a, b)
    traveller = out[out.index("traveller, board 1"):out.index("director alerts")].splitlines()[1:4]
    assert all(sum(name in row for name in members.values()) == 4 for row in traveller), traveller  # both pairs
    deals = {b.board_num: b.deal for b in pbn.load(open(workdir / session["hand_records"], encoding="utf-8"))}
    db = sqlite3.connect(workdir / "data" / "bidwire.sqlite3")
    try:
        played = {b for (b,) in db.execute("SELECT DISTINCT board FROM results")}
        leads = [(json.loads(body), declarer) for body, declarer in db.execute(
            "SELECT e.body, r.declarer FROM events e JOIN results r ON r.unit = e.unit AND r.board = e.board "
            "WHERE e.type = 'lead'")]
    finally:
        db.close()
    assert played <= set(deals) and len(played) == 6
    assert len(leads) > 9  # most of the 18 results are contracts, each with its lead
    for lead, declarer in leads:
        assert lead["seat"] == "NESW"[("NESW".index(declarer) + 1) % 4]
        assert getattr(deals[lead["board"]][PLAYERS[lead["seat"]]], SUITS[lead["suit"]]), lead


def _check_exports(workdir, out):
    """The session's exports, downloaded by the demo: the PBN (bidwire's reader; endplay, bridge-utils and bridgebots
    read the demo's session in tests/host/test_pbn_irregular_export.py) with its 18 results and every board's deal
    the hand record's as endplay reads that, the USEBIO well-formed XML, the CSV zip's three tables."""
    exports = workdir / "exports"
    assert f"exports: {exports / 'bidwire.pbn'}" in out
    dealt = {b.board_num: b.deal.to_pbn() for b in pbn.load(open(workdir / "event-hands.pbn", encoding="utf-8"))}
    exported = load_pbn(decode((exports / "bidwire.pbn").read_bytes()))
    assert len(exported.results) == 18 and not exported.problems
    assert {b: h.deal.pbn("N") for b, h in exported.hands.items()} == dealt
    assert ElementTree.parse(exports / "bidwire.xml").getroot().tag == "USEBIO"
    # the ABF's results importer's paths (tests/abf_usebio.py): every pair, board and hand record; a 3-table
    # Mitchell is under the EBU club scale's 5 tables, so every pair reads 0 masterpoints
    usebio = abf_read((exports / "bidwire.xml").read_text(encoding="utf-8"))
    assert usebio["winner_type"] == "2" and len(usebio["pairs"]) == 6 and len(usebio["boards"]) == 6
    assert [p["masterpoints"] for p in usebio["pairs"]] == [0.0] * 6 and sorted(usebio["hands"]) == sorted(dealt)
    event = json.loads((workdir / "event.json").read_text(encoding="utf-8"))
    with open(workdir / event["register"], encoding="utf-8", newline="") as f:
        players = {anyascii(f"{r['First name']} {r['Last name']}") for r in csv.DictReader(f)}  # PBN: in ASCII
    seats = re.findall(r'^\[(?:North|East|South|West) "(.*)"\]$', (exports / "bidwire.pbn").read_text("utf-8"), re.M)
    assert len(seats) == 4 * 18 and set(seats) <= players  # every seat of every result named
    with zipfile.ZipFile(exports / "bidwire.zip") as z:
        assert len([n for n in z.namelist() if n.endswith(".csv")]) == 3


def test_make_demo_short_session_exits_and_leaves_no_process(tmp_path):
    """issue 5: `make demo TABLES=4 BOARDS=6 EXIT_WHEN_DONE=1` ends with a ranking and stops what it started."""
    mark = f"BIDWIRE_TEST_RUN={os.getpid()}-{tmp_path.name}"  # in the environment of every process it starts
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["BIDWIRE_TEST_RUN"] = mark.split("=", 1)[1]
    proc = subprocess.run(["make", "-s", "demo", "TABLES=4", "BOARDS=6", "PORT=0", "EXIT_WHEN_DONE=1"],
                          cwd=Path(__file__).parents[2], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(re.findall(r"^  (NS|EW) +\d+=? +pair", proc.stdout, re.M)) == 8
    assert started_by(mark) == [], "make demo left processes running"


def started_by(mark):
    """Command lines of the live processes this test started: those whose environment holds `mark` (a demo of
    another checkout on the same machine is not counted), zombies aside."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if mark.encode() in environ and state != "Z":
            found.append(cmd)
    return found


def running(marker):
    """Command lines of live processes that mention `marker`, a folder of the calling test's own (tmp_path), so
    that only processes it started are counted; zombies aside."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            found.append(cmd)
    return found


def test_the_demo_plays_a_swiss_teams_night_with_its_draws(tmp_path):
    """`make demo MOVEMENT=swiss-teams`: six teams, four matches, the demo's director pushing the draw the collector
    makes after each match; every match shares 20 VPs, and no two teams meet twice."""
    proc = subprocess.run([sys.executable, "-m", "bidwire_host.demo.club", "--movement", "swiss-teams", "--teams", "6",
                           "--port", "0", "--dir", str(tmp_path / "demo"), "--exit-when-done"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "6-team Swiss: 4 matches of 4 boards, 6 tables" in out
    assert len(re.findall(r"table \d round \d board +\d+: ", out)) == 6 * 8 * 2  # 6 tables, 8 halves of 2 boards
    draws = re.findall(r"^  draw for match (\d): (.*)$", out, re.M)
    assert [d[0] for d in draws] == ["2", "3", "4"]
    met = [frozenset((1, 2)), frozenset((3, 4)), frozenset((5, 6))]  # the first match: in number order
    for _, said in draws:
        met += [frozenset(int(t) for t in m.split(" v ")) for m in said.split(", ")]
    assert len(met) == 12 and len(set(met)) == 12
    standings = dict(re.findall(r"^ +\d+=? +team +(\d) +(\d+\.\d\d) VPs", out, re.M))
    assert len(standings) == 6 and round(sum(float(v) for v in standings.values()), 2) == 4 * 3 * 20
    # the files carry the standings in VPs: endplay's PBN reader (its rows split at the space inside a quoted team
    # name, so the VPs are read from the right), and the USEBIO's TEAM elements read with ElementTree
    with open(tmp_path / "demo" / "exports" / "bidwire.pbn", encoding="utf-8") as f:
        total = pbn.load(f)[0].info["TotalScoreTable"]
    assert [h["name"] for h in total["headers"]] == ["Rank", "TeamId", "TeamName", "TotalVP", "TotalIMP", "NrBoards"]
    assert {row[1]: row[-3] for row in total["rows"]} == standings
    teams = ElementTree.parse(tmp_path / "demo" / "exports" / "bidwire.xml").getroot().iter("TEAM")
    assert {t.get("TEAM_ID"): t.findtext("TOTAL_SCORE") for t in teams} == standings
    db = sqlite3.connect(tmp_path / "demo" / "data" / "bidwire.sqlite3")
    try:
        assert db.execute("SELECT count(*) FROM director_actions WHERE kind = 'draw'").fetchone()[0] == 3
    finally:
        db.close()


@pytest.mark.parametrize("movement,ranked", [("arrow-switch", r"^ +\d+=? +pair +\d+(NS|EW) "),
                                             ("across-field", r"^  (NS|EW) +\d+=? +pair [AB]\d+ +\d+ of 180 "),
                                             ("two-sessions", r"^ +\d+=? +[\d.]+ % +\( *[\d.]+ +[\d.]+\) "),
                                             ("barometer", r"^ +\d+=? +pair +\d+ "),
                                             ("individual", r"^ +\d+=? +player +\d+ ")])
def test_make_demo_plays_the_club_weeks_other_evenings(tmp_path, movement, ranked):
    """`make demo MOVEMENT=arrow-switch|across-field|two-sessions|barometer|individual` (issue 37): the evening is
    played on virtual units to its ranking: one field of 10 pairs for a 5-table arrow switch or barometer, 20 pairs
    of two 5-table sections across the field, the 10 pairs of a 5-table Mitchell over two sessions each with both
    sessions' figures, 16 players for the individual."""
    proc = subprocess.run([sys.executable, "-m", "bidwire_host.demo.club", "--movement", movement, "--port", "0",
                           "--dir", str(tmp_path / "demo"), "--exit-when-done"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(re.findall(ranked, proc.stdout, re.M)) == {"individual": 16, "across-field": 20}.get(movement, 10)
    if movement == "two-sessions":  # the whole event's PBN, read back by endplay: both sessions, the 10 pairs' totals
        with open(tmp_path / "demo" / "exports" / "event.pbn", encoding="utf-8") as f:
            games = pbn.load(f)
        assert {g.info["Stage"] for g in games} == {"Afternoon", "Evening"}
        assert len(games[0].info["TotalScoreTable"]["rows"]) == 10
