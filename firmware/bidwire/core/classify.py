"""Classification of a press against the auction so far: laws.md §4.1, rows 1-9, in that order.

classify() returns the primary verdict and leaves the secondary flags (F_*) in `a.c_flags`; whose turn it
was is the in-turn seat, kept by rectify.hold with the pending irregularity. Row 3 (Law 28 A) is reported
as DEEMED_PASS_28A so the caller can record the deemed pass and classify again.
"""
from bidwire.core import calls
from bidwire.core.compat import const

_DOUBLE = const(1)  # calls.DOUBLE
_MAX_LEVEL = const(7)  # calls.MAX_LEVEL
_PASS = const(0)  # calls.PASS
_REDOUBLE = const(2)  # calls.REDOUBLE
_ABOVE_SEVEN = const(8)  # codes.ABOVE_SEVEN
_AFTER_CLOSE = const(7)  # codes.AFTER_CLOSE
_AUCTION = const(0)  # codes.AUCTION
_CHANGE_OF_CALL = const(6)  # codes.CHANGE_OF_CALL
_F_ABOVE_SEVEN = const(32)  # codes.F_ABOVE_SEVEN
_F_ALSO_INSUFFICIENT = const(2)  # codes.F_ALSO_INSUFFICIENT
_F_BEFORE_BID = const(4)  # codes.F_BEFORE_BID
_F_INADMISSIBLE = const(1)  # codes.F_INADMISSIBLE
_F_L30B2 = const(16)  # codes.F_L30B2
_F_UNDER_OBLIGATION = const(8)  # codes.F_UNDER_OBLIGATION
_INADMISSIBLE_DOUBLE = const(3)  # codes.INADMISSIBLE_DOUBLE
_INADMISSIBLE_REDOUBLE = const(4)  # codes.INADMISSIBLE_REDOUBLE
_INSUFFICIENT = const(2)  # codes.INSUFFICIENT
_LEGAL = const(0)  # codes.LEGAL
_NO_DOUBLE_THIS_TURN = const(3)  # codes.NO_DOUBLE_THIS_TURN
_OUT_OF_ROTATION = const(1)  # codes.OUT_OF_ROTATION
_PASS_OBLIGATION = const(5)  # codes.PASS_OBLIGATION

DEEMED_PASS_28A = const(99)


def _inadmissible(a, seat, call):
    """Law 19: a double or redouble that would not be allowed even in turn."""
    return (call == _DOUBLE and not a.double_ok(seat)) or (call == _REDOUBLE and not a.redouble_ok(seat))


def classify(a, seat, call):
    a.c_flags = 0
    if a.phase != _AUCTION:  # row 1: Laws 35 D, 39
        return _AFTER_CLOSE
    if a.eff and a.eff[-1] & 3 == seat:  # row 2: Law 25 (also 30 B3, 31)
        return _CHANGE_OF_CALL
    t = a.in_turn()
    if seat != t:
        if seat == calls.lho(t) and a.must_pass(t):  # row 3: Law 28 A
            return DEEMED_PASS_28A
        flags = 0  # row 4: Laws 28-32, 27 C
        if a.last_bid_index() < 0:
            flags |= _F_BEFORE_BID
        if _inadmissible(a, seat, call):
            flags |= _F_INADMISSIBLE
        if calls.is_bid(call) and not a.sufficient(call):
            flags |= _F_ALSO_INSUFFICIENT
        if calls.is_bid(call) and calls.level_of(call) > _MAX_LEVEL:
            flags |= _F_ABOVE_SEVEN
        a.c_flags = flags
        return _OUT_OF_ROTATION
    obliged = a.must_pass(seat)
    if obliged and call != _PASS:
        a.c_flags = _F_UNDER_OBLIGATION
    if calls.is_bid(call) and calls.level_of(call) > _MAX_LEVEL:  # row 5: Laws 35 C, 38
        return _ABOVE_SEVEN
    if call == _DOUBLE and not a.double_ok(seat):  # row 6: Laws 19, 35 A, 36
        return _INADMISSIBLE_DOUBLE
    if call == _REDOUBLE and not a.redouble_ok(seat):
        return _INADMISSIBLE_REDOUBLE
    if obliged and call != _PASS:  # row 7: Laws 35 B, 37
        return _PASS_OBLIGATION
    if (call == _DOUBLE or call == _REDOUBLE) and a.restriction(seat, _NO_DOUBLE_THIS_TURN):
        a.c_flags = _F_L30B2  # laws.md §4.2: referred to the director like a pass-obligation breach
        return _PASS_OBLIGATION
    if calls.is_bid(call) and not a.sufficient(call):  # row 8: Laws 18 D, 27
        return _INSUFFICIENT
    return _LEGAL  # row 9
