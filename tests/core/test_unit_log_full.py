"""The table unit when a board's input log is full (auction.MAX_INPUTS, docs/unit.md "Memory"): the press is
refused with "auction full: TD", the first refusal calls the director, and the rest of the unit works: he rules,
the auction ends, the board is scored and the next one starts with an empty log. A restart rebuilds the same.

Dealer N (board 1); E's pass out of rotation is pending (Law 30 A), so W's presses are held, one input each.
"""
from keypress import presses as press
from scratch import scratch

from bidwire.core.auction import MAX_INPUTS, RESERVE
from bidwire.unit import app as A
from bidwire.unit import screens
from bidwire.unit.app import App
from bidwire.unit.journal import Journal
from bidwire.unit.keys import parse_key
from bidwire.unit.store import Store

FULL_TEXT = "auction full: TD"
PIN = "N TD, N 1, N 2, N 3, N 4"  # the director's PIN 1234 (the first TD press was the unit's own call)




def filled(app):
    """Board 1, E's pass out of turn, then W's passes held until one place before the reserve is reached."""
    press(app, "N PASS, E PASS")
    n = MAX_INPUTS - RESERVE - 1  # E's pass is the first input
    for _ in range(n):
        assert app.key(3, parse_key("PASS"))[-1]["verdict"] == "held"
    return app


def test_a_press_beyond_the_log_is_refused_on_screen_and_calls_the_director_once():
    app = filled(App("T01", "record", "1234"))
    assert app.auction.n_inputs == MAX_INPUTS - RESERVE
    ev, changed = press(app, "W PASS")
    assert changed == [True]  # the screen changed: journaled like any such press
    assert [e["type"] for e in ev] == ["note", "td_call"] and ev[1]["seat"] == "W"
    assert str(MAX_INPUTS) in ev[0]["text"] and ev[0]["board"] == 1
    assert app.td == A.App.TD_CALLED and app.note == FULL_TEXT
    assert FULL_TEXT in screens.compose(app, "W q0")
    ev, changed = press(app, "W 1, W C, S X, N ALERT")
    assert ev == [] and changed == [True, True, True, True]  # refused again, the director called already
    assert app.auction.n_inputs == MAX_INPUTS - RESERVE
    assert max(len(r) for r in screens.compose(app, "W q0")) <= 16  # the characters of a display row


def test_the_director_still_rules_and_the_board_ends_and_is_scored():
    app = filled(App("T01", "record", "1234"))
    press(app, "W PASS")
    ev, _ = press(app, PIN + ", N 1")  # menu entry 1: reject (Law 30 A: E must pass at his next turn)
    assert [e["type"] for e in ev] == ["ruling_applied"] and ev[0]["ruling"] == "reject" and app.td == 0
    ev, _ = press(app, "N PASS, E PASS, S PASS, W PASS")
    end = [e for e in ev if e["type"] == "auction_end"][0]
    assert end["contract"] == "Pass" and len(end["inputs"]) == MAX_INPUTS - RESERVE + 5
    assert end["inputs"][0] == "E:P" and end["inputs"][-5] == "!reject"
    assert [e for e in ev if e["type"] == "result"][0]["score_ns"] == 0
    assert app.screen == A.SCORE
    press(app, "N PASS")
    assert app.board == 2 and app.auction.n_inputs == 0 and not app.log_full
    ev, _ = press(app, "E 1, E C, S PASS")  # board 2, dealer E: a fresh log takes every press again
    assert [e["verdict"] for e in ev if e["type"] == "call"] == ["legal", "legal"]


def test_a_collector_ruling_that_finds_the_log_full_is_refused_with_a_reason():
    app = filled(App("T01", "record", "1234"))
    for _ in range(RESERVE - 1):  # the reserve filled with the director's restrictions (each is an input)
        ev = app.command({"seq": app.cmd_ack + 1, "type": "ruling", "ruling": "pass_next_turn", "board": 1,
                          "seat": "S"})
        assert ev[-1]["type"] == "ruling_applied"
    assert app.auction.n_inputs == MAX_INPUTS - 1  # the last place is the lead's
    ev = app.command({"seq": app.cmd_ack + 1, "type": "ruling", "ruling": "reject", "board": 1, "at": 0})
    assert ev[-1]["type"] == "ruling_refused" and ev[-1]["reason"] == "log_full"


class Clock:
    t = 1000

    def time(self):
        self.t += 1
        return self.t


def test_a_restart_rebuilds_the_full_board_and_its_answer():
    path = scratch("log-full")
    store = Store(Journal(path), App("T01", "record", "1234"), Clock())
    store.open({"firmware": "test"})
    for item in ("N PASS", "E PASS") + ("W PASS",) * (MAX_INPUTS - RESERVE) + ("S 2", "S NT"):
        seat, key = item.split()
        store.key("NESW".index(seat), parse_key(key))
    shown = screens.compose(store.app, "")
    assert FULL_TEXT in shown
    seq, keys = store.seq, store.keys
    store.journal.close()
    again = Store(Journal(path), App("T01", "record", "1234"), Clock())
    again.open({"firmware": "test"})
    assert screens.compose(again.app, "") == shown and again.app.td == A.App.TD_CALLED
    assert again.app.auction.n_inputs == MAX_INPUTS - RESERVE and again.keys == keys
    assert again.seq == seq + 1  # this boot's hello
    again.journal.close()
