"""What the display shows: `lines(app, status)` gives the 8 text rows of 16 characters of the 128 x 64 OLED
(`compose` the same rows before a text from the collector is cut to fit), and `draw(display, rows, before)`
renders the rows that changed, each on its 8-pixel page, with the 8 x 8 font, suits as glyphs (chr 1-4). The
virtual unit prints the same rows as text, suits as letters (`text()`).
"""
import bidwire.core.board as board  # the full name in the code: the import makes no qstr for it in the heap
from bidwire.core import calls
from bidwire.core.compat import const
from bidwire.core import codes
from bidwire.unit import app as unit_app


_COLS = const(16)
_ROWS = const(8)
# C D H S glyphs; one string each (indexing a string makes its one-character string a qstr in the heap)
_SUITS = const(("\x01", "\x02", "\x03", "\x04"))
_LETTERS = const(("C", "D", "H", "S"))  # the same suits as plain text (the virtual unit's console)
# 8 x 8 suit glyphs, one byte per row, leftmost pixel the high bit (framebuf.MONO_HLSB = 3): blit sources as
# (buffer, width, height, format), drawn straight from flash with no FrameBuffer of their own
_GLYPHS = const((
    (b"\x18\x3c\x18\x66\xff\x66\x18\x3c", 8, 8, 3),  # club
    (b"\x08\x1c\x3e\x7f\x3e\x1c\x08\x00", 8, 8, 3),  # diamond
    (b"\x66\xff\xff\xff\x7e\x3c\x18\x00", 8, 8, 3),  # heart
    (b"\x18\x3c\x7e\xff\xff\x5a\x18\x3c", 8, 8, 3),  # spade
))
_VUL_SHORT = const(("-", "NS", "EW", "All"))
# What the pending irregularity is, by verdict code (laws.md §4.1), on a row of its own
_KIND_TEXT = const(("", "out of turn", "insufficient bid", "illegal double", "illegal redouble", "must have passed",
                    "change of call", "after the end", "bid above 7"))
_DIRECTOR_CALLED = const("director called")
# The row that says "director called" while a call is open, by screen, beside the prompt row (SETUP ... MOVE); the
# auction grid and the lead's grid make room for it (-1: the screen places it itself)
_TD_ROW = const((5, 3, -1, -1, 2, 2, 5, 5))


def call_text(call):
    if call < calls.FIRST_BID:
        return ("P", "X", "XX")[call]
    s = calls.strain_of(call)
    return str(calls.level_of(call)) + ("NT" if s == 4 else _SUITS[s])


def _header(app):
    return f"Bd{app.board} Dlr{calls.SEATS[app.auction.dealer]} {_VUL_SHORT[board.vulnerability(app.board)]}"


# The grid's column of each seat N E S W (columns W N E S), and the heading with the turn marked '>'
_COLUMN = const(b"\x01\x02\x03\x00")
_HEADING = const((" W  >N   E   S  ", " W   N  >E   S  ", " W   N   E  >S  ", ">W   N   E   S  ", " W   N   E   S  "))
_BLANK = const("                ")


def _grid(app, rows, top, n):
    """The auction in W N E S columns, each call under the seat that made it, the last `n` rows of it from row
    `top`. A call goes on a new row when its seat's column is not right of the call before, so the turn of a
    player skipped by an accepted call out of rotation stays blank (Law 29 B: that turn is lost)."""
    a = app.auction
    eff = a.eff
    rows[top - 1] = _HEADING[a.in_turn() if a.phase == codes.AUCTION and not a.p_kind else 4]
    total = 0
    col = 4
    for c in eff:
        k = _COLUMN[c & 3]
        total += k < col
        col = k + 1
    skip = total - n if total > n else 0  # rows scrolled off above the window
    r = -1
    line = ""
    col = 4
    for i in range(len(eff) + 1):
        k = _COLUMN[eff[i] & 3] if i < len(eff) else -1  # -1: the end, the last row is written
        if k < col:
            if r >= skip:
                rows[top + r - skip] = (line + _BLANK)[:_COLS]
            r += 1
            line = ""
            col = 0
        if r >= skip and k >= 0:
            line += _BLANK[:(k - col) * 4] + (call_text(eff[i] >> 2) + ("!" if a.alerted[i] else "") + "   ")[:4]
        col = k + 1
    for j in range(total - skip, n):
        rows[top + j] = _BLANK


def _level(app):
    """A level key waiting for its strain: 'N: 2_'."""
    for s in range(4):
        if app.level[s]:
            return calls.SEATS[s] + ": " + str(app.level[s]) + "_"
    return ""


def _prompt(app):
    a = app.auction
    if app.undo_seat >= 0:
        return calls.SEATS[app.undo_seat] + ": new call?"
    if app.level_pending():
        return _level(app)
    if a.phase != codes.AUCTION:
        return ""
    t = a.in_turn()
    for r in a.restrictions:
        if r[0] == t:
            if r[1] == codes.PASS_NEXT_TURN or r[1] == codes.PASS_THROUGHOUT:
                return calls.SEATS[t] + ": PASS only"
            if r[1] == codes.MUST_REPEAT:
                return calls.SEATS[t] + ": repeat " + call_text(r[2])
            if r[1] == codes.MUST_REPLACE:
                return calls.SEATS[t] + ": replace call"
            if r[1] == codes.NO_DOUBLE_THIS_TURN:  # Law 30 B2 (laws.md §4.2)
                return calls.SEATS[t] + ": call, no X/XX"
    return calls.SEATS[t] + " to call" + (" (E)" if app.mode == codes.ENFORCE else "")


def _irregularity(app, rows):
    a = app.auction
    o = calls.SEATS[a.p_seat]
    rows[0] = "IRREGULAR L" + str(a.p_law)
    if a.p_kind == codes.CHANGE_OF_CALL:
        rows[1] = o + " change to " + call_text(a.p_call)
        rows[2] = "director rules"
        rows[3] = "(Law 25)"
    else:
        rows[1] = o + " " + call_text(a.p_call)
        rows[2] = _KIND_TEXT[a.p_kind]
        rows[3] = calls.SEATS[(a.p_seat + 1) & 3] + " may accept:"
        rows[4] = " call over it"
        rows[5] = "or TD: reject"
    if app.td == app.TD_CALLED:
        rows[5] = _DIRECTOR_CALLED
    held = app.held
    if held is not None and held[1] == 2 * a.n_inputs:  # the last press was kept out: who pressed what
        rows[6] = held[0]
    rows[6] = _level(app) or rows[6]


def _lead_rows(app):
    """What declarer may do about the opening lead, when the leader's partner withdrew a call (Law 26: A names the
    withdrawn call's suit, B any one suit), as two rows; once the director has sent declarer's choice, that choice
    (and, after a lead it refused, how to say he cannot comply: Law 59) instead; [] when no candidate binds him."""
    a = app.auction
    r = app.lead_rule
    if r is not None:
        d = "L26 " + calls.SEATS[a.declarer()]
        if r[0] == codes.L26_WAIVE:
            row = d + " waives"
        else:
            row = d + (" bars " if r[0] == codes.L26_BAR else " requires ") + _SUITS[r[1]]
        return [row, "void? again L59"] if r[2] >= 0 else [row]
    for x in a.leads:
        if x[1] == app.leader:  # the leader and declarer's options together: "L26 N's lead:" / "W may bar/req ♥"
            d = calls.SEATS[a.declarer()] + " may bar"
            return ["L26 " + calls.SEATS[app.leader] + "'s lead:",
                    d + (" 1 suit" if x[2] < 0 else "/req " + _SUITS[x[2]])]
    return []


def _lead_prompt(app):
    """The opening leader's prompt: 'E: lead suit', or with declarer's Law 26 choice 'E: lead, not \x04' (barred)
    or 'E: lead \x04' (required)."""
    r = app.lead_rule
    t = calls.SEATS[app.leader] + ": lead"
    if r is None or r[0] == codes.L26_WAIVE:
        return t + " suit"
    return t + (", not " if r[0] == codes.L26_BAR else " ") + _SUITS[r[1]]


def _contract(app):
    """'4\x04X' (suits as glyphs), or '' while the auction is on."""
    c = app.auction.contract()
    return "" if c is None else call_text(c[0]) + ("", "X", "XX")[c[1]]


def _over(app):
    """The tricks against the contract: '=', '+1', '-2'."""
    c = app.auction.contract() or (3, 0)
    over = app.tricks - calls.level_of(c[0]) - 6
    return "=" if over == 0 else ("+" if over > 0 else "") + str(over)


def _result(app):
    """The result line: contract, declarer and tricks against the contract, e.g. '4\x04X S -1' or '3NT N ='."""
    a = app.auction
    if a.phase == codes.PASSED_OUT:
        return "Passed out"
    return _contract(app) + " " + calls.SEATS[a.declarer()] + " " + _over(app) if a.contract() else "?"


def _traveller(row):
    """One result of the collector's traveller [ns, ew, contract and declarer, NS score], the score at the right;
    with a fifth item, NS's percentage: the contract, then the score and the percentage at the right."""
    if not isinstance(row, (list, tuple)) or len(row) < 4:
        return str(row)[:_COLS]
    if len(row) > 4:
        left, score = str(row[2]), str(row[3]) + " " + str(row[4]) + "%"
    else:
        left, score = str(row[0]) + "-" + str(row[1]) + " " + str(row[2]), str(row[3])
    if len(left) + 1 + len(score) > _COLS:
        left = str(row[2])[:_COLS - 1 - len(score)]
    return left + _BLANK[:_COLS - len(left) - len(score)] + score


def _message(app, rows):
    """The unit's message on the prompt row; a longer one (a collector message has up to 48 characters) is
    word-wrapped upwards over the rows above it."""
    m = app.message
    out = []
    while len(m) > _COLS:
        cut = m.rfind(" ", 0, _COLS + 1)
        cut = cut if cut > 0 else _COLS  # a word longer than a row is cut at the row's end
        out.append(m[:cut])
        m = m[cut:].lstrip(" ")
    out.append(m)
    if len(out) > 4:  # too many short rows: packed 16 to a row instead
        out = [app.message[i:i + _COLS] for i in range(0, len(app.message), _COLS)]
    for i in range(len(out)):  # above the prompt row
        rows[6 - len(out) + i] = out[i]


def compose(app, status=""):
    """The 8 rows for the app's state, each as long as it is (lines() is what the display gets)."""
    rows = [""] * _ROWS
    s = app.screen
    if app.td >= app.TD_PIN:
        from bidwire.unit import director  # in the heap already: loaded while the director's call is open (app.py)

        director.screen(app, rows)
    elif s == unit_app.BIDDING and app.auction.p_kind:
        _irregularity(app, rows)
    else:
        _screen(app, s, rows)
        if app.td == app.TD_CALLED and _TD_ROW[s] >= 0:  # beside the prompt, never over it
            rows[_TD_ROW[s]] = _DIRECTOR_CALLED
    if app.td < app.TD_PIN:  # the director's PIN and menu keep their rows
        if app.message:
            _message(app, rows)
        if app.note:
            rows[6] = app.note
    rows[7] = "journal cut" if status.startswith("journal cut") else status  # its reason: boot line, collector note
    return rows


def _screen(app, s, rows):
    if s == unit_app.SETUP:
        rows[0] = "bidwire"
        rows[1] = app.unit[:_COLS]  # a unit id has up to 32 characters: two rows
        rows[2] = app.unit[_COLS:2 * _COLS]
        rows[3] = "waiting for the"
        rows[4] = "collector"
        rows[5] = "board " + str(app.board + 1)
        rows[6] = "PASS: play"
    elif s == unit_app.SEAT:
        from bidwire.unit import sides  # loaded by the app while the SEAT screen is up
        sides.rows(app, rows, _COLS)
    elif s == unit_app.START:
        rows[0] = _header(app)
        asg = app.assignment
        if asg:
            rows[1] = f"T{asg.get('table')} R{asg.get('round')}" + (" LATE" if asg.get("late") else "")
            rows[2] = f"NS {asg.get('ns')} EW {asg.get('ew')}"
        rows[3] = "Board " + str(app.board)
        rows[4] = "Dealer " + calls.SEATS[app.auction.dealer]
        rows[5] = "Vul " + board.VUL_NAMES[board.vulnerability(app.board)]
        rows[6] = calls.SEATS[app.auction.dealer] + " to call"
    elif s == unit_app.BIDDING:
        rows[0] = _header(app)
        if app.td == app.TD_CALLED:  # the grid's last three rows, the call on the row above the prompt
            _grid(app, rows, 2, 3)
            rows[5] = _DIRECTOR_CALLED
        else:
            _grid(app, rows, 2, 4)
        rows[6] = _prompt(app)
    elif s == unit_app.LEAD:
        rows[0] = _header(app)
        extra = _lead_rows(app)
        if app.td == app.TD_CALLED:
            extra.append(_DIRECTOR_CALLED)
        if len(extra) < 3:  # the grid in the rows the lead's rows leave
            _grid(app, rows, 2, 3 - len(extra))
        for i in range(len(extra)):
            rows[5 - len(extra) + i] = extra[i]
        rows[5] = _contract(app) + " by " + calls.SEATS[app.auction.declarer()]
        rows[6] = _lead_prompt(app)
    elif s == unit_app.RESULT or s == unit_app.CONFIRM:
        rows[0] = _header(app)
        rows[1] = _contract(app) + " by " + calls.SEATS[app.auction.declarer()]
        rows[2] = "lead " + calls.SEATS[app.leader] + " " + _SUITS[app.lead]
        rows[3] = "tricks " + str(app.tricks) + " " + _over(app)
        if s == unit_app.RESULT:
            rows[4] = "1-7: level made"
            rows[5] = "X: -1   XX: +1"
            rows[6] = "PASS: enter"
        else:
            rows[4] = "NS " + str(app.score_ns())
            rows[5] = ("EW" if app.entered_by & 1 == 0 else "NS") + " PASS=agree"
            rows[6] = "UNDO=wrong"
    elif s == unit_app.SCORE:
        rows[0] = _header(app)
        rows[1] = _result(app)
        rows[2] = "NS " + str(app.score_ns())
        for i, row in enumerate((app.traveller or [])[:3]):
            rows[3 + i] = _traveller(row)
        rows[6] = "PASS: next"
    elif s == unit_app.MOVE:
        asg = app.assignment or {}
        rows[0] = "Round " + str(asg.get("round", "")) + " over"
        move = str(asg.get("move", ""))
        for i in range(4):
            rows[1 + i] = move[i * _COLS:(i + 1) * _COLS]
        rows[6] = "wait for assign"


def lines(app, status=""):
    """The 8 rows of 16 characters the display shows (a text from the collector longer than a row is cut)."""
    rows = compose(app, status)
    for i in range(_ROWS):
        if len(rows[i]) > _COLS:
            rows[i] = rows[i][:_COLS]
    return rows


def text(rows):
    """The rows as plain text, suits as letters C D H S."""
    out = []
    for r in rows:
        for i in range(4):
            r = r.replace(_SUITS[i], _LETTERS[i])
        out.append(r)
    return out


def draw(display, rows, before=None):
    """Render the rows a text row at a time: each into the display's one-page buffer (128 x 8), which
    `display.page(y)` sends to page y of the panel. Only the rows that differ from `before` (the rows the panel
    shows; None: draw all 8)."""
    for y in range(_ROWS):
        row = rows[y]
        if before is not None and before[y] == row:
            continue
        display.fill(0)
        display.text(row, 0, 0, 1)
        code = row.encode()  # bytes index as ints: `ord(row[x])` would intern every character shown as a qstr
        for x in range(len(code)):
            c = code[x]
            if 0 < c < 5:
                display.fill_rect(x * 8, 0, 8, 8, 0)
                display.blit(_GLYPHS[c - 1], x * 8, 0)
        display.page(y)
