"""Who is at the table (docs/unit.md "Who is at the table"): at a round's start, with an assign that asks (`confirm`),
a player of each side says the side is the pair shown, or which pair it is. Loaded at a round's start and dropped
when both sides have answered (lazy.py), like the director's module.

Per side (NS 0, EW 1) this module keeps its state in `answers[side]` and the digits typed so far in
`answers[2 + side]` (one list, there only while the module is loaded: a power cut replays the keys that made it):
PAIR: waiting: PASS "that is us"; X: the side types its pair's number instead.
NUMBER: typing a pair number; MEMBER: typing a membership number (an assign with `ids`: each player's number);
NAME: a membership number the side's list has: its player's name is shown, PASS for yes, UNDO to type again;
DONE: answered. Digits: 1-7 on the level keys, 8 on C, 9 on D, 0 on H; UNDO clears; PASS ends.
Each answer is a `seated` event: `confirmed` when it is the pair expected.
"""
from bidwire.core import calls
from bidwire.core.compat import const
from bidwire.unit import keys

PAIR = const(0)
DONE = const(1)
NUMBER = const(2)
MEMBER = const(3)
NAME = const(4)
_MAX_DIGITS = const(12)  # the longest membership number the collector sends (setup._ids)
_SIDES = const(("NS", "EW"))


answers = [PAIR, PAIR, "", ""]


def start(app, a):
    """A round's first board with an assign that asks who sits there: both sides to answer."""
    first = MEMBER if a.get("ids") else PAIR
    answers[:] = [first, first, "", ""]


def _player(a, side, number):
    """The index of membership number `number` in the side's list (assign `ids`), or -1."""
    ids = a.get("ids") or (None, None)
    found = ids[side] or ()
    for i in range(len(found)):
        if str(found[i]) == number:
            return i
    return -1


def name_of(a, side, number):
    """The name shown back for a membership number: the side's names ("Smith/Jones") in the order of its ids."""
    i = _player(a, side, number)
    names = str((a.get("names") or ("", ""))[side]).split("/")
    return names[i] if 0 <= i < len(names) else "?"


def key(app, seat, key):
    side = seat & 1
    st = answers[side]
    typed = answers[2 + side]
    a = app.assignment or {}
    if st == DONE:
        return False
    if st == NAME:
        if key == keys.K_UNDO:
            answers[side], answers[2 + side] = MEMBER, ""
            return True
        if key != keys.K_PASS:
            return False
        return _answer(app, seat, side, a.get(("ns", "ew")[side]), True, typed)
    if st == PAIR and key == keys.K_X or st == MEMBER and key == keys.K_X and not typed:
        answers[side], answers[2 + side] = NUMBER, ""
        return True
    if st == PAIR:
        return key == keys.K_PASS and _answer(app, seat, side, a.get(("ns", "ew")[side]), True, None)
    if key == keys.K_UNDO:
        answers[2 + side] = ""
        return True
    if key != keys.K_PASS:
        d = key + 1 if key < keys.K_C else (8, 9, 0)[key - keys.K_C] if key <= keys.K_C + 2 else -1  # C D H: 8 9 0
        if d < 0 or len(typed) >= _MAX_DIGITS:
            return False
        answers[2 + side] = typed + str(d)
        return True
    if not typed:
        return False
    if st == NUMBER:
        expected = a.get(("ns", "ew")[side])
        return _answer(app, seat, side, typed, str(typed) == str(expected), None)
    if _player(a, side, typed) >= 0:  # MEMBER: a number the side's list has: its name back, for a yes
        answers[side] = NAME
        return True
    return _answer(app, seat, side, None, False, typed)


def _answer(app, seat, side, pair, confirmed, member):
    a = app.assignment or {}
    answers[side] = DONE
    event = {"type": "seated", "side": _SIDES[side], "seat": calls.seat_name(seat), "pair": pair,
             "expected": a.get(("ns", "ew")[side]), "confirmed": confirmed, "round": a.get("round")}
    if member is not None:
        event["member"] = member
    app.emit(event)
    return True


def done(app):
    return answers[0] == DONE and answers[1] == DONE


def rows(app, rows, cols):
    """The SEAT screen: the round and table, each side's pair and names, and its answer so far."""
    a = app.assignment or {}
    names = a.get("names") or ("", "")
    rows[0] = ("R" + str(a.get("round")) + " T" + str(a.get("table")) + " who is here?")[:cols]
    for side in (0, 1):
        line = _SIDES[side] + " "
        rows[1 + 2 * side] = (line + str(a.get(("ns", "ew")[side])) + " " + str(names[side]))[:cols]
        st = answers[side]
        typed = answers[2 + side]
        if st == DONE:
            said = "ok"
        elif st == NUMBER:
            said = "pair? " + typed
        elif st == MEMBER:
            said = "member? " + typed
        elif st == NAME:
            said = name_of(a, side, typed)[:cols - 9] + "? PASS"
        else:
            said = "PASS=us X=not"
        rows[2 + 2 * side] = (line + said)[:cols]
    rows[6] = "one key per side"
