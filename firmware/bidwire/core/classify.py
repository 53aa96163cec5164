"""Classification of a press against the auction so far: laws.md §4.1, rows 1-9, in that order.

classify() returns the primary verdict and leaves the secondary flags (F_*) in `a.c_flags`; whose turn it
was is the in-turn seat, kept by rectify.hold with the pending irregularity. Row 3 (Law 28 A) is reported
as DEEMED_PASS_28A so the caller can record the deemed pass and classify again.
"""
from bidwire.core.calls import DOUBLE, MAX_LEVEL, PASS, REDOUBLE, is_bid, level_of, lho
from bidwire.core.codes import (
    ABOVE_SEVEN, AFTER_CLOSE, AUCTION, CHANGE_OF_CALL, F_ABOVE_SEVEN, F_ALSO_INSUFFICIENT, F_BEFORE_BID, F_INADMISSIBLE,
    F_L30B2, F_UNDER_OBLIGATION, INADMISSIBLE_DOUBLE, INADMISSIBLE_REDOUBLE, INSUFFICIENT, LEGAL,
    NO_DOUBLE_THIS_TURN, OUT_OF_ROTATION, PASS_OBLIGATION,
)
from bidwire.core.compat import const

DEEMED_PASS_28A = const(99)


def _inadmissible(a, seat, call):
    """Law 19: a double or redouble that would not be allowed even in turn."""
    return (call == DOUBLE and not a.double_ok(seat)) or (call == REDOUBLE and not a.redouble_ok(seat))


def classify(a, seat, call):
    a.c_flags = 0
    if a.phase != AUCTION:  # row 1: Laws 35 D, 39
        return AFTER_CLOSE
    if a.eff and a.eff[-1] & 3 == seat:  # row 2: Law 25 (also 30 B3, 31)
        return CHANGE_OF_CALL
    t = a.in_turn()
    if seat != t:
        if seat == lho(t) and a.must_pass(t):  # row 3: Law 28 A
            return DEEMED_PASS_28A
        flags = 0  # row 4: Laws 28-32, 27 C
        if a.last_bid_index() < 0:
            flags |= F_BEFORE_BID
        if _inadmissible(a, seat, call):
            flags |= F_INADMISSIBLE
        if is_bid(call) and not a.sufficient(call):
            flags |= F_ALSO_INSUFFICIENT
        if is_bid(call) and level_of(call) > MAX_LEVEL:
            flags |= F_ABOVE_SEVEN
        a.c_flags = flags
        return OUT_OF_ROTATION
    obliged = a.must_pass(seat)
    if obliged and call != PASS:
        a.c_flags = F_UNDER_OBLIGATION
    if is_bid(call) and level_of(call) > MAX_LEVEL:  # row 5: Laws 35 C, 38
        return ABOVE_SEVEN
    if call == DOUBLE and not a.double_ok(seat):  # row 6: Laws 19, 35 A, 36
        return INADMISSIBLE_DOUBLE
    if call == REDOUBLE and not a.redouble_ok(seat):
        return INADMISSIBLE_REDOUBLE
    if obliged and call != PASS:  # row 7: Laws 35 B, 37
        return PASS_OBLIGATION
    if (call == DOUBLE or call == REDOUBLE) and a.restriction(seat, NO_DOUBLE_THIS_TURN):
        a.c_flags = F_L30B2  # laws.md §4.2: referred to the director like a pass-obligation breach
        return PASS_OBLIGATION
    if is_bid(call) and not a.sufficient(call):  # row 8: Laws 18 D, 27
        return INSUFFICIENT
    return LEGAL  # row 9
