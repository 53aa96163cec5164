"""What each ruling on an irregularity does, in a short sentence as the Law says it (docs/director.md "Rulings in
words"): the director's buttons, the alerts on a phone and the audit read these, never a ruling's code word.

The sentence is worked from the auction as it stood at the irregular press: the board's `call` and
`ruling_applied` events replayed through the core's engine (`bidwire.core`, the one implementation of the Laws), so
the pending irregularity's offender, call, whose turn it was and what the Laws then allow are the engine's own
(laws.md §4.3-4.17, 1987 Laws). `options(conn, unit, seq)` gives [(ruling, label, sentence)] for an irregularity.
"""
import json

from bidwire.core import calls, codes, readback
from bidwire.core.auction import Auction

SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "NT": "NT"}
STRAIN_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades", "NT": "notrump"}


def call_words(call):
    """A call code as a player reads it: 1♦, 3NT, pass, double, redouble."""
    if not calls.is_bid(call):
        return ("pass", "double", "redouble")[call]
    return str(calls.level_of(call)) + SUITS[calls.STRAINS[calls.strain_of(call)]]


def _seat(s):
    return calls.seat_name(s)


def replay(conn, unit, board_id, upto):
    """The board's auction as the unit had it just after event `upto` (its call and ruling events replayed through
    the core), or None when it cannot be rebuilt (no board row, an unreadable token)."""
    b = conn.execute("SELECT * FROM boards WHERE id = ?", (board_id,)).fetchone() if board_id is not None else None
    if b is None or b["dealer"] not in calls.SEATS:
        return None
    start = conn.execute("SELECT body FROM events WHERE unit = ? AND seq = ?", (unit, b["start_seq"])).fetchone()
    mode = json.loads(start["body"]).get("mode") if start is not None else None
    a = Auction(calls.SEATS.index(b["dealer"]), codes.ENFORCE if mode == "enforce" else codes.RECORD)
    for (body,) in conn.execute("SELECT body FROM events WHERE unit = ? AND seq >= ? AND seq <= ? AND board = ? "
                                "AND type IN ('call', 'ruling_applied') ORDER BY seq",
                                (unit, b["start_seq"], upto, b["board"])):
        e = json.loads(body)
        if e.get("type") == "call":
            token = e.get("input")
        else:
            name = e.get("ruling")
            token = f"!{name}" + (f":{e.get('seat')}" if name == "pass_next_turn" else "")
        try:
            readback.apply(a, str(token))
        except (ValueError, TypeError, IndexError):
            return None
    return a


def _partner_bar(o, law):
    return f"{_seat(calls.partner(o))} must pass throughout (Law {law}), and Law 26 may restrict his lead"


def _out_of_rotation(a, o, c, t, flags):
    """The reject sentence of a call out of rotation (Laws 30-32, 36, 38), as the core's rectify applies it."""
    turn, p, what = _seat(t), _seat(calls.partner(o)), call_words(c)
    rel = (o - t) & 3
    if c == calls.PASS:
        if flags & codes.F_BEFORE_BID or rel in (codes.RHO_TURN, codes.LHO_TURN):
            sub = "30 A" if flags & codes.F_BEFORE_BID else "30 B1"
            return f"Cancel {_seat(o)}'s pass: {turn} calls; {_seat(o)} must pass at his next turn (Law {sub})"
        return (f"Cancel {_seat(o)}'s pass: {turn} calls, and may not double or redouble at this turn; "
                f"{_seat(o)} must pass throughout (Law 30 B2; Law 23 may apply)")
    if flags & codes.F_ABOVE_SEVEN:
        return f"Cancel {what}: {_seat(o)} and {p} must pass throughout (Law 38)"
    if flags & codes.F_INADMISSIBLE:
        return f"Cancel the {what}: {turn} calls; {_seat(o)} makes any legal call at his turn; " + _partner_bar(o, 36)
    if calls.is_bid(c):
        if rel == codes.RHO_TURN:
            strain = STRAIN_WORDS[calls.STRAINS[calls.strain_of(c)]]
            return (f"Cancel {what}: {turn} calls. If {turn} passes, {_seat(o)} must bid {what} again (Law 31 A1); "
                    f"if {turn} bids, doubles or redoubles, {_seat(o)} may make any legal call, and {p} must then "
                    f"pass at his next turn if it is in {strain}, else throughout (Law 31 A2)")
        return (f"Cancel {what}: {turn} calls; {_seat(o)} may make any legal call at his turn; "
                + _partner_bar(o, "31 B"))
    if rel == codes.RHO_TURN:
        return (f"Cancel the {what}: {turn} calls. If {turn} passes, {_seat(o)} must {what} again (Law 32 B1); "
                f"if {turn} bids, {_seat(o)} may make any legal call and {p} must pass throughout (Law 32 B2)")
    return (f"Cancel the {what}: {turn} calls; {_seat(o)} may make any legal call at his turn; "
            + _partner_bar(o, "32 A"))


def _insufficient(a, o, c, natural):
    what, p = call_words(c), _seat(calls.partner(o))
    head = f"Cancel {what}: {_seat(o)} must make a sufficient bid or pass"
    if not natural:
        return f"{head}; {p} must then pass throughout, whatever he calls (Law 27 B2), and Law 26 may restrict his lead"
    lowest = calls.lowest_in_strain(calls.strain_of(c), a.last_bid())
    if calls.level_of(lowest) > calls.MAX_LEVEL:
        return f"{head}; {p} must pass throughout (Law 27 B2)"
    return (f"{head}; if not {call_words(lowest)} (natural, the lowest sufficient bid in its strain: Law 27 B1(a)), "
            f"{p} must pass throughout (Law 27 B2)")


def _change(a, o, c, ruling):
    """Law 25: the director's reading of a change of call (`c` the substitute, the first call the last effective)."""
    first = call_words(a.eff[-1] >> 2) if a.eff else "the first call"
    new, p = call_words(c), _seat(calls.partner(o))
    if ruling == codes.RULE_25A:
        return f"Slip of the hand: {new} replaces {first}, no penalty (Law 25 A)"
    if ruling == codes.RULE_25B_ACCEPT:
        return f"{_seat(calls.lho(o))} accepts the change: {new} stands, no penalty (Law 25 B1)"
    if ruling == codes.RULE_25B_STAND:
        return f"Cancel {new}: {first} stands, and {p} must pass at his next turn (Law 25 B2(b)(1))"
    if a.options & codes.OPT_25B_OTHER_AVG_MINUS:
        return (f"Cancel {new} and {first}: {_seat(o)} makes any other legal call; his side's score is at most "
                "average minus (Law 25 B2(b)(2), 1997 reading)")
    return (f"Cancel {new} and {first}: {_seat(o)} makes any other legal call; " + _partner_bar(o, "25 B2(b)(2)"))


LABELS = {"reject": "Not accepted", "reject_natural": "Not accepted: a natural bid", "25a": "A slip: allow it",
          "25b_accept": "Accepted by LHO", "25b_stand": "First call stands", "25b_other": "Another call",
          "pass_next_turn": "Partner passes once"}


def sentence(a, ruling):
    """The sentence for `ruling` (a name of codes.RULE_NAMES) on the irregularity pending in auction `a`."""
    k, o, c, t, flags = a.p_kind, a.p_seat, a.p_call, a.p_turn, a.p_flags
    r = codes.RULE_NAMES.index(ruling) if ruling in codes.RULE_NAMES else -1
    if k == codes.CHANGE_OF_CALL:
        return _change(a, o, c, r)
    if k == codes.INSUFFICIENT:
        return _insufficient(a, o, c, r == codes.RULE_REJECT_NATURAL)
    if k == codes.OUT_OF_ROTATION:
        return _out_of_rotation(a, o, c, t, flags)
    if k in (codes.INADMISSIBLE_DOUBLE, codes.INADMISSIBLE_REDOUBLE):
        return (f"Cancel the {call_words(c)}: {_seat(o)} must make a legal call instead; " + _partner_bar(o, 36))
    if k == codes.PASS_OBLIGATION:
        return (f"Cancel {call_words(c)}: a pass stands in its place, and {_seat(o)} and {_seat(calls.partner(o))} "
                "must pass throughout (Law 37), and Law 26 may restrict the lead")
    if k == codes.ABOVE_SEVEN:
        return (f"Cancel {call_words(c)}: a pass stands in its place, and {_seat(o)} and {_seat(calls.partner(o))} "
                "must pass throughout (Law 38)")
    return None


def options(conn, unit, seq, offered):
    """[(ruling, label, sentence)] for the rulings `offered` on the irregularity (unit, seq); a sentence is a
    plain description of the Law when the auction cannot be rebuilt."""
    row = conn.execute("SELECT board_id, kind, law, offender, call FROM irregularities WHERE unit = ? AND seq = ?",
                       (unit, seq)).fetchone()
    a = replay(conn, unit, row["board_id"], seq) if row is not None else None
    out = []
    for name in offered:
        said = sentence(a, name) if a is not None and a.p_kind else None
        if said is None and row is not None:
            said = (f"Cancel {row['offender'] or '?'}'s {row['call'] or 'call'} and apply Law {row['law']}'s "
                    "rectification")
        out.append((name, LABELS.get(name, name), said or "the ruling the Laws give"))
    return out
