"""What the unit keeps out of its heap until needed (docs/unit.md "Memory"): the director's module is loaded for an
irregularity, a TD press or a ruling and dropped once no director call is open; a unit waiting for its first board
has no Auction (and so no 768-byte input log), yet the director's call works there and the first board starts as
always. Runs on CPython and on MicroPython (sys.modules is what both import from)."""
import sys

from keypress import press

from bidwire.unit import app as A
from bidwire.unit import screens
from bidwire.unit.app import App

DIRECTOR = "bidwire.unit.director"


def loaded():
    return DIRECTOR in sys.modules


def test_the_directors_module_is_loaded_only_while_needed():
    app = App("T01", "record", "1234")
    press(app, "N PASS, N 1, N H, E PASS")  # board 1: legal calls in turn
    assert not loaded()
    ev = press(app, "W 2, W C")  # W out of turn, at his RHO's turn (Law 31): an irregularity, pending
    assert [e["type"] for e in ev] == ["call", "irregularity"] and app.auction.p_kind
    assert not loaded()  # it reported the irregularity, then was dropped: no director call is open
    ev = press(app, "W TD")
    assert [e["type"] for e in ev] == ["td_call"] and loaded()
    press(app, "N TD, N 1, N 2, N 3, N 4")  # his PIN: the menu
    assert app.td == A.App.TD_MENU and loaded() and screens.compose(app, "")[0] == "DIRECTOR L31"
    ev = press(app, "N 1")  # 1: reject (Law 31)
    assert [e["type"] for e in ev][:1] == ["ruling_applied"] and app.td == 0 and not loaded()


def test_no_auction_before_the_first_board_and_the_director_called_there():
    app = App("T01", "record", "1234")
    assert app.board == 0 and app.auction is None and app.screen == A.SETUP
    ev = press(app, "S TD")
    assert [e["type"] for e in ev] == ["td_call"]
    press(app, "S TD, S 1, S 2, S 3, S 4")
    assert app.td == A.App.TD_MENU
    assert sys.modules[DIRECTOR].menu(app) == [0]  # nothing to rule on: only "end call"
    assert screens.compose(app, "")[:2] == ["DIRECTOR", "1 end call"]
    ev = press(app, "S 1")
    assert [e["type"] for e in ev] == ["td_end"] and app.td == 0 and not loaded()
    ev = press(app, "N PASS")  # the set-up screen: board 1 starts, with its auction
    assert ev[0]["type"] == "board_start" and app.board == 1 and app.auction.n_inputs == 0
    assert app.auction.dealer == 0 and app.screen == A.START


def test_a_collector_ruling_before_the_first_board_is_refused():
    app = App("T01", "record", "1234")
    ev = app.command({"seq": 1, "type": "ruling", "ruling": "reject", "at": 0, "board": 1})
    assert ev == [{"type": "ruling_refused", "board": 1, "at": 0, "ruling": "reject", "reason": "other_board"}]
    assert app.auction is None and app.td == 0 and not loaded()

