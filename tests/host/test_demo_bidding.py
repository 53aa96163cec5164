"""Issue 26 item 11: the demo's scripted players bid their cards, so a director watching believes the auctions
(demo/bidding.py): an opening has the points and the length, a suit is bid only with cards in it (a raise with
three), no contract is more than three tricks short of double dummy, and the irregularities are still staged —
an insufficient bid and a call out of rotation — where a player would make them. Played on `make demo`'s own
session (its seed) through demo/play.py, as the virtual units get it."""
import pytest

from bidwire.core import board as core_board
from bidwire_host.demo import bidding
from bidwire_host.demo.play import _table_play, demo_event, write_event
from bidwire_host.event.analysis import tricks_for
from bidwire_host.unit_tools.simulator import auction_lines

SEATS = "NESW"


def plays(tmp_path, tables, rounds=None):
    movement = {"type": "mitchell", "tables": tables, **({"rounds": rounds} if rounds else {})}
    ev = demo_event(movement, 2, 2026)
    deals = write_event(ev, tmp_path / "event.json", 2026)
    plan = ev.sessions[0].sections[0].movement_plan()
    for r in range(1, plan.rounds + 1):
        for t in plan.in_round(r):
            for board in t.boards:
                hands = deals.hands[board].deal.hands
                calls, _, _ = _table_play(board, t.table, 2026, deals.tables[board], hands)
                yield board, hands, calls, deals.tables[board]


def seated(board, calls):
    """(seat, call) in the order made; an accepted opening out of rotation ("~1S") by the dealer's LHO."""
    first = core_board.dealer(board) + (1 if calls[0].startswith("~") else 0)
    return [(SEATS[(first + i) % 4], c.lstrip("~")) for i, c in enumerate(calls)]


@pytest.mark.parametrize("tables, rounds", [(3, 3), (5, None)])  # the e2e test's session and `make demo`'s
def test_the_demo_s_players_bid_their_cards(tmp_path, tables, rounds):
    irregular = {"out of rotation": 0, "insufficient": 0}
    for board, hands, calls, table in plays(tmp_path, tables, rounds):
        irregular["out of rotation"] += calls[0].startswith("~")
        made, last, opened = seated(board, calls), None, False
        for seat, call in made:
            if not call[0].isdigit():
                continue
            level, strain = int(call[0]), "N" if call[1:] == "NT" else call[1]
            key = level * 5 + "CDHSN".index(strain)
            if last is not None and key <= last:
                irregular["insufficient"] += 1
            last = max(key, last or 0)
            hand = hands[seat]
            if not opened:
                opened = True
                points = bidding.hcp(hand)
                assert points >= 10, (board, calls, seat, hand)  # an opening has the points
                if strain == "N":
                    assert 15 <= points <= 17 and bidding.balanced(hand), (board, calls, hand)
                elif strain in "HS":
                    assert bidding.lengths(hand)[strain] >= 5, (board, calls, seat, hand)  # a five-card major
            if strain != "N":  # never a suit without cards in it: no 2H on a singleton
                assert bidding.lengths(hand)[strain] >= 3, (board, calls, seat, hand)
        _, contract, declarer = auction_lines(board, calls)
        if declarer is not None:
            assert tricks_for(table, contract, declarer) >= int(contract[0]) + 6 - 3, (board, calls, contract)
    assert irregular["out of rotation"] >= 1 and irregular["insufficient"] >= 1, irregular


def test_every_auction_the_system_bids_ends_and_the_core_accepts_it():
    """On 96 dealt boards the system's auctions, and the staged ones, are auctions the unit's core plays to the end
    (auction_lines raises for one that does not end or has an illegal call)."""
    from bidwire_host.event import analysis
    from bidwire_host.formats.pbn_import import load

    records = load(analysis.deal_session(range(1, 97), seed=26)).hands
    staged = 0
    for board, record in records.items():
        hands = record.deal.hands
        auction_lines(board, bidding.auction(board, hands))
        for kind in ("out_of_rotation", "insufficient"):
            calls = bidding.stage(board, hands, kind)
            if calls is not None:
                staged += 1
                auction_lines(board, calls)
    assert staged >= 48  # the cards give most boards a place for one or the other
