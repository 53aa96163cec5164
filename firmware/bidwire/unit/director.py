"""The director at the table unit: the TD call, his PIN, his menu, the seat he picks, the rulings he gives there and
the ones the collector sends (laws.md §4.19; which rulings each irregularity allows is the core's `codes.rulings`),
and a board whose input log is full. The App loads this module for a director's input (app.py imports it, never the
other way) and gives it the App to read: each function returns what changes, and the App writes it (App._director_did,
the one path by which a director's input changes the App), or None when the input changed nothing. A change is a dict
of the App's fields that take a new value: "td" (App.td, the call's state), "typed" (the PIN so far), "note", "message",
"log_full"; the events go out through `app.emit`, as every input's do. The App reports the irregularities themselves
(App.report, App.settled) and brings what a ruling's new phase needs (App.after).

A ruling answers one irregularity, named by its input index (`at`, docs/unit.md "Irregularities"): a collector
ruling is applied only while that irregularity is the one pending on that board, otherwise refused with a reason.
"""
from bidwire.core import auction, codes
from bidwire.core.calls import seat_name
from bidwire.core.compat import const
from bidwire.unit import keys

_END_CALL = const(0)  # menu entry: end the director call
# the menu's texts, by ruling code (_END_CALL first); each fits the row after its number
_RULE_TEXT = const(("end call", "reject", "reject natural", "25A slip", "25B accept", "25B stand", "25B other",
                    "pass next turn"))


def full(app, seat):
    """A press the board's input log has no room for (Auction.room): refused, and said so on the prompt row. The
    first one on a board calls the director (a `td_call` unless one is open) with a `note` saying why; journaled
    like any press that changed the screen."""
    if app.log_full:
        return {"note": "auction full: TD"}
    app.emit({"type": "note", "text": f"board {app.board}: the input log is full ({auction.MAX_INPUTS} inputs): "
              f"{seat_name(seat)}'s press refused, only a ruling, a legal call or the lead is taken"})
    if not app.td:
        app.emit({"type": "td_call", "seat": seat_name(seat)})
    return {"note": "auction full: TD", "log_full": True, "td": app.td or app.TD_CALLED}


def menu(app):
    """The director's menu, numbered from 1 on the level keys: rulings, pass next turn, end call."""
    m = []
    if app.board:  # before the first board there is no auction to rule on
        m = list(codes.rulings(app.auction.p_kind))
        if app.auction.phase == codes.AUCTION:
            m.append(codes.RULE_PASS_NEXT_TURN)
    m.append(_END_CALL)
    return m


def key(app, seat, key):
    """TD at any seat, or any key while the director holds the panel (PIN, menu, seat): what changes, or None."""
    td = app.td
    if key == keys.K_TD:
        if td == 0:
            app.emit({"type": "td_call", "seat": seat_name(seat)})
            return {"td": app.TD_CALLED}
        if td == app.TD_CALLED:
            return {"td": app.TD_PIN, "typed": ""}
        return None
    if key == keys.K_UNDO:  # leave the PIN entry or the menu; the call stays open until ended
        return {"td": app.TD_CALLED, "typed": ""}
    if td == app.TD_PICK:
        return apply_ruling(app, codes.RULE_PASS_NEXT_TURN, seat, "table")
    if key >= keys.K_C:
        return None
    if td == app.TD_PIN:
        typed = app.td_typed + str(key + 1)
        if len(typed) < len(app.td_pin):
            return {"typed": typed}
        ok = typed == app.td_pin
        return {"td": app.TD_MENU if ok else app.TD_CALLED, "typed": "", "note": "" if ok else "wrong PIN"}
    m = menu(app)
    if key >= len(m):
        return None
    choice = m[key]
    if choice == _END_CALL:
        app.emit({"type": "td_end", "seat": seat_name(seat)})
        return {"td": 0, "message": ""}
    if choice == codes.RULE_PASS_NEXT_TURN:
        return {"td": app.TD_PICK}  # the director presses any key on the panel of the seat to restrict
    return apply_ruling(app, choice, 0, "table") or {}


def apply_ruling(app, ruling, seat, by):
    """The director's ruling at the table or from the collector: the call ends (what changes), or None before the
    first board."""
    a = app.auction
    if not app.board:
        return None
    before = a.p_at
    verdict = a.rule(ruling, seat)
    if verdict == codes.FULL:
        return full(app, seat)
    app.emit({"type": "ruling_applied", "ruling": codes.RULE_NAMES[ruling], "seat": seat_name(seat), "by": by,
              "verdict": codes.VERDICT_NAMES[verdict], "law": a.law,
              "at": None if ruling == codes.RULE_PASS_NEXT_TURN or before < 0 else before})
    app.report(before, verdict, seat, 0)  # a change of call allowed under 25 A may itself be irregular
    return {"td": 0}


def command(app, cmd):
    """A collector `ruling` command: applied only while the irregularity it names (`at`) is pending on its board,
    else refused with a reason (an event, nothing else changes)."""
    name, at, board = cmd.get("ruling"), cmd.get("at"), cmd.get("board")
    r = codes.RULE_NAMES.index(name) if name in codes.RULE_NAMES and name else 0
    a = app.auction
    # What the event repeats must be what the collector's schema takes, or the outbox would stick on it.
    if not isinstance(at, int) or isinstance(at, bool) or at < 0:
        at = None
    if not isinstance(board, int) or isinstance(board, bool) or board < 0:
        board = None
    why = None
    if not r:
        why = "unknown_ruling"
    elif board != app.board or not app.board:
        why = "other_board"
    elif r == codes.RULE_PASS_NEXT_TURN:  # a restriction the director imposes, tied to no irregularity
        if a.phase != codes.AUCTION:
            why = "auction_over"
    elif at is None:
        why = "no_at"
    elif a.p_at < 0:
        why = "not_pending"  # settled already (or never seen on this board)
    elif at != a.p_at:
        why = "other_pending"
    elif r not in codes.rulings(a.p_kind):
        why = "not_allowed"
    if why is None and not a.room(auction.IN_RULE):
        why = "log_full"
    if why is None:
        return apply_ruling(app, r, "NESW".find(cmd.get("seat") or "N") & 3, "collector")
    app.emit({"type": "ruling_refused", "board": app.board if board is None else board,
              "at": at, "ruling": str(name)[:16], "reason": why})
    return {}


def screen(app, rows):
    """The director's rows while he holds the panel (screens.compose): his PIN, the seat he picks, his menu."""
    if app.td == app.TD_PIN:
        rows[0] = "DIRECTOR"
        rows[2] = "PIN: " + "*" * len(app.td_typed) + "_"
        rows[4] = "UNDO: back"
        return
    if app.td == app.TD_PICK:
        rows[0] = "PASS NEXT TURN"
        rows[2] = "press any key"
        rows[3] = "at the seat"
        rows[4] = "(Law 24 etc.)"
        return
    a = app.auction
    rows[0] = "DIRECTOR" + (" L" + str(a.p_law) if app.board and a.p_kind else "")
    for i, r in enumerate(menu(app)[:6]):
        rows[1 + i] = str(i + 1) + " " + _RULE_TEXT[r]
