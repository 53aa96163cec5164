"""Declarer's choice at a Law 26 lead restriction, recorded by the director (docs/director.md, "Law 26").

* `lead`: on an open `lead_restriction` alert (validator.lead_restrictions), what declarer chose for the restricted
  player's first lead: bar or require the lead of the withdrawn call's suit (26 A), bar the lead of one suit of his
  choice (26 B), or waive; the core's `lead26.lead_choices` says which the candidate allows. When the restricted
  player is the opening leader (declarer's LHO) a `lead_choice` command takes it to the table (commands.py), in
  the same transaction; the body keeps the command's seq, so the queue tells whether the unit has it. One choice
  per alert: declarer chooses once.
"""
import json

from bidwire.core import codes, lead26
from bidwire.core.calls import STRAINS, lho, partner
from bidwire.core.readback import parse_seat
from bidwire_host.collector import commands
from bidwire_host.collector.decisions.journal import ActionError, alert_key, fold, insert

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def choices(suit):
    """The choices Law 26 gives declarer for a candidate on `suit` ("S", or None for 26 B) as (choice, suit)
    names, from the core."""
    n = STRAINS.index(suit) if suit in STRAINS[:4] else -1
    return [(codes.L26_NAMES[c], STRAINS[s] if s >= 0 else None) for c, s in lead26.lead_choices(n)]


def describe(choice, suit, seat):
    """What the choice means at the table, in words: 'W may not lead spades'."""
    if choice == "bar":
        return f"{seat} may not lead {SUIT_NAMES[suit]}"
    if choice == "require":
        return f"{seat} must lead {SUIT_NAMES[suit]}"
    return f"{seat}'s lead is free (declarer waives)"


def _led(conn, unit, board, seq):
    return conn.execute("SELECT 1 FROM events WHERE unit = ? AND board = ? AND type = 'lead' AND seq > ?",
                        (unit, board, seq)).fetchone() is not None


def lead(conn, s, body, at):
    """Check and store declarer's choice on the open lead_restriction alert `body["alert"]` (its key), with
    `choice` (bar, require, waive) and `suit`; the stored action. 404 for no such alert, 409 once the lead is made,
    the alert closed or a choice recorded; 400 for a choice the Law does not give."""
    key = body.get("alert")
    if not isinstance(key, str) or not key.startswith("alert:") or not key.endswith(":lead_restriction"):
        raise ActionError("alert: which lead restriction (its id on the page: alert:UNIT:SEQ:lead_restriction)")
    parts = key.split(":")
    try:
        unit, seq = ":".join(parts[1:-2]), int(parts[-2])
    except ValueError:
        raise ActionError(f"alert: no lead restriction {key!r}", 404) from None
    rows = conn.execute("SELECT * FROM alerts WHERE unit = ? AND seq = ? AND kind = 'lead_restriction' ORDER BY id",
                        (unit, seq)).fetchall()
    if key != alert_key("alert", unit, seq, "lead_restriction") or not rows:
        raise ActionError(f"alert: no lead restriction {key!r}", 404)
    found = [json.loads(r["data"] or "{}") for r in rows]
    if body.get("seat") is not None:
        found = [d for d in found if d.get("seat") == body["seat"]]
        if not found:
            raise ActionError(f"seat: the restriction binds {', '.join(json.loads(r['data'])['seat'] for r in rows)}",
                              404)
    data, row = found[0], rows[0]
    state = fold(conn)
    if key in state.closed:
        raise ActionError(f"the alert was closed already ({state.closed[key]['at']})", 409)
    if key in state.leads:
        was = state.leads[key]
        raise ActionError(f"declarer's choice was recorded already: {describe(was['choice'], was['suit'], was['seat'])}"
                          f" ({was['at']})", 409)
    if _led(conn, unit, row["board"], seq):
        raise ActionError("the opening lead was made: declarer's choice under Law 26 came before it", 409)
    choice, suit = body.get("choice"), body.get("suit") or None
    allowed = choices(data.get("suit"))
    if (choice, suit) not in allowed:
        said = ", ".join(f"{c} {x}" if x else c for c, x in allowed)
        raise ActionError(f"choice: Law 26 {'A' if data.get('suit') else 'B'} gives declarer {said}; not "
                          f"{choice} {suit or ''}".rstrip())
    seat, declarer = data["seat"], data["declarer"]
    leader = "NESW"[lho(parse_seat(declarer))]
    command = None
    if seat == leader:  # the opening lead: the unit holds it to the choice; a later lead is not the unit's to see
        cmd = {"type": "lead_choice", "board": row["board"], "seat": seat, "choice": choice}
        if suit:
            cmd["suit"] = suit
        command = commands.enqueue(conn, unit, cmd)["seq"]
    out = {"alert": key, "unit": unit, "seq": seq, "board": row["board"], "section": row["section"],
           "table": row["table_no"], "seat": seat, "declarer": declarer, "offender": data.get("offender")
           or "NESW"[partner(parse_seat(seat))], "choice": choice, "suit": suit, "command": command,
           "reason": str(body.get("reason") or "")[:500]}
    return insert(conn, "lead", out, body.get("by"), at, False)
