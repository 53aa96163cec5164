"""Classification of a press against the auction so far: laws.md §4.1, rows 1-9, in that order.

classify() returns the primary verdict and leaves the secondary flags (F_*) in `a.c_flags`; whose turn it
was is the in-turn seat, kept by rectify.hold with the pending irregularity. Row 3 (Law 28 A) is reported
as DEEMED_PASS_28A so the caller can record the deemed pass and classify again.
"""
from bidwire.core import calls
from bidwire.core.compat import const
from bidwire.core import codes


DEEMED_PASS_28A = const(99)


def _inadmissible(a, seat, call):
    """Law 19: a double or redouble that would not be allowed even in turn."""
    return (call == calls.DOUBLE and not a.double_ok(seat)) or (call == calls.REDOUBLE and not a.redouble_ok(seat))


def classify(a, seat, call):
    a.c_flags = 0
    if a.phase != codes.AUCTION:  # row 1: Laws 35 D, 39
        return codes.AFTER_CLOSE
    if a.eff and a.eff[-1] & 3 == seat:  # row 2: Law 25 (also 30 B3, 31)
        return codes.CHANGE_OF_CALL
    t = a.in_turn()
    if seat != t:
        if seat == calls.lho(t) and a.must_pass(t):  # row 3: Law 28 A
            return DEEMED_PASS_28A
        flags = 0  # row 4: Laws 28-32, 27 C
        if a.last_bid_index() < 0:
            flags |= codes.F_BEFORE_BID
        if _inadmissible(a, seat, call):
            flags |= codes.F_INADMISSIBLE
        if calls.is_bid(call) and not a.sufficient(call):
            flags |= codes.F_ALSO_INSUFFICIENT
        if calls.is_bid(call) and calls.level_of(call) > calls.MAX_LEVEL:
            flags |= codes.F_ABOVE_SEVEN
        a.c_flags = flags
        return codes.OUT_OF_ROTATION
    obliged = a.must_pass(seat)
    if obliged and call != calls.PASS:
        a.c_flags = codes.F_UNDER_OBLIGATION
    if calls.is_bid(call) and calls.level_of(call) > calls.MAX_LEVEL:  # row 5: Laws 35 C, 38
        return codes.ABOVE_SEVEN
    if call == calls.DOUBLE and not a.double_ok(seat):  # row 6: Laws 19, 35 A, 36
        return codes.INADMISSIBLE_DOUBLE
    if call == calls.REDOUBLE and not a.redouble_ok(seat):
        return codes.INADMISSIBLE_REDOUBLE
    if obliged and call != calls.PASS:  # row 7: Laws 35 B, 37
        return codes.PASS_OBLIGATION
    if (call == calls.DOUBLE or call == calls.REDOUBLE) and a.restriction(seat, codes.NO_DOUBLE_THIS_TURN):
        a.c_flags = codes.F_L30B2  # laws.md §4.2: referred to the director like a pass-obligation breach
        return codes.PASS_OBLIGATION
    if calls.is_bid(call) and not a.sufficient(call):  # row 8: Laws 18 D, 27
        return codes.INSUFFICIENT
    return codes.LEGAL  # row 9
