"""Seats, strains and calls: small-integer encodings, rank (Laws 1, 18), names.

A seat is 0..3 (N E S W, clockwise). A call is one small int:
P=0, X=1, XX=2, and a bid is 3 + (level-1)*5 + strain with strain 0..4 = C D H S NT.
Bid codes grow with rank (laws.md §2.1: bidKey), so "higher bid" is plain integer comparison.
Levels 8 and 9 exist only so that a bid above seven (Law 38) can be recorded and ruled on.
Reading seats and calls from text (the host's part) is in readback.py.
"""
from bidwire.core.compat import const

SEATS = "NESW"
STRAINS = ("C", "D", "H", "S", "NT")
PASS = const(0)
DOUBLE = const(1)
REDOUBLE = const(2)
FIRST_BID = const(3)
MAX_LEVEL = const(7)
MAX_CODE = const(47)  # 9NT: the largest code readback.parse_call accepts


def lho(seat):
    return (seat + 1) & 3


def partner(seat):
    return (seat + 2) & 3


def rho(seat):
    return (seat + 3) & 3


def side(seat):
    """0 for North-South, 1 for East-West."""
    return seat & 1


def bid(level, strain):
    return FIRST_BID + (level - 1) * 5 + strain


def is_bid(call):
    return call >= FIRST_BID


def level_of(call):
    return (call - FIRST_BID) // 5 + 1


def strain_of(call):
    return (call - FIRST_BID) % 5


def lowest_in_strain(strain, last_bid):
    """Lowest bid in `strain` that supersedes `last_bid` (Law 27 B1(a)); may exceed seven."""
    if last_bid < FIRST_BID:
        return bid(1, strain)
    level = level_of(last_bid)
    return bid(level if strain > strain_of(last_bid) else level + 1, strain)


def seat_name(seat):
    return SEATS[seat]


def parse_strain(name):
    """0..4 for C D H S NT (also N and the suit symbols); -1 if `name` is none of them."""
    for sym, letter in (("♣", "C"), ("♦", "D"), ("♥", "H"), ("♠", "S"), ("N", "NT")):
        if name == sym:
            name = letter
    return STRAINS.index(name) if name in STRAINS else -1


def call_name(call):
    if call == PASS:
        return "P"
    if call == DOUBLE:
        return "X"
    if call == REDOUBLE:
        return "XX"
    return str(level_of(call)) + STRAINS[strain_of(call)]
