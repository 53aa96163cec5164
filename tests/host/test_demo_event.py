"""`make demo`'s event and scripted play (issue 14, item 8): named players with membership numbers, hand records
dealt for the session, and play that agrees with the deals — each opening lead a suit the leader holds, tricks
near double dummy — so the collector's fouled-board and suspicious-result checks flag only what the demo stages.
The deals are read and solved here with endplay directly (its PBN reader and DDS), not through bidwire's analysis."""
import csv
import json

import pytest
from endplay.dds import calc_dd_table
from endplay.parsers import pbn
from endplay.types import Denom, Player

from bidwire_host.demo.play import demo_event, write_event
from bidwire_host.event import files as event_files
from bidwire_host.event import seating

SEATS = "NESW"
PLAYERS = {"N": Player.north, "E": Player.east, "S": Player.south, "W": Player.west}
DENOMS = {"C": Denom.clubs, "D": Denom.diamonds, "H": Denom.hearts, "S": Denom.spades, "NT": Denom.nt}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "event.json"
    deals = write_event(demo_event({"type": "mitchell", "tables": 5}, 2, 2026), path, 2026)
    return event_files.load(path), deals, path


def test_every_pair_has_two_named_players_with_membership_numbers(demo):
    ev, _, _ = demo
    pairs = ev.sessions[0].sections[0].pairs
    assert len(pairs) == 10  # 5 tables, NS and EW
    players = [p for pair in pairs for p in pair.players]
    assert all(len(pair.players) == 2 for pair in pairs)
    assert all(p.name.strip() and isinstance(p.id, int) for p in players)
    assert len({p.id for p in players}) == len(players)  # a membership number is one member's
    assert any(not p.name.isascii() for p in players)  # accents, as a club's list has them
    assert ev.name and ev.sessions[0].date and ev.club.name


def test_the_event_file_names_its_players_by_number_from_the_clubs_register(demo):
    ev, _, path = demo
    data = json.loads(path.read_text(encoding="utf-8"))
    written = [pl for p in data["sessions"][0]["sections"][0]["pairs"] for pl in p["players"]]
    assert all(set(pl) == {"id"} for pl in written)  # the name is the register's
    with open(path.with_name(data["register"]), encoding="utf-8", newline="") as f:
        members = {int(r["Number"]): f"{r['First name']} {r['Last name']}" for r in csv.DictReader(f)}
    assert len(members) == len(written) + 20  # members who do not play tonight too
    loaded = [pl for p in ev.sessions[0].sections[0].pairs for pl in p.players]
    assert [(pl.id, pl.name) for pl in loaded] == [(pl["id"], members[pl["id"]]) for pl in written]


def test_the_session_has_a_hand_record_for_every_board_it_plays(demo):
    ev, _, path = demo
    played = {b for r in range(1, 6) for a in seating.assignments(ev, r) for b in a["boards"]}
    assert played == set(range(1, 11))
    dealt = pbn.load(open(path.with_name(ev.sessions[0].hand_records), encoding="utf-8"))
    assert {b.board_num for b in dealt} == played
    assert all(sum(len(b.deal[p]) for p in PLAYERS.values()) == 52 for b in dealt)


def _lead(lines, declarer):
    """The opening lead's key line: before the tricks (declarer's presses) and the three closing PASSes."""
    k = len(lines) - 4
    while lines[k].split()[0] == declarer:
        k -= 1
    return lines[k].split()


def test_every_lead_is_a_suit_the_leader_holds_and_only_the_staged_result_is_far_from_double_dummy(demo):
    ev, deals, path = demo
    dealt = {b.board_num: b.deal for b in pbn.load(open(path.with_name(ev.sessions[0].hand_records),
                                                        encoding="utf-8"))}
    solved = {b: calc_dd_table(d) for b, d in dealt.items()}
    far, played = [], 0
    for r in range(1, 6):
        for a in seating.assignments(ev, r):
            for board in a["boards"]:
                lines, contract, declarer, tricks = deals.play(board, a["table"])
                if contract == "Pass":
                    continue
                played += 1
                seat, suit = _lead(lines, declarer)
                assert seat == SEATS[(SEATS.index(declarer) + 1) % 4]  # Law 41 A: declarer's LHO leads
                assert len(getattr(dealt[board][PLAYERS[seat]], SUITS[suit])) > 0, (board, seat, suit)
                dd = solved[board][DENOMS[contract.rstrip("X")[1:]], PLAYERS[declarer]]
                if abs(tricks - dd) > 3:  # BIDWIRE_SUSPICIOUS_TRICKS' default
                    far.append((a["table"], board, tricks - dd))
    assert played > 30  # most of the 50 results are contracts
    assert [(t, b) for t, b, _ in far] == [deals.staged]  # the one wrong entry the demo makes on purpose
    assert abs(far[0][2]) == 5
