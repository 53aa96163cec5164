"""The hub's combined files name each pair's own players (issue 40, item 2): in a Mitchell heat NS pair 1 and EW
pair 1 of a club are two pairs, and the USEBIO and PBN files give each its own names, read back with xmltodict
(how the ABF's importer reads USEBIO) and with endplay's PBN reader."""
from datetime import UTC, datetime

import xmltodict
from endplay.parsers import pbn as endplay_pbn

from bidwire_host.hub import exports, usebio_in
from bidwire_host.scoring.model import law77_score


def _row(club, board, ns, ew, score):
    return {"club_id": club, "session": "", "section": "A", "board": board, "ns": ns, "ew": ew,
            "ns_names": f"North{club}{ns} & South{club}{ns}", "ew_names": f"East{club}{ew} & West{club}{ew}",
            "contract": "1NT", "declarer": "N", "tricks": 7, "score_ns": score, "adjusted": None, "version": 1}


SIM = {"name": "Names sim", "release_at": datetime(2026, 12, 4, 21, 0, tzinfo=UTC), "scoring": "mp",
       "winners": "two", "hands": {str(b): "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
                                   for b in range(1, 5)}}
# Each club's NS pair n meets EW pair n and EW pair n+1 (mod 2): the same numbers sit both ways
ROWS = [_row(c, b, ns, ew, s) for c in ("C1", "C2") for b, (ns, ew, s) in
        enumerate([("1", "1", 90), ("2", "2", 120), ("1", "2", -50), ("2", "1", 90)], 1)]


def test_the_usebio_names_each_pair_with_its_own_players():
    event = xmltodict.parse(exports.usebio_xml(SIM, ROWS))["USEBIO"]["EVENT"]
    pairs = event["PARTICIPANTS"]["PAIR"]
    assert len(pairs) == 8  # 2 clubs x 2 numbers x 2 directions
    for p in pairs:
        club, _, number = p["PAIR_NUMBER"].rpartition("-A-")
        assert number.endswith(p["DIRECTION"])  # unique in the event: a Mitchell's number carries its direction
        number = number.removesuffix(p["DIRECTION"])
        side = ("North", "South") if p["DIRECTION"] in ("NS", "N", "North") else ("East", "West")
        names = [x["PLAYER_NAME"] for x in p["PLAYER"]]
        assert names == [f"{side[0]}{club}{number}", f"{side[1]}{club}{number}"], p


def test_the_pbn_total_score_table_names_each_pair_with_its_own_players():
    text = exports.pbn(SIM, ROWS)
    games = endplay_pbn.loads(text)  # a reader nobody here wrote takes the file: a game per result
    assert len(games) == len(ROWS)
    for game, row in zip(games, sorted(ROWS, key=lambda r: (r["board"], r["club_id"])), strict=True):
        assert (game.board_num, str(game.contract)) == (row["board"], "1NTN=")  # no game with an empty Contract
        ns, ew = row["ns_names"].split(" & "), row["ew_names"].split(" & ")
        assert [game.info[s] for s in ("North", "South", "East", "West")] == ns + ew  # its own players, seat by seat
    after = text[text.index("[TotalScoreTable"):].splitlines()[1:]
    lines = after[:next(i for i, line in enumerate(after) if not line.strip())]  # the table's rows
    assert len({tuple(line.split()[1:3]) for line in lines}) == 8  # rank, direction, pair id, names...
    for line in lines:
        _, direction, pair = line.split()[:3]
        club, _, n = pair.rpartition("-A-")
        want = f"North{club}{n} & South{club}{n}" if direction == "NS" else f"East{club}{n} & West{club}{n}"
        assert want in line, line


def test_sim_xml_reads_back_through_the_hubs_own_reader_unchanged():
    """The hub's combined USEBIO is a file its own club-upload reader takes: every result back with its pairs'
    combined ids (club-section-number), its own names, and its score (issue 40 item 2)."""
    rows = [dict(r, tricks=6 + r["board"] % 2) for r in ROWS]  # made on odd boards, one down on even ones
    for r in rows:
        r["score_ns"] = law77_score(r["board"], "1NT", "N", r["tricks"])  # the reader checks Law 77
    back = usebio_in.parse(exports.usebio_xml(SIM, rows).encode())
    assert len(back) == len(rows)
    want = {(r["board"], f"{r['club_id']}-A-{r['ns']}", f"{r['club_id']}-A-{r['ew']}"): r for r in rows}
    for got in back:
        row = want.pop((got.board, got.ns, got.ew))
        assert (got.contract, got.declarer, got.tricks, got.score_ns) == ("1NT", "N", row["tricks"], row["score_ns"])
        assert (got.ns_names, got.ew_names) == (row["ns_names"], row["ew_names"])
    assert want == {}


def test_the_sims_usebio_carries_the_masterpoints_of_its_scale():
    """A sim that names a masterpoint scale: sim.xml says so and gives each pair its award (issue 40: "a sim
    organiser sending masterpoints"). Here every pair of a line ties (50 %), so the four places' awards of each
    line are shared: (400 + 200 + 100 + 100) / 4 = 200 hundredths each, in each of the two fields."""
    sim = dict(SIM, masterpoints={"scale": "Sim ladder", "awards": [400, 200, 100, 100]})
    event = xmltodict.parse(exports.usebio_xml(sim, ROWS))["USEBIO"]["EVENT"]
    assert (event["MPS_AWARDED_FLAG"], event["MASTER_POINT_SCALE"]) == ("Y", "Sim ladder")
    assert [p["MASTER_POINTS_AWARDED"] for p in event["PARTICIPANTS"]["PAIR"]] == ["200"] * 8
    assert "MASTER_POINTS_AWARDED" not in exports.usebio_xml(SIM, ROWS)  # no scale, no award


def test_the_organiser_names_the_scale_when_setting_up_the_sim(hub):
    with hub.organiser() as org:
        r = org.post("/api/v1/sims", json={"id": "points", "name": "Points", "boards": [1],
                                           "release_at": "2026-12-04T20:00:00+00:00",
                                           "masterpoints": {"scale": "EBU club"}})
        assert r.status_code == 201, r.text
        bad = org.post("/api/v1/sims", json={"id": "points-bad", "name": "Points", "boards": [1],
                                             "release_at": "2026-12-04T20:00:00+00:00",
                                             "masterpoints": {"scale": "Our ladder"}})
        assert bad.status_code == 422 and bad.json()["field"].startswith("body.masterpoints"), bad.text
        audit = org.get("/api/v1/sims/points/audit").json()
    assert audit[0]["detail"]["masterpoints"] == {"scale": "EBU club"}


def test_each_player_is_credited_by_his_national_number():
    """A masterpoint submission credits players by NATIONAL_ID_NUMBER (issue 40 item 2): the numbers a club sent
    with its names ("1001 & 1002", in the names' order) are on each PLAYER of the combined USEBIO, every pair its
    own, and read back by the hub's own reader."""
    rows = [dict(r, ns_ids=f"{r['club_id']}{r['ns']}N & {r['club_id']}{r['ns']}S",
                 ew_ids=f"{r['club_id']}{r['ew']}E & {r['club_id']}{r['ew']}W") for r in ROWS]
    text = exports.usebio_xml(SIM, rows)
    pairs = xmltodict.parse(text)["USEBIO"]["EVENT"]["PARTICIPANTS"]["PAIR"]
    assert len(pairs) == 8
    for p in pairs:
        club, _, number = p["PAIR_NUMBER"].rpartition("-A-")
        number = number.removesuffix(p["DIRECTION"])
        seats = "NS" if p["DIRECTION"] == "NS" else "EW"
        assert [(x["PLAYER_NAME"], x["NATIONAL_ID_NUMBER"]) for x in p["PLAYER"]] == [
            (f"{('North', 'East')[seats == 'EW']}{club}{number}", f"{club}{number}{seats[0]}"),
            (f"{('South', 'West')[seats == 'EW']}{club}{number}", f"{club}{number}{seats[1]}")], p
    back = usebio_in.parse(exports.usebio_xml(SIM, [dict(r, score_ns=law77_score(r["board"], "1NT", "N", 7))
                                                     for r in rows]).encode())  # (the reader checks Law 77)
    got = {(r.ns, r.ns_ids) for r in back} | {(r.ew, r.ew_ids) for r in back}
    assert ("C1-A-1", "C11N & C11S") in got and ("C2-A-2", "C22E & C22W") in got and all(i for _, i in got)
