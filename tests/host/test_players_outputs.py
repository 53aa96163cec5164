"""Every output carries the players' names (issue 14, item 1): a 3-table Mitchell whose event file names every pair,
some by membership number from the register, is played and scored by the collector; the ranking and traveller
JSON, the scorer's pages, a score card, /results once published, the PBN (North/East/South/West of each game,
the ScoreTable's and TotalScoreTable's Names), the three CSV files and the USEBIO carry the names the test's own
event file and register give. The director fixes a pair's players from /director/pairs: recorded (who, when,
before and after) and named in every export from then on; refused without the director's login or its CSRF
token, and recorded once when the same form comes twice."""
import csv
import io
import json
import re
import xml.etree.ElementTree as ET

import pytest
from anyascii import anyascii
from collector_kit import TABLES as STORE_TABLES
from collector_kit import ApiClient, counts, query, sync
from fastapi.testclient import TestClient
from test_collector_export import TABLES, nt

from bidwire_host.event import files as event_files
from bidwire_host.event import model as ev
from bidwire_host.event import seating
from bidwire_host.formats.pbn import parse
from bidwire_host.server import create_app

PASSWORD = "kestrel-velvet-88"
REGISTER = "Number,First name,Last name\r\n1001,Ann,Smith\r\n1002,Bob,Jones\r\n2001,Zoë,Ørsted\r\nEBU7,Cat,Lee\r\n"
# (line, pair) -> the players as the event file gives them, and the names and numbers every output must carry
GIVEN = {("NS", 1): [{"id": 1001}, {"name": "Bob Jones"}],
         ("NS", 2): [{"name": "Cat Lee", "id": "EBU7"}, {"name": "Dan Roe"}],
         ("NS", 3): [{"name": "Eve Ng"}, {"name": "Fay Orr"}],
         ("EW", 1): [{"name": "Gus Pry"}, {"id": 2001}],
         ("EW", 2): [{"name": "Hal Quin"}, {"name": "Ida Ray"}],
         ("EW", 3): [{"name": "Jo Sim"}, {"name": "Kit Tate"}]}
PLAYERS = {("NS", "1"): [("Ann Smith", "1001"), ("Bob Jones", "1002")],
           ("NS", "2"): [("Cat Lee", "EBU7"), ("Dan Roe", None)],
           ("NS", "3"): [("Eve Ng", None), ("Fay Orr", None)],
           ("EW", "1"): [("Gus Pry", None), ("Zoë Ørsted", "2001")],
           ("EW", "2"): [("Hal Quin", None), ("Ida Ray", None)],
           ("EW", "3"): [("Jo Sim", None), ("Kit Tate", None)]}
NAMES = {who: " - ".join(name for name, _ in pl) for who, pl in PLAYERS.items()}


def event_file(tmp_path):
    data = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2, date="2026-12-01"))
    for pair in data["sessions"][0]["sections"][0]["pairs"]:
        pair["players"] = GIVEN[pair["line"], pair["number"]]
    data["register"] = "members.csv"
    (tmp_path / "members.csv").write_text(REGISTER, encoding="utf-8")
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def play(c, path):
    """Every table plays its two boards in each of the three rounds (1NT by the dealer, 7-9 tricks)."""
    seqs = dict.fromkeys(TABLES, 1)
    e = event_files.load(path)
    for rnd in (1, 2, 3):
        for a in seating.assignments(e, rnd):
            unit = f"T0{a['table']}"
            for board in a["boards"]:
                r = sync(c, nt(seqs[unit], board, 7 + (board + a["table"]) % 3, section="A", table=a["table"],
                               round=rnd, ns=a["ns"], ew=a["ew"]), unit=unit)
                assert r.status_code == 200, r.text
                seqs[unit] += 4


@pytest.fixture
def event_path(tmp_path):
    (tmp_path / "event").mkdir()
    return event_file(tmp_path / "event")


@pytest.fixture
def app(data, event_path):
    return create_app(data, event=event_path, tables=TABLES, director_password=PASSWORD)


@pytest.fixture
def played(app, event_path):
    with ApiClient(app, base_url="https://testserver") as c:
        play(c, event_path)
        yield c


def log_in(c):
    token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
    assert c.post("/login", data={"password": PASSWORD, "csrf": token}, follow_redirects=False).status_code == 303
    return re.search(r'name="csrf" value="([^"]+)"', c.get("/director").text).group(1)


def seats(who_ns, who_ew, names=NAMES):
    """North, South from the NS pair's players, East, West from the EW pair's: the PBN seat tags."""
    ns, ew = names[who_ns].split(" - "), names[who_ew].split(" - ")
    return {"North": ns[0], "South": ns[1], "East": ew[0], "West": ew[1]}


def check_pbn(text, names=NAMES):
    """The PBN names every seat and row, each name in ASCII as anyascii writes it (pbn_export.pbn_text: "Zoë
    Ørsted" is "Zoe Orsted" in the PBN, exact in the USEBIO and the CSV)."""
    names = {k: anyascii(v) for k, v in names.items()}
    games = parse(text).games
    assert len(games) == 18  # one game per result: each has its auction
    for g in games:
        assert {k: g.get(k) for k in ("North", "South", "East", "West")} == \
            seats(("NS", g.get("PairNS")), ("EW", g.get("PairEW")), names)
        for _, row in g.tables.get("ScoreTable").rows if "ScoreTable" in g.tables else []:
            assert row["Names_NS"] == names["NS", row["PairId_NS"]] and row["Names_EW"] == names["EW", row["PairId_EW"]]
    total = next(g.tables["TotalScoreTable"] for g in games if "TotalScoreTable" in g.tables)
    assert {(row["Direction"], row["PairId"]): row["Names"] for _, row in total.rows} == names


def test_the_json_api_names_every_pair_and_its_players(played):
    ranking = played.get("/api/v1/ranking").json()["ranking"]
    assert {(r["direction"], r["pair"]): r["names"] for r in ranking} == NAMES
    assert {(r["direction"], r["pair"]): [(p["name"], None if p["id"] is None else str(p["id"])) for p in r["players"]]
            for r in ranking} == PLAYERS
    for board in range(1, 7):
        rows = played.get(f"/api/v1/travellers/{board}").json()["rows"]
        assert len(rows) == 3
        for r in rows:
            assert (r["ns_names"], r["ew_names"]) == (NAMES["NS", r["ns"]], NAMES["EW", r["ew"]])


def test_the_pbn_export_names_the_four_seats_of_every_game_and_the_total_score_table(played):
    check_pbn(played.get("/api/v1/export/pbn").text)


def test_each_csv_file_carries_the_names(played):
    tables = {}
    for name in ("ranking", "travellers", "scorecards"):
        r = played.get("/api/v1/export/csv", params={"table": name})
        tables[name] = list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"), newline="")))
    assert {(r["direction"], r["pair"]): r["name"] for r in tables["ranking"]} == NAMES
    assert len(tables["travellers"]) == 18
    for r in tables["travellers"]:
        assert (r["ns_names"], r["ew_names"]) == (NAMES["NS", r["ns"]], NAMES["EW", r["ew"]])
    assert len(tables["scorecards"]) == 36
    for r in tables["scorecards"]:
        assert r["names"] == NAMES[r["direction"], r["pair"]]
        assert r["opponents_names"] == NAMES[r["opponents_direction"], r["opponents"]]


def test_the_scorer_pages_and_the_published_results_show_the_names(played, app):
    on_page = {who: " &amp; ".join(name for name, _ in pl) for who, pl in PLAYERS.items()}  # the pages: "A & B"
    log_in(played)
    page = played.get("/scorer").text
    for who, name in on_page.items():
        row = re.search(rf'<tr data-direction="{who[0]}" data-pair="{who[1]}">(.*?)</tr>', page, re.S).group(1)
        assert f'<span class="names">{name}</span>' in row, (who, row)
    traveller = re.search(r'<table class="traveller" data-board="1">(.*?)</table>', page, re.S).group(1)
    cells = re.findall(r'<td title="[^"]*">(\d) <span class="names opt">([^<]*)</span></td>', traveller)
    assert len(cells) == 6 and all(name in on_page.values() for _, name in cells)
    assert [name for _, name in cells][0::2] == [on_page["NS", pair] for pair, _ in cells[0::2]]
    assert [name for _, name in cells][1::2] == [on_page["EW", pair] for pair, _ in cells[1::2]]
    card = played.get("/scorer/pairs/EW/1?section=A").text
    assert on_page["EW", "1"] in card
    opponents = re.findall(r'<span class="pair-no">NS (\d)</span> — <span class="names">([^<]*)</span>', card)
    assert len(opponents) == 6 and all(name == on_page["NS", pair] for pair, name in opponents)
    assert "Zoë Ørsted" not in played.get("/results").text  # not published yet
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert played.post("/scorer/publish", data={"csrf": csrf, "minutes": "30"},
                       follow_redirects=False).status_code == 303
    with TestClient(app, base_url="https://testserver") as public:
        results = public.get("/results").text
    for name in on_page.values():
        assert f'<span class="names">{name}</span>' in results


def usebio_players(text):
    root = ET.fromstring(text.split("\n", 2)[2] if text.startswith("<?xml") else text)
    out = {}
    for pair in root.iter("PAIR"):
        number = pair.findtext("PAIR_NUMBER")
        direction = pair.findtext("DIRECTION")
        out[direction, number] = [p.findtext("PLAYER_NAME") for p in pair.iter("PLAYER")]
    return out


def test_the_usebio_names_the_players_of_a_howell(data, tmp_path):
    """One field (a 2-table Howell: pair numbers are the contestants): every PAIR has its two PLAYER_NAMEs."""
    raw = ev.to_dict(ev.new_event("Club", {"type": "howell", "tables": 2}, boards_per_round=2))
    given = {1: ["Ann Smith", "Bob Jones"], 2: ["Cat Lee", "Dan Roe"], 3: ["Eve Ng", "Fay Orr"],
             4: ["Gus Pry", "Hal Quin"]}
    for pair in raw["sessions"][0]["sections"][0]["pairs"]:
        pair["players"] = [{"name": n} for n in given[pair["number"]]]
    howell = ev.from_dict(raw)
    with ApiClient(create_app(data, event=raw, tables={"T01": 1, "T02": 2})) as c:
        seqs = {"T01": 1, "T02": 1}
        for rnd in range(1, howell.sessions[0].sections[0].movement_plan().rounds + 1):
            for a in seating.assignments(howell, rnd):
                unit = f"T0{a['table']}"
                for board in a["boards"]:
                    assert sync(c, nt(seqs[unit], board, 8, section="A", table=a["table"], round=rnd, ns=a["ns"],
                                      ew=a["ew"]), unit=unit).status_code == 200
                    seqs[unit] += 4
        found = usebio_players(c.get("/api/v1/export/usebio").text)
    assert {number: names for (_, number), names in found.items()} == {str(k): v for k, v in given.items()}


def test_the_directors_fix_is_recorded_and_every_export_names_the_new_players(played, data):
    csrf = log_in(played)
    page = played.get("/director/pairs").text
    assert "Zoë Ørsted" in page and "(2001)" in page
    form = re.search(r'<form method="post" action="/director/players"[^>]*aria-label="Fix the players of EW 1">(.*?)'
                     r"</form>", page, re.S).group(1)
    idem = re.search(r'name="idem" value="([^"]+)"', form).group(1)
    fix = {"csrf": csrf, "idem": idem, "section": "A", "direction": "EW", "pair": "1", "name0": "Gus Pry",
           "id0": "", "name1": "Lou Vance", "id1": "3003", "reason": "Zoë was taken ill; Lou played"}
    r = played.post("/director/players", data=fix, follow_redirects=False)
    assert r.status_code == 303, r.text
    again = played.post("/director/players", data=fix, follow_redirects=False)  # the same form sent twice
    assert again.status_code == 303
    rows = query(data, "SELECT body, by_whom, at FROM director_actions WHERE kind = 'players'")
    assert len(rows) == 1
    body, by, at = rows[0]["body"], rows[0]["by_whom"], rows[0]["at"]
    body = json.loads(body)
    assert by == "director" and at.startswith("20")
    assert body["before"] == [{"name": "Gus Pry", "id": None}, {"name": "Zoë Ørsted", "id": 2001}]
    assert body["players"] == [{"name": "Gus Pry", "id": None}, {"name": "Lou Vance", "id": "3003"}]
    assert body["reason"] == "Zoë was taken ill; Lou played"
    names = {**NAMES, ("EW", "1"): "Gus Pry - Lou Vance"}
    check_pbn(played.get("/api/v1/export/pbn").text, names)
    ranking = played.get("/api/v1/ranking").json()["ranking"]
    assert {(r["direction"], r["pair"]): r["names"] for r in ranking} == names
    scorecards = played.get("/api/v1/export/csv", params={"table": "scorecards"}).content.decode("utf-8-sig")
    assert "Lou Vance" in scorecards and "Ørsted" not in scorecards
    audit = played.get("/director").text
    assert "Gus Pry - Zoë Ørsted -&gt; Gus Pry - Lou Vance" in audit
    assert "Lou Vance" in played.get("/director/pairs").text


def test_a_fix_without_the_directors_login_or_its_csrf_token_is_refused(played, app, data):
    before = counts(data)
    fix = {"section": "A", "direction": "NS", "pair": "2", "name0": "Mo West", "name1": "Dan Roe", "idem": "k1"}
    with TestClient(app, base_url="https://testserver") as anonymous:
        assert anonymous.post("/director/players", data=dict(fix, csrf="x"), follow_redirects=False).status_code == 403
        assert anonymous.get("/director/pairs", follow_redirects=False).status_code == 303
    log_in(played)
    assert played.post("/director/players", data=fix, follow_redirects=False).status_code == 403  # no token
    assert played.post("/director/players", data=dict(fix, csrf="forged"), follow_redirects=False).status_code == 403
    assert counts(data) == before
    assert set(before) == set(STORE_TABLES)


def test_a_fix_is_checked(played, data):
    csrf = log_in(played)
    base = {"csrf": csrf, "section": "A", "direction": "NS", "pair": "2", "name0": "Mo West", "name1": "Dan Roe"}
    for change, why in (({"pair": "9"}, "no NS 9 in section A"), ({"direction": ""}, "direction: NS or EW"),
                        ({"name1": " "}, "players[1].name: the player needs a name"),
                        ({"name0": "Cat Lee", "id0": "EBU7"}, "NS 2 already has these players")):
        r = played.post("/director/players", data=dict(base, **change, idem=why), follow_redirects=False)
        assert r.status_code in (400, 404, 409) and why in r.text, (change, r.status_code, r.text[:300])
    assert counts(data)["director_actions"] == 0


def test_a_team_match_names_each_table_by_the_lines_that_sat_there(data):
    """Teams: a team is named by its name; at table 1 the home NS pair faces the away EW pair, at table 2 the
    away NS pair faces the home EW pair, and the PBN seats name them so."""
    raw = ev.to_dict(ev.new_event("Match", {"type": "teams", "rounds": 2}, boards_per_round=2))
    home, away = raw["sessions"][0]["sections"][0]["teams"]
    home.update(ns=[{"name": "Hana N"}, {"name": "Hugo S"}], ew=[{"name": "Hedy E"}, {"name": "Hal W"}])
    away.update(ns=[{"name": "Abe N"}, {"name": "Ada S"}], ew=[{"name": "Avi E"}, {"name": "Amy W"}])
    match = ev.from_dict(raw)
    with ApiClient(create_app(data, event=raw, tables={"T01": 1, "T02": 2}, method="teams")) as c:
        seqs = {"T01": 1, "T02": 1}
        for rnd in (1, 2):
            for a in seating.assignments(match, rnd):
                unit = f"T0{a['table']}"
                for board in a["boards"]:
                    assert sync(c, nt(seqs[unit], board, 7 + board % 3, section="A", table=a["table"], round=rnd,
                                      ns=a["ns"], ew=a["ew"]), unit=unit).status_code == 200
                    seqs[unit] += 4
        ranking = c.get("/api/v1/ranking").json()["ranking"]
        games = parse(c.get("/api/v1/export/pbn").text).games
    assert {r["pair"]: r["names"] for r in ranking} == {"1": "Home", "2": "Away"}
    assert {r["pair"]: len(r["players"]) for r in ranking} == {"1": 4, "2": 4}
    expected = {"1": ["Hana N", "Hugo S", "Avi E", "Amy W"], "2": ["Abe N", "Ada S", "Hedy E", "Hal W"]}
    assert len(games) == 8
    for g in games:
        assert [g.get(k) for k in ("North", "South", "East", "West")] == expected[g.get("Table")]


def test_the_api_fixes_a_pairs_players_once_per_key_and_lists_them(played, app, data):
    fix = {"section": "A", "direction": "NS", "pair": 3, "players": [{"name": "Eve Ng"}, {"name": "Max Zed", "id": 42}],
           "reason": "Fay Orr did not come", "by": "Jo (TD)"}
    first = played.post("/api/v1/players", json=fix, headers={"Idempotency-Key": "fix-ns3"})
    assert first.status_code == 201, first.text
    again = played.post("/api/v1/players", json=fix, headers={"Idempotency-Key": "fix-ns3"})
    assert again.json() == first.json()
    assert first.json()["action"]["before"] == [{"name": "Eve Ng", "id": None}, {"name": "Fay Orr", "id": None}]
    listing = played.get("/api/v1/players").json()
    assert len(listing["fixes"]) == 1 and listing["fixes"][0]["by"] == "Jo (TD)"
    ns3 = next(p for p in listing["sections"]["A"] if (p["direction"], p["pair"]) == ("NS", "3"))
    assert ns3["names"] == "Eve Ng - Max Zed" and ns3["players"][1] == {"name": "Max Zed", "id": "42"}
    assert ns3["fix"] == listing["fixes"][0]["id"]
    ranking = played.get("/api/v1/ranking").json()["ranking"]
    assert {(r["direction"], r["pair"]): r["names"] for r in ranking} == {**NAMES, ("NS", "3"): "Eve Ng - Max Zed"}
    with TestClient(app) as no_token:
        assert no_token.post("/api/v1/players", json=fix).status_code == 401
    assert len(query(data, "SELECT id FROM director_actions WHERE kind = 'players'")) == 1
    bad = played.post("/api/v1/players", json=dict(fix, players=[{"name": "One"}]))
    assert bad.status_code == 422


def test_the_collector_keeps_the_names_not_the_register_file(data, event_path):
    """The event loaded through the API with a register: stored with the names and numbers filled in, so a restart
    after the CSV file is gone still names every pair."""
    raw = json.loads(event_path.read_text(encoding="utf-8"))
    raw.pop("register")  # a request names no file: it sends the register's text (issue 24.3)
    register = (event_path.parent / "members.csv").read_text(encoding="utf-8")
    with ApiClient(create_app(data)) as c:
        r = c.post("/api/v1/event", json={"event": raw, "tables": TABLES, "register_csv": register})
        assert r.status_code == 200
    (event_path.parent / "members.csv").unlink()
    stored = json.loads(query(data, "SELECT body FROM setup")[0]["body"])
    assert "register" not in stored
    with ApiClient(create_app(data)) as c:
        play(c, _without_register(event_path))
        ranking = c.get("/api/v1/ranking").json()["ranking"]
    assert {(r["direction"], r["pair"]): r["names"] for r in ranking} == NAMES


def _without_register(path):
    """The event file for the test's own movement (play() reads only the movement from it)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw.pop("register")
    for pair in raw["sessions"][0]["sections"][0]["pairs"]:
        pair.pop("players")
    out = path.with_name("movement.json")
    out.write_text(json.dumps(raw), encoding="utf-8")
    return out
