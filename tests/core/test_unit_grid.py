"""The auction grid tells the truth: each call under the seat that made it (docs/unit.md "At the table").

After a call out of rotation is accepted the rotation goes on from the offender (Law 29 B, laws.md §4.3) and
a skipped player's turn is lost: his cell stays blank. The grid columns are W N E S, 4 characters each; the
rectifications of laws.md §5.2-§5.3 that move the rotation (C9, C11, C12, R04, R07, R08, R13, R14, R16, R17, R20,
R21, R23) are played on the keys and the rows worked by hand from the Laws.
"""
from bidwire.core.calls import bid
from bidwire.unit import app as A
from bidwire.unit import screens
from bidwire.unit.app import App
from bidwire.unit.keys import parse_key

PIN_MENU = "TD, {s} TD, {s} 1, {s} 2, {s} 3, {s} 4"  # the director's call, PIN 1234, then his menu


def play(app, script):
    for item in script.split(","):
        seat, key = item.split()
        app.key("NESW".index(seat), parse_key(key))


def board(number):
    app = App("T01")
    app.command({"seq": 1, "type": "assign", "table": 1, "round": 1, "boards": [number], "ns": 1, "ew": 2})
    return app


def director(app, seat, choice):
    play(app, seat + " " + PIN_MENU.format(s=seat) + ", " + seat + " " + str(choice))


def grid(app, top=1, n=4):
    return screens.text(screens.lines(app, ""))[top:top + 1 + n]


def test_the_skipped_player_the_offender_and_the_acceptor_each_call_in_their_own_column():
    app = board(1)  # dealer N
    play(app, "E 1, E H, S 1, S S")  # E bids at N's turn (N skipped); S accepts by bidding (Law 29 B)
    assert grid(app) == [">W   N   E   S  ",
                         "        1H  1S  ",
                         "                ", "                ", "                "]
    play(app, "W PASS, N 2, N S, E 3, E H, S 3, S S")  # skipped N, offender E, acceptor S call again
    assert grid(app) == [">W   N   E   S  ",
                         "        1H  1S  ",
                         "P   2S  3H  3S  ",
                         "                ", "                "]


def test_a_long_auction_after_an_accepted_call_scrolls_by_rows_of_the_table():
    app = board(1)
    play(app, "E 1, E H, S 1, S S, W PASS, N 2, N S, E 3, E H, S 3, S S, W 4, W H, N 4, N S, E 5, E H, S 5, S S,"
              " W PASS, N PASS, E 6, E H, S 6, S S, W PASS")
    assert grid(app) == [" W  >N   E   S  ",
                         "P   2S  3H  3S  ",  # the first row (E's 1H and S's 1S) has scrolled off
                         "4H  4S  5H  5S  ",
                         "P   P   6H  6S  ",
                         "P               "]


def test_a_call_at_partners_turn_accepted_skips_two_players():
    app = board(1)  # dealer N: S bids at N's turn, N and E lose their turn when W accepts
    play(app, "S 1, S D, W 1, W H, N 1, N S, E 2, E C, S 2, S D, W PASS")
    assert grid(app) == [" W  >N   E   S  ",
                         "            1D  ",
                         "1H  1S  2C  2D  ",
                         "P               ",
                         "                "]


def test_a_call_before_the_dealer_by_his_rho_accepted_by_the_dealer_comes_first_on_the_row():
    app = board(1)  # dealer N: W bids first; N calls over it (laws.md §4.3 [DESIGN]: accepted, flagged)
    play(app, "W 1, W C, N 1, N H, E PASS, S 1, S S, W 2, W C, N 2, N H")
    assert grid(app) == [" W   N  >E   S  ",
                         "1C  1H  P   1S  ",
                         "2C  2H          ",
                         "                ", "                "]


def test_an_accepted_call_out_of_rotation_with_another_dealer():
    app = board(4)  # board 4: dealer W; N bids at W's turn, E accepts, W's turn is lost
    play(app, "N 1, N C, E 1, E D, S PASS, W 1, W H")
    assert grid(app) == [" W  >N   E   S  ",
                         "    1C  1D  P   ",
                         "1H              ",
                         "                ", "                "]


def test_the_lead_screen_shows_the_auction_with_the_accepted_call_in_its_column():
    app = board(1)
    play(app, "E 1, E H, S 1, S S, W PASS, N 2, N S, E 3, E H, S 3, S S, W PASS, N PASS, E PASS")
    assert app.screen == A.LEAD and app.leader == 3  # 3S by S (S named spades first), W leads
    assert grid(app, 1, 3) == [" W   N   E   S  ",
                               "        1H  1S  ",
                               "P   2S  3H  3S  ",
                               "P   P   P       "]


def test_a_pass_out_of_rotation_accepted_c11():
    app = board(1)  # C11: E passes at N's turn, S accepts by passing, W passes; N has not called yet
    play(app, "E PASS, S PASS, W PASS")
    assert grid(app) == [" W  >N   E   S  ",
                         "        P   P   ",
                         "P               ",
                         "                ", "                "]


def test_the_player_skipped_by_an_accepted_pass_still_gets_his_turn_c12():
    app = board(1)  # C12: N:P, S passes at E's turn, W accepts, N passes: E never called
    play(app, "N PASS, S PASS, W PASS, N PASS")
    assert grid(app) == [" W   N  >E   S  ",
                         "    P       P   ",
                         "P   P           ",
                         "                ", "                "]


def test_law_34_cancels_the_passes_after_the_skip_r17():
    app = board(1)  # R17: N:1H; S passes at E's turn; W accepts; N passes
    play(app, "N 1, N H, S PASS, W PASS")
    assert grid(app)[1:3] == ["    1H      P   ", "P               "]
    play(app, "N PASS")  # three passes, but E never called: back to E (Law 34)
    assert grid(app) == [" W   N  >E   S  ",
                         "    1H          ",
                         "                ", "                ", "                "]


def test_28b_the_in_turn_player_calls_over_his_lhos_call_r08():
    app = board(1)  # R08: N:1H; S:2H at E's turn; E:1S before any ruling: S's 2H is discarded
    play(app, "N 1, N H, S 2, S H, E 1, E S")
    assert grid(app)[:3] == [" W   N   E  >S  ", "    1H  1S      ", "                "]


def test_28a_a_deemed_pass_is_shown_for_the_seat_obliged_to_pass_r23():
    app = board(1)  # R05 then R23: E's pass out of rotation rejected (E must pass next turn), N:1H, S:2H
    play(app, "E PASS")
    director(app, "N", 1)  # 1 reject
    play(app, "N 1, N H, S 2, S H")  # at E's turn; E must pass: a deemed pass for E (Law 28 A)
    assert grid(app)[:3] == [">W   N   E   S  ", "    1H  P   2H  ", "                "]


def test_a_rejected_call_out_of_rotation_leaves_the_turn_with_the_dealer_r04():
    app = board(1)  # R04: S:1NT at N's turn, W does not accept: the director rejects it (Law 31 B)
    play(app, "S 1, S NT")
    director(app, "W", 1)
    assert grid(app)[:2] == [" W  >N   E   S  ", "                "]
    play(app, "N PASS, E 1, E C")  # N must pass throughout; the auction goes on from him
    assert grid(app)[:3] == [" W   N   E  >S  ", "    P   1C      ", "                "]


def test_35a_an_inadmissible_double_and_the_call_over_it_are_cancelled_r13():
    app = board(1)  # R13: N:1H E:P S:X (of partner's bid); W:2C before any ruling
    play(app, "N 1, N H, E PASS, S X, W 2, W C")
    assert grid(app)[:3] == [" W   N   E  >S  ", "    1H  P       ", "                "]


def test_a_change_of_call_allowed_as_a_slip_replaces_the_call_in_its_cell():
    app = board(1)  # R21: N:1H, UNDO, N:1S; the director allows it (Law 25 A)
    play(app, "N 1, N H, N UNDO, N 1, N S")
    director(app, "E", 1)  # 1 25a
    assert grid(app)[:3] == [" W   N  >E   S  ", "    1S          ", "                "]


def test_37_a_call_that_broke_a_pass_obligation_is_replaced_by_a_pass_in_its_column_r16():
    app = board(1)  # R04 leaves N obliged to pass throughout; N bids 2C; the director rejects it (Law 37)
    play(app, "S 1, S NT")
    director(app, "W", 1)
    play(app, "N 2, N C")
    director(app, "E", 1)
    assert grid(app)[:3] == [" W   N  >E   S  ", "    P           ", "                "]


def test_36_an_inadmissible_double_rejected_goes_back_to_the_offender_r14():
    app = board(1)  # R14: N:1H E:P S:X (of partner's bid); the director is called before W acts
    play(app, "N 1, N H, E PASS, S X")
    director(app, "W", 1)
    assert grid(app)[:3] == [" W   N   E  >S  ", "    1H  P       ", "                "]


def test_35c_a_bid_above_seven_and_the_call_over_it_are_cancelled_and_a_pass_substituted_r20():
    app = board(1)  # R20: N:7NT; E:8C (no key makes it: the core records it); S calls before any ruling
    play(app, "N 7, N NT")
    app.auction.call(1, bid(8, 0))
    play(app, "S PASS")
    assert grid(app)[:3] == [" W   N   E  >S  ", "    7NT P       ", "                "]
