"""USEBIO 1.2 export (docs/scorer.md "USEBIO"): read back with ElementTree, every player with name and number, the
nesting, LEAD and LIN_DATA (read again by endplay's LIN reader, an independent one), HANDSET against the hand
records, places with ties, teams, the club and the EBU fields from the event file."""
import xml.etree.ElementTree as ET

import pytest
from collector_kit import ApiClient, played, sync
from endplay.config import suppress_unicode
from endplay.parsers import lin as endplay_lin
from endplay.types import Player as Seat

from bidwire_host.event import files as event_files
from bidwire_host.event import model as ev
from bidwire_host.event.model import EventError, Player
from bidwire_host.formats import usebio
from bidwire_host.formats.pbn import parse_deal
from bidwire_host.formats.pbn_import import HandRecord
from bidwire_host.formats.publish import AuctionCall, EventInfo, publication
from bidwire_host.scoring import Artificial, Result
from bidwire_host.scoring.model import law77_score
from bidwire_host.server import create_app

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
# The same deal as LIN's md writes it: dealer North (3), then South, West, North, East, suits S H D C.
MD = "3S765H432DAKQJCT98,S432HAKQJDT98C765,SAKQJHT98D765C432,ST98H765D432CAKQJ"
PLAYERS = {("NS", "1"): [Player("Ann Smith", "EBU1001"), Player("Bob Jones", "EBU1002")],
           ("EW", "1"): [Player("Cat Lee", 1003), Player("Dan Roe", "EBU1004")],
           ("NS", "2"): [Player("Eve Ash", "EBU2001"), Player("Fay Orr", "EBU2002")],
           ("EW", "2"): [Player("Gil Fox", "EBU2003"), Player("Hal Ng", "EBU2004")],
           ("NS", "3"): [Player("Ida Kay", "EBU3001"), Player("Jon Day", "EBU3002")],
           ("EW", "3"): [Player("Kim Poe", "EBU3003"), Player("Lou Vey", "EBU3004")]}
ALERTED = [AuctionCall("1S", seat="N"), AuctionCall("Pass", seat="E"),
           AuctionCall("2NT", True, "Jacoby: game-forcing raise", seat="S"), AuctionCall("Pass", seat="W"),
           AuctionCall("4S", seat="N"), AuctionCall("Pass", seat="E"), AuctionCall("Pass", seat="S"),
           AuctionCall("Pass", seat="W")]
# East's 1H is insufficient over 1S; South accepted it (Law 27 A) and bid on.
INSUFFICIENT = [AuctionCall(c, seat=s) for c, s in (("1S", "N"), ("1H", "E"), ("2S", "S"), ("Pass", "W"),
                                                       ("4S", "N"), ("Pass", "E"), ("Pass", "S"), ("Pass", "W"))]
# South bid 2S at East's turn; West accepted it (Law 29 A) and the auction went on from West.
OUT_OF_ROTATION = [AuctionCall(c, seat=s) for c, s in (("1S", "N"), ("2S", "S"), ("Pass", "W"), ("4S", "N"),
                                                          ("Pass", "E"), ("Pass", "S"), ("Pass", "W"))]


def calls(board):
    """The calls endplay read, as text ('1S', 'P', '2NT'), without its alert marks."""
    with suppress_unicode():
        return [str(c).rstrip("!*") for c in board.auction]


def hands():
    return {b: HandRecord(b, "NESW"[(b - 1) % 4], (0, 1, 2)[b - 1], parse_deal(DEAL)) for b in (1, 2)}


def mitchell():
    """A 3-table Mitchell of two boards with the players' numbers, hand records, three auctions and leads."""
    results = []
    for board in (1, 2):
        for t, tricks in ((1, 10), (2, 10), (3, 9)):
            results.append(Result.played(board, str(t), str(t), "4S", "N", tricks, table=str(t)))
    event = EventInfo("Tuesday pairs", "Hall", "2025.03.04", "mp", club="Bidwire BC", club_id="1234",
                      session="2", section="B", ebu={"charge_code": "10", "master_point_scale": "Club"})
    pub = publication(results, event, hands=hands(), players=PLAYERS, two_fields=True,
                      auctions={(1, 0): ALERTED, (1, 1): INSUFFICIENT, (1, 2): OUT_OF_ROTATION})
    pub.boards[0].leads.update({0: "HK", 1: "KH", 2: "D"})  # a card either way round, and a suit alone
    return pub


def read(pub):
    text = usebio.dumps(pub)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE USEBIO SYSTEM ')
    return ET.fromstring(text.split("\n", 2)[2])


def test_the_nesting_club_event_participants_boards_handset():
    """As the ABF's importer and the EBU's writer lay it out: PARTICIPANTS and BOARD straight under EVENT,
    HANDSET beside EVENT under USEBIO."""
    root = read(mitchell())
    assert root.tag == "USEBIO" and root.get("Version") == "1.2"
    assert [e.tag for e in root] == ["CLUB", "EVENT", "HANDSET"]
    assert root.findtext("CLUB/CLUB_NAME") == "Bidwire BC" and root.findtext("CLUB/CLUB_ID_NUMBER") == "1234"
    event = root.find("EVENT")
    assert event.get("EVENT_TYPE") == "MP_PAIRS"  # the ABF's importer refuses "PAIRS" (issue 40)
    assert [e.tag for e in event] == [
        "PROGRAM_NAME", "PROGRAM_VERSION", "EVENT_DESCRIPTION", "DATE", "WINNER_TYPE", "BOARD_SCORING_METHOD",
        "BOARDS_PLAYED", "SESSION_COUNT", "SECTION_COUNT", "MPS_AWARDED_FLAG", "MASTER_POINT_SCALE",
        "P2P_CHARGE_RATE", "PARTICIPANTS", "BOARD", "BOARD"]
    assert (event.findtext("DATE"), event.findtext("WINNER_TYPE"), event.findtext("BOARDS_PLAYED")) == \
        ("04/03/2025", "2", "2")
    assert (event.findtext("MPS_AWARDED_FLAG"), event.findtext("MASTER_POINT_SCALE"),
            event.findtext("P2P_CHARGE_RATE")) == ("Y", "Club", "10")
    assert event.find("SESSION") is None and root.find(".//SECTION") is None
    assert event.findtext("EVENT_DESCRIPTION") == "Tuesday pairs"  # one section: no section named
    line = event.find("BOARD/TRAVELLER_LINE")
    assert [e.tag for e in line] == ["NS_PAIR_NUMBER", "EW_PAIR_NUMBER", "CONTRACT", "PLAYED_BY", "LEAD", "TRICKS",
                                     "SCORE", "NS_MATCH_POINTS", "EW_MATCH_POINTS", "LIN_DATA"]


def test_every_player_with_name_and_number():
    root = read(mitchell())
    got = {}
    for pair in root.iterfind("EVENT/PARTICIPANTS/PAIR"):
        key = (pair.findtext("DIRECTION"), pair.findtext("PAIR_NUMBER"))
        got[key] = [(p.findtext("PLAYER_NAME"), p.findtext("NATIONAL_ID_NUMBER")) for p in pair.iterfind("PLAYER")]
    # in a Mitchell each PAIR_NUMBER is unique in the event, its direction after the number, as other programs write
    assert got == {(d, n + d): [(p.name, str(p.id)) for p in v] for (d, n), v in PLAYERS.items()}
    numbers = [line.findtext(f"{d}_PAIR_NUMBER") for line in root.iter("TRAVELLER_LINE") for d in ("NS", "EW")]
    assert numbers and all(n.endswith(("NS", "EW")) for n in numbers)
    assert {n for n in numbers} <= {n for _, n in got}  # each traveller line names a pair of PARTICIPANTS


def test_a_player_without_a_number_has_a_name_only():
    pub = mitchell()
    pub.players[("EW", "3")] = [Player("Kim Poe"), Player("Lou Vey", "EBU3004")]
    pair = [p for p in read(pub).iterfind(".//PAIR") if p.findtext("DIRECTION") == "EW" and
            p.findtext("PAIR_NUMBER") == "3EW"][0]
    assert [[e.tag for e in p] for p in pair.iterfind("PLAYER")] == [["PLAYER_NAME"],
                                                                       ["PLAYER_NAME", "NATIONAL_ID_NUMBER"]]


def test_lead_as_suit_then_rank():
    lines = read(mitchell()).find("EVENT/BOARD").findall("TRAVELLER_LINE")
    assert [x.findtext("LEAD") for x in lines] == ["HK", "HK", "D"]
    second = read(mitchell()).findall("EVENT/BOARD")[1].findall("TRAVELLER_LINE")
    assert len(second) == 3 and all(x.find("LEAD") is None for x in second)  # no lead recorded on board 2


def test_lin_data_of_an_alerted_auction():
    line = read(mitchell()).find("EVENT/BOARD/TRAVELLER_LINE")
    assert line.findtext("LIN_DATA") == (
        f"pn|Bob Jones,Dan Roe,Ann Smith,Cat Lee|st||md|{MD}|rh||ah|Board 1|sv|o|"
        "mb|1S|mb|p|mb|2N!|an|Jacoby: game-forcing raise|mb|p|mb|4S|mb|p|mb|p|mb|p|pg||mc|10|")
    board = endplay_lin.loads(line.findtext("LIN_DATA"))[0]
    assert board.contract.level + 6 + board.contract.result == int(line.findtext("TRICKS")) == 10  # mc: the tricks
    assert board.board_num == 1 and board.dealer == Seat.north
    assert (board.info["North"], board.info["South"], board.info["East"], board.info["West"]) == \
        ("Ann Smith", "Bob Jones", "Cat Lee", "Dan Roe")
    assert calls(board) == ["1S", "P", "2NT", "P", "4S", "P", "P", "P"]
    assert board.auction[2].alertable and board.auction[2].announcement == "Jacoby: game-forcing raise"
    assert [not c.alertable for i, c in enumerate(board.auction) if i != 2] == [True] * 7
    assert (board.contract.level, board.contract.denom.name, board.contract.declarer) == (4, "spades", Seat.north)
    assert board.deal.north.to_pbn() == "AKQJ.T98.765.432"
    assert board.deal.east.to_pbn() == "T98.765.432.AKQJ" and board.deal.west.to_pbn() == "432.AKQJ.T98.765"


def test_lin_data_of_accepted_irregularities_replays_with_the_tables_seats():
    """Issue 27: LIN has no irregularity mark, so the accepted insufficient bid is the bid with its note, and the
    player a call out of rotation skipped gets a pass saying he did not call: in rotation, each call lands at the
    seat that made it, and endplay finds the table's declarer (PLAYED_BY)."""
    lines = read(mitchell()).find("EVENT/BOARD").findall("TRAVELLER_LINE")
    insufficient, out_of_rotation = (x.findtext("LIN_DATA") for x in lines[1:])
    assert [x.findtext("TRICKS") for x in lines[1:]] == ["10", "9"]
    assert insufficient.endswith("ah|Board 1|sv|o|mb|1S|mb|1H!|an|insufficient bid, accepted (Law 27 A1)|mb|2S|mb|p|"
                                 "mb|4S|mb|p|mb|p|mb|p|pg||mc|10|")
    assert out_of_rotation.endswith("ah|Board 1|sv|o|mb|1S|mb|p!|an|East did not call: the next call, made out of "
                                    "rotation, was accepted (Law 29 A)|mb|2S|mb|p|mb|4S|mb|p|mb|p|mb|p|pg||mc|9|")
    read_back = endplay_lin.loads(insufficient)[0]
    assert calls(read_back) == ["1S", "1H", "2S", "P", "4S", "P", "P", "P"]
    assert endplay_lin.loads(out_of_rotation)[0].contract.declarer == Seat.north
    assert lines[2].findtext("PLAYED_BY") == "N"


def test_lin_data_without_a_hand_record_has_no_deal():
    pub = mitchell()
    pub.boards[0].deal = None
    data = read(pub).findtext("EVENT/BOARD/TRAVELLER_LINE/LIN_DATA")
    assert "md|" not in data and data.startswith("pn|Bob Jones,Dan Roe,Ann Smith,Cat Lee|st||ah|Board 1|")
    assert data.endswith("|pg||")  # no claim without the deal that says the dealer: endplay refuses one
    assert calls(endplay_lin.loads(data)[0])[:3] == ["1S", "P", "2NT"]


def test_handset_is_the_hand_records():
    root = read(mitchell())
    boards = root.findall("HANDSET/BOARD")
    assert [b.findtext("BOARD_NUMBER") for b in boards] == ["1", "2"]
    for b in boards:
        record = hands()[int(b.findtext("BOARD_NUMBER"))]
        assert b.findtext("DEALER") == record.dealer
        assert b.findtext("VULNERABILITY") == ("Love", "North-South", "East-West", "All")[record.vulnerable]
        got = {h.findtext("DIRECTION"): tuple(h.findtext(s) for s in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS"))
               for h in b.iterfind("HAND")}
        names = {"N": "North", "E": "East", "S": "South", "W": "West"}  # as the ABF's importer reads a HAND
        assert got == {names[seat]: cards for seat, cards in record.deal.hands.items()}
    assert (boards[1].findtext("DEALER"), boards[1].findtext("VULNERABILITY")) == ("E", "North-South")  # board 2


def test_no_handset_without_hand_records():
    pub = mitchell()
    for record in pub.boards:
        record.deal = None
    assert read(pub).find("HANDSET") is None


def test_places_with_ties_share_the_number():
    # Board 1: both tables +420 (a tie: 1 matchpoint each of a top of 2). Board 2: pair 2 makes 11 tricks NS
    # (+450, top) where pair 1 makes 10 (+420). Totals: pairs 2 and 3 have 3 of 4, pairs 1 and 4 have 1 of 4.
    results = [Result.played(1, "1", "2", "4S", "N", 10), Result.played(1, "3", "4", "4S", "N", 10),
               Result.played(2, "1", "3", "4S", "N", 10), Result.played(2, "2", "4", "4S", "N", 11)]
    root = read(publication(results, EventInfo(method="mp"), two_fields=False))
    got = {p.findtext("PAIR_NUMBER"): (p.findtext("PLACE"), p.findtext("TOTAL_SCORE"), p.findtext("PERCENTAGE"))
           for p in root.iterfind(".//PAIR")}
    assert got == {"2": ("1", "3", "75"), "3": ("1", "3", "75"), "1": ("3", "1", "25"), "4": ("3", "1", "25")}
    assert root.findtext("EVENT/WINNER_TYPE") == "1" and root.find(".//PAIR/DIRECTION") is None
    mps = [[(x.findtext("NS_PAIR_NUMBER"), x.findtext("NS_MATCH_POINTS"), x.findtext("EW_MATCH_POINTS"))
            for x in b.iterfind("TRAVELLER_LINE")] for b in root.iterfind("EVENT/BOARD")]
    assert mps == [[("1", "1", "1"), ("3", "1", "1")], [("1", "0", "2"), ("2", "2", "0")]]


def test_cross_imps_lines():
    # Board 1 (neither side vulnerable): +420, +420, +450. Pair 3 (+450) v +420 and +420: 1 IMP each, so 2 IMPs
    # over two comparisons: +1 cross-IMP; the two +420 lose 1 to it and tie each other: -0.5.
    results = [Result.played(1, "1", "2", "4S", "N", 10), Result.played(1, "3", "4", "4S", "N", 11),
               Result.played(1, "5", "6", "4S", "N", 10)]
    root = read(publication(results, EventInfo(method="cross-imps"), two_fields=False))
    assert root.findtext("EVENT/BOARD_SCORING_METHOD") == "CROSS_IMPS"
    assert [(x.findtext("NS_CROSS_IMP_POINTS"), x.findtext("EW_CROSS_IMP_POINTS"))
            for x in root.iterfind(".//TRAVELLER_LINE")] == [("-0.5", "0.5"), ("1", "-1"), ("-0.5", "0.5")]
    assert root.find(".//PAIR/PERCENTAGE") is None


def test_artificial_score_and_no_lin_for_an_adjusted_row():
    results = [Result.played(1, "1", "1", "4S", "N", 10, table="1"),
               Result(1, "2", "2", adjusted=Artificial("A+", "A-"), table="2")]
    pub = publication(results, EventInfo(method="mp"), two_fields=True, auctions={(1, 1): ALERTED})
    lines = read(pub).findall(".//TRAVELLER_LINE")
    assert lines[1].findtext("SCORE") == "A6040"
    assert [e.tag for e in lines[1]] == ["NS_PAIR_NUMBER", "EW_PAIR_NUMBER", "SCORE", "NS_MATCH_POINTS",
                                         "EW_MATCH_POINTS"]


def test_teams_with_their_players():
    results = [Result.played(1, "1", "2", "4S", "N", 10), Result.played(1, "2", "1", "3S", "N", 10)]
    squads = {"1": [Player("Ann Smith", "EBU1001"), Player("Bob Jones", "EBU1002"), Player("Cat Lee", "EBU1003"),
                    Player("Dan Roe", "EBU1004")],
              "2": [Player("Eve Ash", "EBU2001"), Player("Fay Orr", "EBU2002"), Player("Gil Fox", "EBU2003"),
                    Player("Hal Ng", "EBU2004"), Player("Ida Kay", "EBU2005")]}
    pub = publication(results, EventInfo(method="teams"), names={"1": "Home", "2": "Away"}, players=squads)
    root = read(pub)
    assert root.find("EVENT").get("EVENT_TYPE") == "TEAMS"
    assert root.findtext("EVENT/BOARD_SCORING_METHOD") == "IMPS"
    teams = root.findall("EVENT/PARTICIPANTS/TEAM")
    assert [(t.get("TEAM_ID"), t.get("TEAM_NAME"), t.findtext("PLACE"), t.findtext("TOTAL_SCORE")) for t in teams] \
        == [("1", "Home", "1", "6"), ("2", "Away", "2", "-6")]  # +420 and -170 at the other table: 250, 6 IMPs
    assert {t.get("TEAM_ID"): [(p.findtext("PLAYER_NAME"), p.findtext("NATIONAL_ID_NUMBER"))
                               for p in t.iterfind("PLAYER")] for t in teams} == \
        {k: [(p.name, p.id) for p in v] for k, v in squads.items()}


def test_an_explanation_cannot_break_the_lin_data():
    auction = [AuctionCall("1NT", True, "15-17|mb|7NT|\nan|x"), AuctionCall("Pass"), AuctionCall("Pass"),
               AuctionCall("Pass")]
    pub = publication([Result.played(1, "1", "1", "1NT", "N", 7, table="1")], EventInfo(method="mp"),
                      two_fields=True, auctions={(1, 0): auction})
    data = read(pub).findtext(".//LIN_DATA")
    assert data == "pn|,,,|st||ah|Board 1|sv|o|mb|1N!|an|15-17 mb 7NT  an x|mb|p|mb|p|mb|p|pg||"
    assert calls(endplay_lin.loads(data)[0]) == ["1NT", "P", "P", "P"]


def test_without_club_or_ebu_fields():
    root = read(publication([Result.played(1, "1", "2", "4S", "N", 10)], EventInfo(method="mp")))
    assert root.findtext("CLUB/CLUB_NAME") == "?" and root.find("CLUB/CLUB_ID_NUMBER") is None
    for name in ("MPS_AWARDED_FLAG", "MASTER_POINT_SCALE", "P2P_CHARGE_RATE"):
        assert root.find(f"EVENT/{name}") is None


# --- the event file's club and ebu ------------------------------------------------------------------------------

def event_file(**fields):
    return {"name": "Club", **fields, "sessions": [{"name": "S1", "sections": [
        {"name": "A", "movement": {"type": "mitchell", "tables": 3}, "boards_per_round": 2,
         "pairs": [{"number": n, "line": line} for line in ("NS", "EW") for n in (1, 2, 3)]}]}]}


def test_club_and_ebu_load_and_save(tmp_path):
    data = event_file(club={"name": "Bidwire BC", "id": 1234}, ebu={"charge_code": "10", "master_point_scale": "Club"})
    event = ev.from_dict(data)
    assert (event.club.name, event.club.id, event.ebu.charge_code, event.ebu.master_point_scale) == \
        ("Bidwire BC", 1234, "10", "Club")
    event_files.save(event, tmp_path / "e.json")
    assert ev.to_dict(event_files.load(tmp_path / "e.json")) == ev.to_dict(event)
    assert "club" not in ev.to_dict(ev.from_dict(event_file()))


@pytest.mark.parametrize("fields, message", [
    ({"club": {"name": "  "}}, "club.name: is empty"),
    ({"club": {"name": "A", "id": " 12"}}, "club.id: give it without spaces around it"),
    ({"club": {"name": "A\nB"}}, "club.name: a control character"),
    ({"club": {"name": "A" * 101}}, "club.name: at most 100 characters"),
    ({"club": {"nom": "A"}}, "club.nom: is not a field here"),
    ({"ebu": {"charge_code": "10"}}, "ebu: an EBU upload names the club by its EBU number"),
    ({"club": {"name": "A"}, "ebu": {"master_point_scale": "Club"}}, "ebu: an EBU upload names the club"),
    ({"club": {"name": "A", "id": "1"}, "ebu": {"charge_code": ""}}, "ebu.charge_code: is empty"),
    ({"club": {"name": "A", "id": "1"}, "ebu": {"scale": "Club"}}, "ebu.scale: is not a field here"),
    ({"club": {"name": "A", "id": "1"}, "ebu": {"charge_code": "ten"}}, "ebu.charge_code: the EBU's charge code is a"),
    ({"club": {"name": "A", "id": "1"}, "ebu": {"charge_code": 10}}, "ebu.charge_code: must be text"),
])
def test_club_and_ebu_checks_name_the_field(fields, message):
    with pytest.raises(EventError) as e:
        ev.from_dict(event_file(**fields))
    assert message in str(e.value)


# --- through the collector (collector/export.py) ---------------------------------------------------------------

def test_the_collectors_export_has_the_club_every_player_with_name_and_number_the_lead_and_lin(data):
    event = event_file(club={"name": "Bidwire BC", "id": "1234"},
                       ebu={"charge_code": "10", "master_point_scale": "Club"})
    for pair in event["sessions"][0]["sections"][0]["pairs"]:  # NS 1: Ann Smith (EBU 1001) and Bob Jones (1002), ...
        players = PLAYERS[pair["line"], str(pair["number"])]
        pair["players"] = [{"name": p.name, "id": p.id} for p in players]
    with ApiClient(create_app(data, event=event, tables={"T01": 1})) as c:
        inputs = ["N:1N", "S@", "E:P", "S:P", "W:P"]  # North opens 1NT, South alerts it, all pass
        r = sync(c, played(1, 1, inputs, "1NT", "N", 8, law77_score(1, "1NT", "N", 8), section="A", table=1,
                           round=1, ns=1, ew=1))
        assert r.status_code == 200, r.text
        for table in (2, 3):  # board 1 done at every table (withheld.py: a board still to be played is left out)
            adj = {"table": table, "board": 1, "ns": "A", "ew": "A", "reason": "not played"}
            assert c.post("/api/v1/adjustments", json=adj).status_code == 201
        r = c.get("/api/v1/export/usebio")
    assert r.status_code == 200
    root = ET.fromstring(r.text.split("\n", 2)[2])
    assert (root.findtext("CLUB/CLUB_NAME"), root.findtext("CLUB/CLUB_ID_NUMBER")) == ("Bidwire BC", "1234")
    assert (root.findtext("EVENT/MASTER_POINT_SCALE"), root.findtext("EVENT/P2P_CHARGE_RATE")) == ("Club", "10")
    section = root.find("EVENT")
    assert root.find("EVENT/SESSION") is None
    line = section.find("BOARD/TRAVELLER_LINE")
    assert (line.findtext("CONTRACT"), line.findtext("PLAYED_BY"), line.findtext("TRICKS")) == ("1NT", "N", "8")
    assert line.findtext("LEAD") == "C"  # the unit reports the suit led (collector_kit.played: East leads a club)
    # South, West, North, East: NS 1's second and first players, EW 1's second and first.
    assert line.findtext("LIN_DATA") == \
        "pn|Bob Jones,Dan Roe,Ann Smith,Cat Lee|st||ah|Board 1|sv|o|mb|1N!|mb|p|mb|p|mb|p|pg||"
    got = {(p.findtext("DIRECTION"), p.findtext("PAIR_NUMBER")):
           [(x.findtext("PLAYER_NAME"), x.findtext("NATIONAL_ID_NUMBER")) for x in p.iterfind("PLAYER")]
           for p in section.iterfind("PARTICIPANTS/PAIR")}
    # every pair with board 1 done (tables 2 and 3 by their adjusted scores), each with names and numbers
    assert got == {(line, number + line): [(p.name, str(p.id)) for p in players]
                   for (line, number), players in PLAYERS.items()}
    assert got[("EW", "1EW")] == [("Cat Lee", "1003"), ("Dan Roe", "EBU1004")]
