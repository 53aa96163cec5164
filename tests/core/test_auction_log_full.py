"""A board's input log is bounded (auction.MAX_INPUTS, docs/auction-engine.md): a press it has no room for is
refused with FULL and logs nothing, and the places kept at its end still take what brings the board to its end.

The auctions are worked by hand: dealer N; E's pass out of rotation (Law 30 A) is pending, so W's presses are
held (W is neither in turn nor the one entitled to accept it) and each is one input.
"""
from bidwire.core import readback
from bidwire.core.auction import MAX_INPUTS, RESERVE, Auction
from bidwire.core.calls import PASS, bid
from bidwire.core.codes import (
    AUCTION,
    ENDED,
    FULL,
    HELD,
    LEGAL,
    OUT_OF_ROTATION,
    PASSED_OUT,
    PLAY,
    RULE_PASS_NEXT_TURN,
    RULE_REJECT,
)


def held_until_full():
    """E passes out of turn, then W presses PASS until the log refuses; returns the auction and W's held count."""
    a = Auction(0)
    assert a.call(1, PASS) == OUT_OF_ROTATION
    held = 0
    while held <= MAX_INPUTS:
        v = a.call(3, PASS)
        if v == FULL:
            break
        assert v == HELD
        held += 1
    return a, held


def test_presses_beyond_the_cap_less_its_reserve_are_refused_and_log_nothing():
    a, held = held_until_full()
    assert held == MAX_INPUTS - RESERVE - 1  # E's pass and W's presses fill all but the reserve
    assert a.n_inputs == MAX_INPUTS - RESERVE and len(a.inputs) == 2 * (MAX_INPUTS - RESERVE)
    before = (bytes(a.inputs), bytes(a.eff), a.p_kind, a.p_at)
    assert a.call(3, bid(1, 0)) == FULL  # any other press too: a bid, a change of call, an alert
    assert a.change(3, PASS) == FULL
    assert a.alert(0) is False
    assert a.call(0, PASS) == FULL  # N in turn, but E's pass is pending: not a call the engine takes as legal
    assert (bytes(a.inputs), bytes(a.eff), a.p_kind, a.p_at) == before


def test_the_reserve_takes_the_ruling_and_the_calls_that_end_the_board():
    a, _ = held_until_full()
    assert a.rule(RULE_REJECT) == LEGAL  # Law 30 A: E's pass cancelled, E must pass at his next turn
    for seat in (0, 1, 2):
        assert a.call(seat, PASS) == LEGAL
    assert a.phase == AUCTION
    assert a.call(3, PASS) == LEGAL and a.phase == PASSED_OUT  # four passes: passed out (Law 22 A)
    assert a.n_inputs == MAX_INPUTS - RESERVE + 5
    again = readback.replay(0, 0, 0, a.inputs)  # what the unit journals and the collector replays
    assert again.phase == PASSED_OUT and again.n_inputs == a.n_inputs


def test_in_the_reserve_a_call_the_engine_would_not_take_is_refused():
    a, _ = held_until_full()
    a.rule(RULE_REJECT)
    assert a.call(2, PASS) == FULL  # S out of turn: refused, not a new irregularity
    assert a.call(0, bid(1, 3)) == LEGAL  # N 1S in turn
    assert a.call(2, bid(1, 0)) == FULL  # S out of turn, and insufficient
    assert a.call(1, bid(1, 0)) == FULL  # E must pass (Law 30 A): 1C is not taken
    assert a.p_kind == 0 and len(a.eff) == 1


def test_the_last_place_is_kept_for_the_opening_lead():
    a = Auction(0)
    assert a.call(0, bid(1, 0)) == LEGAL  # N 1C
    while a.n_inputs < MAX_INPUTS - RESERVE:
        assert a.alert(2)  # S alerts N's 1C again and again: one input each
    assert a.alert(2) is False  # an alert is not a call that ends the board
    bids = 0
    while a.n_inputs < MAX_INPUTS - 1:  # legal bids fill the reserve, one strain higher each
        seat = a.in_turn()
        assert a.call(seat, bid(1 + (bids + 1) // 5, (bids + 1) % 5)) == LEGAL
        bids += 1
    assert bids == RESERVE - 1
    assert a.rule(RULE_REJECT) == FULL and a.call(a.in_turn(), PASS) == FULL  # the last place: the lead only
    assert a.phase == AUCTION and a.n_inputs == MAX_INPUTS - 1


def test_the_lead_takes_the_last_place():
    a = Auction(0)
    a.call(0, bid(1, 0))
    while a.n_inputs < MAX_INPUTS - RESERVE:
        a.alert(2)
    for seat in (1, 2, 3):
        assert a.call(seat, PASS) == LEGAL
    assert a.phase == ENDED
    while a.n_inputs < MAX_INPUTS - 1:  # the director's rulings may still fill the reserve (each is an input)
        assert a.rule(RULE_PASS_NEXT_TURN, 1) != FULL
    assert a.rule(RULE_PASS_NEXT_TURN, 1) == FULL
    assert a.lead_faced() == PLAY and a.n_inputs == MAX_INPUTS
