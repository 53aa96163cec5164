"""Invariants of the auction engine under random input (hypothesis), checked against a small independent
reference of Laws 17-19 written here, not taken from the engine."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bidwire.core import codes, readback, record
from bidwire.core.auction import Auction

SEATS = "NESW"
ALL_CALLS = list(range(0, 38))  # P, X, XX, 1C..7NT
EVERY_CODE = list(range(0, 48))  # ... and 8C..9NT, which only a director could enter


def snapshot(a):
    return (bytes(a.eff), bytes(a.alerted), a.phase, a.p_kind, a.p_seat, a.p_call, a.p_turn, a.p_flags,
            repr(a.restrictions), repr(a.leads), repr(a.reviews), repr(a.log))


# ---- reference Laws 17-19 over a list of (seat, call) -------------------------------------------
def ref_legal(prefix, dealer, seat, call):
    """Is `call` by `seat` in rotation and legal after the effective calls `prefix`?"""
    turn = dealer if not prefix else (prefix[-1][0] + 1) % 4
    if seat != turn:
        return False
    bids = [(i, s, c) for i, (s, c) in enumerate(prefix) if c >= 3]
    if call >= 3:
        return call <= 37 and (not bids or call > bids[-1][2])
    if call == 0:
        return True
    if not bids:
        return False
    i, bidder, _ = bids[-1]
    after = [(s, c) for s, c in prefix[i + 1:] if c != 0]
    if call == 1:  # Law 19 A1
        return bidder % 2 != seat % 2 and not after
    return len(after) == 1 and after[0][1] == 1 and after[0][0] % 2 != seat % 2  # Law 19 B1


def ref_declarer(eff):
    bids = [(s, c) for s, c in eff if c >= 3]
    s, c = bids[-1]
    return next(x for x, y in bids if x % 2 == s % 2 and (y - 3) % 5 == (c - 3) % 5)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.data())
def test_enforce_mode_random_legal_auctions_end_with_the_right_contract(dealer, data):
    a = Auction(dealer, codes.ENFORCE)
    calls = []
    while a.phase == codes.AUCTION:
        seat = a.in_turn()
        allowed = [c for c in ALL_CALLS if a.may_call(seat, c)]
        assert allowed == [c for c in ALL_CALLS if ref_legal(calls, dealer, seat, c)]
        # passes are drawn more often, so that both short and long auctions occur
        call = data.draw(st.one_of(st.just(0), st.sampled_from(allowed)))
        assert a.call(seat, call) == codes.LEGAL
        calls.append((seat, call))
        assert len(calls) <= 319, "an auction cannot be longer than 319 calls"
    eff = [(c & 3, c >> 2) for c in a.eff]
    assert eff == calls
    if all(c == 0 for _, c in calls):
        assert a.phase == codes.PASSED_OUT and len(calls) == 4
    else:
        assert calls[-3:] == [((calls[-4][0] + k) % 4, 0) for k in (1, 2, 3)]
        bid, doubled = a.contract()
        assert bid == [c for _, c in calls if c >= 3][-1], "the contract is the last bid"
        assert a.declarer() == ref_declarer(calls), "declarer: first of the side to name the strain"
    b = readback.replay(dealer, codes.ENFORCE, 0, a.inputs)
    assert snapshot(b) == snapshot(a), "replaying the input log rebuilds the same state"


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 3), st.lists(st.one_of(
    st.tuples(st.just("call"), st.integers(0, 3), st.sampled_from(EVERY_CODE)),
    st.tuples(st.just("call"), st.integers(0, 3), st.sampled_from([0, 0, 0, 1, 2, 3, 8, 13])),
    st.tuples(st.just("change"), st.integers(0, 3), st.sampled_from(ALL_CALLS)),
    st.tuples(st.just("rule"), st.integers(0, 3), st.integers(1, 7)),
    st.tuples(st.just("alert"), st.integers(0, 3), st.just(0)),
    st.tuples(st.just("lead"), st.just(0), st.just(0)),
), max_size=80))
def test_record_mode_random_presses_never_leave_an_unaccepted_illegal_call(dealer, steps):
    a = Auction(dealer)
    for kind, seat, value in steps:
        if kind == "call":
            v = a.call(seat, value)
        elif kind == "change":
            v = a.change(seat, value)
        elif kind == "rule":
            v = a.rule(value, seat)
        elif kind == "alert":
            v = a.alert(seat)
        else:
            v = a.lead_faced()
        assert v is not None
        eff = [(c & 3, c >> 2) for c in a.eff]
        accepted = {(x[4], x[1], x[2]) for x in a.log if x[0] == codes.LOG_ACCEPTED}
        for i, (s, c) in enumerate(eff):
            if not ref_legal(eff[:i], dealer, s, c):
                assert (i, s, c) in accepted, f"{SEATS[s]}:{c} at {i} is in the auction but neither legal nor accepted"
            assert c <= 37, "no bid above seven ever stands (Law 38)"
        if a.phase == codes.PASSED_OUT:
            assert {s for s, _ in eff} == {0, 1, 2, 3} and all(c == 0 for _, c in eff)
        if a.phase in (codes.ENDED, codes.PLAY):
            assert len(eff) >= 4 and all(c == 0 for _, c in eff[-3:])
    assert snapshot(readback.replay(dealer, codes.RECORD, 0, a.inputs)) == snapshot(a)
    b = Auction(dealer)
    for t in record.tokens(a):
        readback.apply(b, t)
    assert snapshot(b) == snapshot(a), "the text form of the inputs replays to the same state"
