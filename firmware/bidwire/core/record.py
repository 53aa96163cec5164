"""The auction as data: inputs as text tokens, replay from the 2-byte input log, and a JSON-ready summary.

Tokens: "N:1H" a call, "N~1S" a change of call after UNDO (Law 25), "!reject" / "!reject_natural" /
"!25a" / "!25b_accept" / "!25b_stand" / "!25b_other" a director ruling, "!pass_next_turn:E" a
restriction the director imposes, "*lead" the opening lead faced, "N@" North alerts South's last call.
"""
from bidwire.core.auction import IN_ALERT, IN_CALL, IN_CHANGE, IN_LEAD, IN_RULE, Auction
from bidwire.core.calls import STRAINS, CallError, call_name, parse_call, parse_seat, seat_name
from bidwire.core.codes import (
    AUCTION, AWAIT_RHO, CONDITIONAL_ON_OFFENDER, LOG_NAMES, MUST_REPEAT, PASSED_OUT, PHASE_NAMES,
    RESTRICTION_NAMES, REVIEW_NAMES, RULE_NAMES, VERDICT_NAMES,
)

_WITH_CALL = (MUST_REPEAT, AWAIT_RHO, CONDITIONAL_ON_OFFENDER)  # restrictions that name a withdrawn call


def apply(a, token):
    """Apply one text token to auction `a`; returns the verdict (or phase for *lead). CallError if unreadable."""
    if not isinstance(token, str) or len(token) < 2:
        raise CallError(f"cannot read input {token}")
    if token == "*lead":
        return a.lead_faced()
    if token[0] == "!":
        name, _, arg = token[1:].partition(":")
        if name not in RULE_NAMES or not name:
            raise CallError(f"unknown ruling {name}: use one of " + ", ".join(RULE_NAMES[1:]))
        return a.rule(RULE_NAMES.index(name), parse_seat(arg) if arg else 0)
    seat = parse_seat(token[0])
    if token[1:] == "@":
        return a.alert(seat)
    if len(token) < 3 or token[1] not in ":~":
        raise CallError(f"cannot read input {token}: write N:1H, N~1S, !reject, *lead or N@")
    call = parse_call(token[2:])
    return a.call(seat, call) if token[1] == ":" else a.change(seat, call)


def token(kind_seat, value):
    """The text token of one 2-byte input."""
    kind, seat = kind_seat >> 2, kind_seat & 3
    if kind == IN_CALL:
        return seat_name(seat) + ":" + call_name(value)
    if kind == IN_CHANGE:
        return seat_name(seat) + "~" + call_name(value)
    if kind == IN_RULE:
        return "!" + RULE_NAMES[value] + (":" + seat_name(seat) if RULE_NAMES[value] == "pass_next_turn" else "")
    if kind == IN_LEAD:
        return "*lead"
    if kind == IN_ALERT:
        return seat_name(seat) + "@"
    raise CallError(f"unknown input kind {kind}")


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


def replay(dealer, mode, options, inputs):
    """Rebuild an auction from its 2-byte input log (journal replay, host validation)."""
    a = Auction(dealer, mode, options)
    for i in range(0, len(inputs) - 1, 2):
        ks, v = inputs[i], inputs[i + 1]
        kind, seat = ks >> 2, ks & 3
        if kind == IN_CALL:
            a.call(seat, v)
        elif kind == IN_CHANGE:
            a.change(seat, v)
        elif kind == IN_RULE:
            a.rule(v, seat)
        elif kind == IN_LEAD:
            a.lead_faced()
        elif kind == IN_ALERT:
            a.alert(seat)
        else:
            raise CallError(f"input log is damaged at byte {i}")
    return a


def contract_text(a):
    """'4HX' once ended, 'Pass' when passed out, None while the auction is open."""
    if a.phase == PASSED_OUT:
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
        "phase": PHASE_NAMES[a.phase],
        "in_turn": seat_name(a.in_turn()) if a.phase == AUCTION else None,
        "auction": [seat_name(c & 3) + ":" + call_name(c >> 2) + ("!" if a.alerted[i] else "")
                    for i, c in enumerate(a.eff)],
        "contract": contract_text(a),
        "declarer": seat_name(d) if d >= 0 else None,
        "restrictions": [{"seat": seat_name(r[0]), "kind": RESTRICTION_NAMES[r[1]],
                          "call": call_name(r[2]) if r[1] in _WITH_CALL else None, "law": r[3], "at": r[4]}
                         for r in a.restrictions],
        "lead_restrictions": [{"offender": seat_name(x[0]), "seat": seat_name(x[1]),
                               "suit": STRAINS[x[2]] if x[2] >= 0 else None, "law": x[3], "at": x[4]}
                              for x in a.leads],
        "reviews": [{"kind": REVIEW_NAMES[r[0]], "law": r[1], "at": r[2]} for r in a.reviews],
        "log": [{"what": LOG_NAMES[x[0]], "seat": seat_name(x[1]), "call": call_name(x[2]), "law": x[3],
                 "at": x[4]} for x in a.log],
        "pending": None,
    }
    if a.p_kind:
        out["pending"] = {"kind": VERDICT_NAMES[a.p_kind], "seat": seat_name(a.p_seat),
                          "call": call_name(a.p_call), "turn": seat_name(a.p_turn), "law": a.p_law,
                          "flags": a.p_flags, "at": a.p_at}
    return out
