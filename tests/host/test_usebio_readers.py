"""USEBIO as its readers read it (issue 27): the ABF's results importer takes a USEBIO file with xmltodict and
reads `USEBIO/EVENT/PARTICIPANTS/PAIR`, `EVENT/BOARD`, `USEBIO/HANDSET/BOARD`, `EVENT/DATE` as dd/mm/yyyy,
`EVENT/WINNER_TYPE` and `PAIR/MASTER_POINTS_AWARDED` (an int, hundredths of a masterpoint), `PLACE` with int() and
the matchpoints with float(). `abf_read` below goes through those same paths, so a KeyError or a ValueError here
is what the importer would raise. Checked on the demo's session (its event file, players and hand records, every
table played through the collector) and on a two-section event; and the EBU club scale against its table, worked
by hand."""
import datetime as dt
import json
from fractions import Fraction

import collector_kit
import pytest
import xmltodict
from abf_usebio import abf_read
from collector_kit import ApiClient, played, sync, write_keyring
from endplay.parsers import pbn as endplay_pbn

from bidwire_host.demo.play import demo_event, write_event
from bidwire_host.event import model as ev
from bidwire_host.event import seating
from bidwire_host.event.model import EventError
from bidwire_host.formats import usebio
from bidwire_host.formats.publish import EventInfo, publication
from bidwire_host.scoring import Result
from bidwire_host.scoring.masterpoints import EBU_CLUB, awards, ebu_club_places
from bidwire_host.scoring.model import law77_score
from bidwire_host.scoring.ranking import rank
from bidwire_host.server import create_app

MORE_UNITS = {"T04": "4d" * 32, "T05": "d4" * 32, "T06": "6e" * 32}


def north_plays_1nt(seq, board, tricks, **assignment):
    """North declares 1NT on every board, whoever deals: passes round to North, 1NT, three passes."""
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{s}:P" for s in seats[:seats.index("N")]] + ["N:1N", "E:P", "S:P", "W:P"]
    return played(seq, board, inputs, "1NT", "N", tricks, law77_score(board, "1NT", "N", tricks), **assignment)


def play_every_round(c, event, units, tricks):
    """Every table of every section plays its boards in every round; `tricks(assignment)` says how many North makes."""
    seqs = dict.fromkeys(units.values(), 1)
    rounds = max(s.movement_plan().rounds for s in event.sessions[0].sections)
    for rnd in range(1, rounds + 1):
        for a in seating.assignments(event, rnd):
            unit = units[a["section"], a["table"]]
            for board in a["boards"]:
                r = sync(c, north_plays_1nt(seqs[unit], board, tricks(a), section=a["section"], table=a["table"],
                                            round=rnd, ns=a["ns"], ew=a["ew"]), unit=unit)
                assert r.status_code == 200, r.text
                seqs[unit] += 4


@pytest.fixture
def six_units(data, monkeypatch):
    for unit, secret in MORE_UNITS.items():
        monkeypatch.setitem(collector_kit.SECRETS, unit, secret)
    write_keyring(data / "keyring.json", collector_kit.SECRETS)
    return data


# --- the demo's session -------------------------------------------------------------------------------------------

def test_the_abf_importer_reads_the_demos_session(six_units, tmp_path):
    path = tmp_path / "demo" / "event.json"
    path.parent.mkdir()
    write_event(demo_event({"type": "mitchell", "tables": 5}, 2, 2026), path, 2026)
    event = ev.from_dict(json.loads(path.read_text(encoding="utf-8")), path.parent)
    assert event.masterpoints.scale == EBU_CLUB  # the demo names the EBU's club scale
    units = {("A", t): f"T0{t}" for t in range(1, 6)}
    with ApiClient(create_app(six_units, event=path, tables={u: t for (_, t), u in units.items()},
                              method="mp")) as c:
        play_every_round(c, event, units, lambda a: 6 + (a["table"] + a["round"]) % 4)
        r = c.get("/api/v1/export/usebio")
    assert r.status_code == 200, r.text
    got = abf_read(r.text)
    assert got["date"] == dt.date.fromisoformat(event.sessions[0].date) and got["winner_type"] == "2"
    section = event.sessions[0].sections[0]
    named = {(p.line, f"{p.number}{p.line}"): ([x.name for x in p.players], [str(x.id) for x in p.players])
             for p in section.pairs}  # a Mitchell's PAIR_NUMBER is unique: 1NS, 1EW
    assert {(p["direction"], p["pair"]): (p["players"], p["numbers"]) for p in got["pairs"]} == named
    # 5 tables x 2 boards a round = 10 boards: under 12 the club scale awards nothing, so every pair reads 0.
    assert [p["masterpoints"] for p in got["pairs"]] == [0.0] * 10
    for direction in ("NS", "EW"):
        assert sorted(p["place"] for p in got["pairs"] if p["direction"] == direction)[0] == 1
    assert sorted(got["boards"]) == list(range(1, 11))
    for lines in got["boards"].values():  # each board played at all 5 tables: top 2 x (5 - 1) = 8 on each line
        assert len(lines) == 5 and all(ns + ew == 8 for _, _, ns, ew, _ in lines)
        assert sum(ns for _, _, ns, _, _ in lines) == 5 * 4  # 5 results, each 2 per result beaten, 1 per tie
    with open(path.parent / event.sessions[0].hand_records, encoding="utf-8") as f:
        dealt = {b.board_num: b.deal for b in endplay_pbn.load(f)}
    assert sorted(got["hands"]) == sorted(dealt)
    for number, hands in got["hands"].items():
        assert hands["North"] == dealt[number].north.to_pbn() and hands["West"] == dealt[number].west.to_pbn()


# --- a two-section event ------------------------------------------------------------------------------------------

def two_sections(**extra):
    data = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2,
                                   date="2025-03-04"))
    first = data["sessions"][0]["sections"][0]
    data["sessions"][0]["sections"].append({**json.loads(json.dumps(first)), "name": "B"})
    for section in data["sessions"][0]["sections"]:
        for p in section["pairs"]:
            tag = f"{section['name']}{p['line']}{p['number']}"
            p["players"] = [{"name": f"North {tag}", "id": f"{tag}1"}, {"name": f"South {tag}", "id": f"{tag}2"}]
    data.update(extra)
    return data


def test_the_abf_importer_reads_each_section_of_a_two_section_event(six_units):
    # North makes 6 + the NS pair's number tricks in 1NT at every table (7, 8, 9): on every board NS 3 beats
    # NS 2 beats NS 1. So NS 3 has 4 of 4 on all 6 boards (100%), NS 2 2 of 4 (50%), NS 1 0%. Each EW pair
    # meets each NS pair on 2 boards: 0 + 0 + 2 + 2 + 4 + 4 = 12 of 24, 50%, all three tied first.
    # The club's own scale [10, 5]: NS 3 gets 10, NS 2 5, NS 1 none; the tied EW pairs share 10 + 5 + 0 = 15,
    # 5 each.
    data = two_sections(masterpoints={"scale": "Club ladder", "awards": [10, 5]})
    event = ev.from_dict(data)
    units = {("A", 1): "T01", ("A", 2): "T02", ("A", 3): "T03", ("B", 1): "T04", ("B", 2): "T05", ("B", 3): "T06"}
    with ApiClient(create_app(six_units, event=data, tables={u: [s, t] for (s, t), u in units.items()},
                              method="mp")) as c:
        play_every_round(c, event, units, lambda a: 6 + int(a["ns"]))
        texts = {s: c.get("/api/v1/export/usebio", params={"section": s}) for s in ("A", "B")}
    for section, r in texts.items():
        assert r.status_code == 200, r.text
        got = abf_read(r.text)
        assert got["description"].endswith(f", section {section}") and got["winner_type"] == "2"
        assert got["date"] == dt.date(2025, 3, 4)
        assert {(p["direction"], p["pair"]): (p["place"], p["percentage"], p["masterpoints"]) for p in got["pairs"]} \
            == {("NS", "3NS"): (1, "100", 0.10), ("NS", "2NS"): (2, "50", 0.05), ("NS", "1NS"): (3, "0", 0.0),
                ("EW", "1EW"): (1, "50", 0.05), ("EW", "2EW"): (1, "50", 0.05), ("EW", "3EW"): (1, "50", 0.05)}
        assert {p["players"][0] for p in got["pairs"]} == {f"North {section}{d}{n}" for d in ("NS", "EW")
                                                            for n in (1, 2, 3)}  # this section's pairs only
        assert len(got["boards"]) == 6 and all(len(lines) == 3 for lines in got["boards"].values())
    root = xmltodict.parse(texts["A"].text)["USEBIO"]
    assert (root["EVENT"]["MPS_AWARDED_FLAG"], root["EVENT"]["MASTER_POINT_SCALE"]) == ("Y", "Club ladder")


# --- the EBU's club scale, worked from its table --------------------------------------------------------------------

@pytest.mark.parametrize("tables, boards, two_winner, expected", [
    (4, 24, False, [18, 12, 6]),                    # a third of 4 tables x 2 pairs: ceil(8/3) = 3 places, 3 x 6
    (10, 20, False, [42, 36, 30, 24, 18, 12, 6]),   # ceil(20/3) = 7 places
    (6, 36, False, [36, 30, 24, 18, 12, 6]),        # 36 boards: half, 6 places
    (5, 27, True, [12, 6]),                         # a Mitchell line of 5: ceil(5/3) = 2 places
    (7, 16, True, [12, 6]),                         # under 18 boards a quarter: ceil(7/4) = 2
    (3, 24, False, [12, 6]),                        # the smallest single-winner entry: ceil(6/3) = 2
])
def test_ebu_club_scale_places(tables, boards, two_winner, expected):
    assert ebu_club_places(tables, boards, two_winner) == expected


# Rows of the handbook's own table (its appendix, single-winner pairs), as quoted on the EBU's forum
# (forums.ebu.co.uk/discussion/comment/9215): "25-26 tables 13 awards if 1/4, 19 tables 13 awards if 1/3,
# 13 tables 13 awards if 1/2", and a 27-pair field is 13 full tables, so 13 awards at a half, not 14.
@pytest.mark.parametrize("tables, boards", [(25, 16), (26, 16), (19, 24), (13, 36)])
def test_ebu_club_scale_number_of_awards_from_the_handbook_table(tables, boards):
    assert len(ebu_club_places(tables, boards, False)) == 13


def test_ebu_club_scale_counts_full_tables_as_the_handbook_table_does():
    got = awards({"scale": EBU_CLUB}, standings(*range(80, 53, -1)), boards=36, two_fields=False)
    assert len(got) == 27 and sum(1 for a in got.values() if a) == 13


def test_ebu_club_scale_caps_the_top_award():
    # 40 tables, 16 boards: a quarter of 80 pairs is 20 places, 20 x 6 = 120, capped at 75 under 18 boards:
    # 120, 114, ... 78 (the first 8) are all 75, then 72, 66, ... down to 6.
    places = ebu_club_places(40, 16, False)
    assert places == [75] * 8 + list(range(72, 0, -6)) and len(places) == 20


@pytest.mark.parametrize("tables, boards, two_winner", [(10, 11, False), (2, 24, False), (4, 24, True)])
def test_ebu_club_scale_awards_nothing_under_its_minimum(tables, boards, two_winner):
    assert ebu_club_places(tables, boards, two_winner) == []  # under 12 boards; under 3 (or 5) full tables


def standings(*percentages):
    return rank({str(k + 1): Fraction(p) for k, p in enumerate(percentages)})


def test_ebu_club_ties_share_their_places_rounded_up_never_under_six():
    # 8 pairs (4 tables), 24 boards: 18, 12, 6 for the first three places.
    scale = {"scale": EBU_CLUB}
    assert awards(scale, standings(60, 55, 52, 50, 49, 48, 45, 41), boards=24, two_fields=False) == \
        {"1": 18, "2": 12, "3": 6, "4": 0, "5": 0, "6": 0, "7": 0, "8": 0}
    tied = awards(scale, standings(60, 55, 55, 50, 49, 48, 45, 41), boards=24, two_fields=False)
    assert (tied["2"], tied["3"]) == (9, 9)  # (12 + 6) / 2
    tied = awards(scale, standings(60, 55, 52, 52, 49, 48, 45, 41), boards=24, two_fields=False)
    assert (tied["3"], tied["4"]) == (6, 6)  # (6 + 0) / 2 = 3, raised to the scale's smallest award, 6
    tied = awards(scale, standings(60, 60, 60, 50, 49, 48, 45, 41), boards=24, two_fields=False)
    assert (tied["1"], tied["2"], tied["3"], tied["4"]) == (12, 12, 12, 0)  # (18 + 12 + 6) / 3


def test_a_clubs_own_scale_shares_ties_rounded_up():
    assert awards({"scale": "Ladder", "awards": [7, 4]}, standings(60, 60, 50), boards=24, two_fields=False) == \
        {"1": 6, "2": 6, "3": 0}  # (7 + 4) / 2 = 5.5, rounded up
    assert awards(None, standings(60), boards=24, two_fields=False) is None


def test_masterpoints_in_the_usebio_only_when_the_event_names_a_scale():
    results = [Result.played(b, str(ns), str(ew), "1NT", "N", 6 + ns) for b in (1, 2) for ns, ew in ((1, 2), (3, 4))]
    without = xmltodict.parse(usebio.dumps(publication(results, EventInfo(method="mp"))))["USEBIO"]["EVENT"]
    assert all("MASTER_POINTS_AWARDED" not in p for p in without["PARTICIPANTS"]["PAIR"])
    assert "MPS_AWARDED_FLAG" not in without


@pytest.mark.parametrize("masterpoints, message", [
    ({"scale": "Ladder"}, "masterpoints.awards: scale 'Ladder' is not built in"),
    ({"scale": EBU_CLUB, "awards": [10]}, "masterpoints.awards: the EBU club scale's awards come from the EBU"),
    ({"scale": "Ladder", "awards": [10, -1]}, "masterpoints.awards: an award is a whole number of points, 0 or"),
    ({"scale": " Ladder"}, "masterpoints.scale: a name of 1-100 characters"),
    ({"scale": "Ladder", "awards": [1.5]}, "masterpoints.awards[0]: must be a whole number"),
    ({"name": "Ladder"}, "masterpoints.name: is not a field here"),
])
def test_a_masterpoint_scale_the_event_file_gets_wrong_is_named(masterpoints, message):
    with pytest.raises(EventError) as e:
        ev.from_dict(two_sections(masterpoints=masterpoints))
    assert message in str(e.value)


def test_the_ebu_pairs_scale_is_refused_for_a_team_match():
    data = ev.to_dict(ev.new_event("Match", {"type": "teams"}, boards_per_round=4))
    data["masterpoints"] = {"scale": EBU_CLUB}
    with pytest.raises(EventError) as e:
        ev.from_dict(data)
    assert "masterpoints.scale: the EBU club scale here is the pairs scale" in str(e.value)
    data["masterpoints"] = {"scale": "Match points", "awards": [20, 10]}
    assert ev.from_dict(data).masterpoints.awards == [20, 10]
