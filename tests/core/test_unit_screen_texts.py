"""Every text the players see fits the display's 16 columns (docs/unit.md "At the table"), and the screens
answer every press: the director's call from the board-start screen, a press held by a pending irregularity.

Each screen state is reached on the keys (or by the collector's commands) with the longest texts it can
carry; `screens.compose` gives the rows before the display cuts them, so a row that would be cut fails here.
"""
from bidwire.core.auction import MAX_INPUTS, RESERVE
from bidwire.core.calls import bid
from bidwire.unit import app as A
from bidwire.unit import screens
from bidwire.unit.app import App
from bidwire.unit.keys import parse_key

PIN = "TD, {s} TD, {s} 1, {s} 2, {s} 3, {s} 4"  # the director's call, then his PIN 1234
LONG_UNIT = "club-hall-east-table-twenty-four"  # 32 characters: the longest unit id a config holds
MESSAGE = "Round 3 is the last: stay seated for the draw"  # a collector message (up to 48 characters)
MOVE = "NS stay         EW to table 13  Boards: table 12"  # bidwire_host.event.movecards.move_text, 3 lines
COLS = 16  # the characters of a display row (screens.py)
STATUSES = ("W q128 100%", "x q3", "FLASH FULL", "FLASH ERROR 28", "journal cut: short checksum",
            "journal cut: short payload")


def play(app, script):
    for item in script.split(","):
        seat, key = item.split()
        app.key("NESW".index(seat), parse_key(key))
    return app


def table(number=1, mode="record", script=""):
    app = App("T01", mode)
    app.command({"seq": 1, "type": "assign", "section": "A", "table": 120, "round": 12, "boards": [number],
                 "ns": 120, "ew": 121, "move": MOVE})
    return play(app, script) if script else app


def director(app, seat):
    return play(app, seat + " " + PIN.format(s=seat))


def states():
    """(name, app) for every screen state: set-up, board start, bidding, each irregularity kind, lead, result,
    confirm, score, move, the director's call, PIN, menu, seat choice, messages."""
    yield "set-up", App(LONG_UNIT)
    msg = App("T01")
    msg.command({"seq": 1, "type": "message", "text": MESSAGE})
    yield "set-up with a message", msg
    yield "board start", table()
    yield "board start, director called", table(script="N TD")
    yield "bidding", table(script="N 1, N NT, E X, S XX, N ALERT, W 2, W C, N 2, N NT, E PASS, S 3, S NT, W PASS")
    yield "a level pending", table(script="N 1, N H, E 7")
    yield "undo pressed", table(script="N 1, N H, N UNDO")
    yield "undo too late", table(script="N 1, N H, E PASS, N UNDO")
    yield "enforce mode", table(mode="enforce", script="N 1, N H")
    yield "pass only", play(director(table(script="S 1, S NT"), "W"), "W 1")  # 1 reject
    yield "must repeat", play(director(table(script="E 1, E NT"), "N"), "N 1, N PASS")
    yield "must replace", play(director(table(script="N 2, N C, E 1, E C"), "E"), "E 1")
    yield "out of turn", table(script="E 1, E NT")
    yield "insufficient", table(script="N 2, N C, E 1, E C")
    yield "illegal double", table(script="N 1, N H, E PASS, S X")
    yield "illegal redouble", table(script="N 1, N H, E PASS, S XX")
    yield "must have passed", play(director(table(script="S 1, S NT"), "W"), "W 1, N 1, N C")
    yield "change of call", table(script="N 1, N H, N UNDO, N 1, N NT")
    above = table(script="N 1, N H")
    above.auction.call(1, bid(8, 4))  # 8NT: no key makes it, the core records it (Law 38)
    yield "above seven", above
    yield "held press", table(script="E 1, E NT, W 1, W NT")
    yield "held, director called", table(script="E 1, E NT, W PASS, N TD")
    yield "irregular with a level pending", table(script="E 1, E NT, S 2")
    yield "PIN", table(script="E 1, E NT, N TD, N TD, N 1, N 2, N 3")
    yield "wrong PIN", play(table(script="N 1, N H"), "S TD, S TD, S 1, S 1, S 1, S 1")
    yield "menu, insufficient", director(table(script="N 2, N C, E 1, E C"), "E")
    yield "menu, change of call", director(table(script="N 1, N H, N UNDO, N 1, N NT"), "E")
    yield "seat choice", play(director(table(script="N 1, N H"), "E"), "E 1")  # 1 pass next turn
    for refused, script in (("out of turn", "E 1, E S"), ("too low", "N 2, N H, E 1, E S"),
                            ("bad X", "N 1, N H, E PASS, S X"), ("bad XX", "N 1, N H, E XX")):
        yield "enforce: " + refused, table(mode="enforce", script=script)
    grand = "N 7, N NT, E X, S XX, W PASS, N PASS, E PASS"  # 7NT redoubled by N: the longest contract
    yield "lead", table(script=grand)
    yield "lead, after the end", table(script=grand + ", E 1, E NT")
    yield "lead, director called", table(script=grand + ", S TD")
    # S's 7NT out of rotation rejected (N passes throughout): 7S by W, N leads under Law 26 B; with a call open
    yield "lead, Law 26, director called", play(director(table(script="S 7, S NT"), "W"),
                                                "W 1, N PASS, E PASS, S PASS, W 7, W S, N PASS, E PASS, S PASS, N TD")
    # the same with declarer's choice sent by the collector (lead_choice): each choice, a lead it refused, a call open
    law26 = "S 1, S H", "W 1, N PASS, E PASS, S PASS, W 7, W S, N PASS, E PASS, S PASS"  # 26 A on hearts
    for choice, suit, script in (("require", "H", "N C"), ("bar", "H", "N H"), ("waive", None, "N TD")):
        chosen = play(director(table(script=law26[0]), "W"), law26[1])
        chosen.command({"seq": 2, "type": "lead_choice", "board": 1, "seat": "N", "choice": choice, "suit": suit})
        yield f"lead, Law 26 {choice}", chosen
        yield f"lead, Law 26 {choice}, {script}", play(chosen, script)
    yield "no double this turn", play(director(table(script="N 1, N H, E 1, E S, N PASS"), "W"), "W 1")
    yield "bidding, director called", table(script="N 1, N H, E 7, E NT, S TD")
    yield "result", table(script=grand + ", E C")
    yield "result, thirteen down", table(script=grand + ", E C, E 1, E X, E X, E X, E X, E X, E X, E X")
    yield "confirm", table(4, script="W PASS, N 7, N NT, E X, S XX, W PASS, N PASS, E PASS, E C, N PASS")
    yield "confirm, same side", table(4, script="W PASS, N 7, N NT, E X, S XX, W PASS, N PASS, E PASS, E C, N PASS,"
                                                " S PASS")
    down = table(4, script="W PASS, N 7, N NT, E X, S XX, W PASS, N PASS, E PASS, E C, E 1, E X, E PASS, N PASS")
    down.command({"seq": 2, "type": "traveller", "board": 4,
                  "rows": [[120, 121, "7NTXXN", -7600], [3, 14, "3NTS", 600], [7, 8, "Pass", 0]]})
    yield "score", down
    yield "score, passed out", table(script="N PASS, E PASS, S PASS, W PASS")
    done = table(script="N PASS, E PASS, S PASS, W PASS, N PASS")
    yield "move", done
    done = table(script="N 1, N H, E PASS")
    done.command({"seq": 2, "type": "message", "text": MESSAGE})
    yield "bidding, a message", done
    full = table(script="E PASS")  # E's pass out of turn held pending; W's presses are held until the log is full
    for _ in range(MAX_INPUTS - RESERVE):
        play(full, "W PASS")
    yield "auction full", full


def test_every_screen_state_fits_16_columns():
    too_long = []
    n = 0
    for name, app in states():
        n += 1
        for status in STATUSES:
            for row in screens.compose(app, status):
                if len(row) > COLS:
                    too_long.append(name + ": " + row)
        app = None
    assert n == 52 and too_long == [], too_long


def shown(app, status="W q0"):
    return screens.text(screens.lines(app, status))


def test_the_truncations_seen_before_are_gone():
    rows = shown(table(script="N 2, N C, W 1, W C"))  # was "W 1C insufficien"
    assert rows[1:3] == ["W 1C", "out of turn"]
    rows = shown(table(script="N 2, N C, E 1, E C"))
    assert rows[1:3] == ["E 1C", "insufficient bid"]
    rows = shown(table(script="N 1, N S, E PASS, S PASS, W PASS, E H, N PASS, S PASS"))  # was "other side confi"
    assert rows[6] == "EW to confirm"
    assert shown(table(), "journal cut: short checksum")[7] == "journal cut"


def test_a_long_message_is_shown_whole_word_by_word():
    app = table(script="N 1, N H, E PASS")
    app.command({"seq": 2, "type": "message", "text": MESSAGE})
    rows = shown(app)  # wrapped by hand at the last space that leaves at most 16 columns, above the prompt row
    assert rows[2:6] == ["Round 3 is the", "last: stay", "seated for the", "draw"]
    assert rows[:2] == ["Bd1 DlrN -", " W   N   E  >S  "] and rows[6:] == ["S to call", "W q0"]
    play(app, "S PASS")  # the next call clears it
    assert shown(app)[2:7] == ["    1H  P   P   ", " " * 16, " " * 16, " " * 16, "W to call"]


def test_td_on_the_board_start_screen_shows_the_director_call_at_once():
    app = table()
    play(app, "S TD")
    rows = shown(app)
    assert rows[0] == "Bd1 DlrN -" and rows[3] == "director called" and rows[6] == "N to call"  # beside the prompt
    play(app, "S TD")  # the second press: the director's PIN
    assert shown(app)[:3] == ["DIRECTOR", "", "PIN: _"]


def test_the_director_call_shows_on_the_lead_result_and_score_screens():
    app = table(script="N 1, N NT, E PASS, S PASS, W PASS")
    for script, screen, row, prompt in (("W TD", A.LEAD, 4, "E: lead suit"), ("E C, S TD", A.RESULT, 2, "PASS: enter"),
                                        ("N PASS, W TD", A.CONFIRM, 2, "UNDO=wrong"), ("E PASS, W TD", A.SCORE, 5,
                                                                                     "PASS: next")):
        play(app, script)
        rows = shown(app)
        assert app.screen == screen and app.td == A.App.TD_CALLED, script
        assert rows[row] == "director called" and rows[6] == prompt, script  # beside the prompt, never over it
        play(app, "N TD, N 1, N 2, N 3, N 4, N 1")  # the director's PIN, then "end call"
        assert app.td == 0


def test_a_press_held_by_a_pending_irregularity_is_answered():
    app = table(script="E 1, E NT, W PASS")  # dealer N: E bids out of turn; only S (or the director) acts now
    rows = shown(app)
    assert rows[3] == "S may accept:" and rows[6] == "W P not taken"
    play(app, "S 2")
    assert shown(app)[6] == "S: 2_"
    play(app, "S C")  # S accepts 1NT by calling over it
    assert app.auction.p_kind == 0 and shown(app)[6] == "W to call"
    app = table(script="N 1, N H, N UNDO, N 1, N S, E 2, E C")  # a change of call: the director rules
    rows = shown(app)
    assert rows[1:3] == ["N change to 1S", "director rules"] and rows[6] == "E 2C not taken"


def test_the_answer_to_a_held_press_goes_when_the_director_rules():
    app = table(script="N 1, N S, E 2, E H, S 2, S S, S UNDO, S 1, S C, W PASS")  # S changes 2S to 1C
    assert shown(app)[6] == "W P not taken"
    play(director(app, "N"), "N 1")  # 25A: the change stands, and 1C is insufficient over 2H (Law 27)
    rows = shown(app)
    assert rows[:3] == ["IRREGULAR L27", "S 1C", "insufficient bid"] and rows[6] == ""


def test_enforce_mode_says_why_a_press_was_refused_and_under_which_law():
    assert shown(table(mode="enforce", script="E 1, E S"))[6] == "E: N's turn L31"
    assert shown(table(mode="enforce", script="N 2, N H, E 1, E S"))[6] == "E: too low L27"
    # record mode: a call that an obligation does not allow (E must repeat 1NT, Law 31 A1) is refused too
    app = play(director(table(script="E 1, E NT"), "N"), "N 1, N PASS")
    assert shown(app)[6] == "E: repeat 1NT"
    assert shown(play(app, "E 2, E C"))[6] == "E: not legal L31"
