"""The auction as data, as a unit writes it: inputs as text tokens and a JSON-ready summary (readback.py reads the
tokens back and replays a 2-byte input log).

Tokens: "N:1H" a call, "N~1S" a change of call after UNDO (Law 25), "!reject" / "!reject_natural" /
"!25a" / "!25b_accept" / "!25b_stand" / "!25b_other" a director ruling, "!pass_next_turn:E" a
restriction the director imposes, "*lead" the opening lead faced, "N@" North alerts South's last call.
"""
from bidwire.core.calls import STRAINS, call_name, seat_name
from bidwire.core.codes import RULE_NAMES, VERDICT_NAMES
from bidwire.core.compat import const
from bidwire.core import auction
from bidwire.core import codes


# The summary's names, by code: phases, restriction kinds (codes.py), board reviews (rectify.py), log entries
_PHASE_NAMES = const(("auction", "ended", "passed_out", "play"))
_RESTRICTION_NAMES = const((
    "", "PASS_NEXT_TURN", "PASS_THROUGHOUT", "NO_DOUBLE_THIS_TURN", "MUST_REPEAT", "MUST_REPLACE",
    "AWAIT_RHO", "CONDITIONAL_ON_OFFENDER",
))
_REVIEW_NAMES = const(("", "LAW23_REVIEW", "DIRECTOR_REVIEW", "AVERAGE_MINUS_CAP"))
_LOG_NAMES = const(("", "cancelled", "accepted", "deemed_pass", "substituted_pass"))


def token(kind_seat, value):
    """The text token of one 2-byte input."""
    kind, seat = kind_seat >> 2, kind_seat & 3
    if kind == auction.IN_CALL:
        return seat_name(seat) + ":" + call_name(value)
    if kind == auction.IN_CHANGE:
        return seat_name(seat) + "~" + call_name(value)
    if kind == auction.IN_RULE:
        return "!" + RULE_NAMES[value] + (":" + seat_name(seat) if RULE_NAMES[value] == "pass_next_turn" else "")
    if kind == auction.IN_LEAD:
        return "*lead"
    if kind == auction.IN_ALERT:
        return seat_name(seat) + "@"
    raise ValueError(f"unknown input kind {kind}")


def tokens(a):
    """The text tokens of the auction's input log. A token met again is the same string object: a log of many
    repeated presses (up to auction.MAX_INPUTS) costs one list slot each, not a string each, on a unit's heap."""
    b = a.inputs
    made = {}
    out = []
    for i in range(0, len(b), 2):
        k = b[i] << 8 | b[i + 1]
        t = made.get(k)
        if t is None:
            t = made[k] = token(b[i], b[i + 1])
        out.append(t)
    return out


def contract_text(a):
    """'4HX' once ended, 'Pass' when passed out, None while the auction is open."""
    if a.phase == codes.PASSED_OUT:
        return "Pass"
    c = a.contract()
    if c is None:
        return None
    bid, doubled = c
    return call_name(bid) + ("", "X", "XX")[doubled]


def summary(a):
    """A JSON-ready picture of the auction: what the display, the collector and the director need."""
    d = a.declarer()
    out = {
        "dealer": seat_name(a.dealer),
        "phase": _PHASE_NAMES[a.phase],
        "in_turn": seat_name(a.in_turn()) if a.phase == codes.AUCTION else None,
        "auction": [seat_name(c & 3) + ":" + call_name(c >> 2) + ("!" if a.alerted[i] else "")
                    for i, c in enumerate(a.eff)],
        "contract": contract_text(a),
        "declarer": seat_name(d) if d >= 0 else None,
        "restrictions": [{"seat": seat_name(r[0]), "kind": _RESTRICTION_NAMES[r[1]],
                          # (those restrictions name a withdrawn call)
                          "call": call_name(r[2])
                          if r[1] in (codes.MUST_REPEAT, codes.AWAIT_RHO, codes.CONDITIONAL_ON_OFFENDER) else None,
                          "law": r[3], "at": r[4]}
                         for r in a.restrictions],
        "lead_restrictions": [{"offender": seat_name(x[0]), "seat": seat_name(x[1]),
                               "suit": STRAINS[x[2]] if x[2] >= 0 else None, "law": x[3], "at": x[4]}
                              for x in a.leads],
        "reviews": [{"kind": _REVIEW_NAMES[r[0]], "law": r[1], "at": r[2]} for r in a.reviews],
        "log": [{"what": _LOG_NAMES[x[0]], "seat": seat_name(x[1]), "call": call_name(x[2]), "law": x[3],
                 "at": x[4]} for x in a.log],
        "pending": None,
    }
    if a.p_kind:
        out["pending"] = {"kind": VERDICT_NAMES[a.p_kind], "seat": seat_name(a.p_seat),
                          "call": call_name(a.p_call), "turn": seat_name(a.p_turn), "law": a.p_law,
                          "flags": a.p_flags, "at": a.p_at}
    return out
