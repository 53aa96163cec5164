"""Reading back what units and people write: seats, calls and vulnerabilities as text, an auction's inputs as the
text tokens record.py writes ("N:1H", "!reject", ...) and as the 2-byte input log.

The host reads with these (the collector's validator, the line and PBN readers, the simulator), and so do the
tests. A unit writes text but never reads it back, so it never loads this module: as .mpy files on stock firmware
its code would otherwise sit in the unit's heap for nothing (docs/benchmarks.md, "The table unit").
"""
from bidwire.core import board
from bidwire.core.auction import Auction
from bidwire.core.calls import SEATS, bid, parse_strain
from bidwire.core.codes import RULE_NAMES
from bidwire.core import auction
from bidwire.core import calls



class CallError(ValueError):
    """A call or seat that cannot be read; the message says what was wrong."""


def parse_seat(text):
    if isinstance(text, str):
        t = text.strip().upper()
        if len(t) == 1 and t in SEATS:
            return SEATS.index(t)
    raise CallError(f"unknown seat {text}: use one of N, E, S, W")


def parse_call(text):
    """'P'/'PASS', 'X', 'XX', or a bid such as '1C' .. '7NT' (also '1N', suit symbols)."""
    if not isinstance(text, str):
        raise CallError("a call must be text such as 1H, 3NT, P, X or XX")
    t = text.strip().upper()
    if t in ("P", "PASS"):
        return calls.PASS
    if t in ("X", "D", "DBL", "DOUBLE"):
        return calls.DOUBLE
    if t in ("XX", "R", "RDBL", "REDOUBLE"):
        return calls.REDOUBLE
    if len(t) < 2 or not ("1" <= t[0] <= "9"):
        raise CallError(f"cannot read call {text}: use 1C..7NT, P, X or XX")
    strain = parse_strain(t[1:])
    if strain < 0:
        raise CallError(f"cannot read call {text}: the strain must be C, D, H, S or NT")
    return bid(int(t[0]), strain)


def parse_vul(text):
    """'None'/'Love'/'-', 'NS', 'EW', 'Both'/'All' (PBN writes All)."""
    t = str(text).strip().upper()
    if t in ("NONE", "LOVE", "-", "O"):
        return board.NONE
    if t in ("NS", "N-S"):
        return board.NS
    if t in ("EW", "E-W"):
        return board.EW
    if t in ("BOTH", "ALL", "B"):
        return board.BOTH
    raise ValueError(f"unknown vulnerability {text}: use None, NS, EW or All")


def parse_token(token):
    """(kind, seat, value) of one text token (record.py's, and the spellings parse_call reads): kind one of
    auction.IN_*; CallError if unreadable. The collector reads a unit's tokens with it (collector/sync_body.py)."""
    if not isinstance(token, str) or len(token) < 2:
        raise CallError(f"cannot read input {token}")
    if token == "*lead":
        return auction.IN_LEAD, 0, 0
    if token[0] == "!":
        name, _, arg = token[1:].partition(":")
        if name not in RULE_NAMES or not name:
            raise CallError(f"unknown ruling {name}: use one of " + ", ".join(RULE_NAMES[1:]))
        return auction.IN_RULE, parse_seat(arg) if arg else 0, RULE_NAMES.index(name)
    seat = parse_seat(token[0])
    if token[1:] == "@":
        return auction.IN_ALERT, seat, 0
    if len(token) < 3 or token[1] not in ":~":
        raise CallError(f"cannot read input {token}: write N:1H, N~1S, !reject, *lead or N@")
    return (auction.IN_CALL if token[1] == ":" else auction.IN_CHANGE), seat, parse_call(token[2:])


def apply(a, token):
    """Apply one text token to auction `a`; returns the verdict (or phase for *lead). CallError if unreadable."""
    kind, seat, value = parse_token(token)
    if kind == auction.IN_LEAD:
        return a.lead_faced()
    if kind == auction.IN_RULE:
        return a.rule(value, seat)
    if kind == auction.IN_ALERT:
        return a.alert(seat)
    return a.call(seat, value) if kind == auction.IN_CALL else a.change(seat, value)


def replay(dealer, mode, options, inputs):
    """Rebuild an auction from its 2-byte input log (journal replay, host validation)."""
    a = Auction(dealer, mode, options)
    for i in range(0, len(inputs) - 1, 2):
        ks, v = inputs[i], inputs[i + 1]
        kind, seat = ks >> 2, ks & 3
        if kind == auction.IN_CALL:
            a.call(seat, v)
        elif kind == auction.IN_CHANGE:
            a.change(seat, v)
        elif kind == auction.IN_RULE:
            a.rule(v, seat)
        elif kind == auction.IN_LEAD:
            a.lead_faced()
        elif kind == auction.IN_ALERT:
            a.alert(seat)
        else:
            raise CallError(f"input log is damaged at byte {i}")
    return a
