"""What the players see (docs/architecture.md §3 "Screens"): the rows of the 128 x 64 display for each screen.

Rows are 16 characters; the auction grid has W N E S columns of 4, whose turn marked with '>'; suits are
glyphs (shown here as letters through screens.text).
"""
from bidwire.unit import screens
from bidwire.unit.app import App
from bidwire.unit.keys import parse_key


def play(app, script):
    for item in script.split(","):
        seat, key = item.split()
        app.key("NESW".index(seat), parse_key(key))


def shown(app, status="W q0"):
    return screens.text(screens.lines(app, status))


def test_board_start_shows_board_dealer_vulnerability_and_pairs():
    app = App("T01")
    app.command({"seq": 1, "type": "assign", "table": 4, "round": 2, "boards": [7], "ns": 3, "ew": 12})
    rows = shown(app)
    assert rows == ["Bd7 DlrS All", "T4 R2", "NS 3 EW 12", "Board 7", "Dealer S", "Vul Both", "S to call",
                    "W q0"]


def test_auction_grid_starts_in_the_dealers_column_and_marks_alerts_and_the_turn():
    app = App("T01")
    play(app, "N PASS, N PASS, E PASS, S PASS, W PASS, N PASS")  # board 1 passed out; on to board 2
    rows = shown(app)
    assert rows[0] == "Bd2 DlrE NS"  # board 2: dealer E, N-S vulnerable (Law 2)
    play(app, "E 1, E NT, W ALERT, S 2, S C, W PASS")
    rows = shown(app)
    assert rows[1] == " W  >N   E   S  "
    assert rows[2] == "        1NT!2C  "
    assert rows[3] == "P               "
    assert rows[4] == " " * 16
    assert rows[6] == "N to call"


def test_a_pending_level_and_a_pass_obligation_are_prompted():
    app = App("T01")
    play(app, "N PASS, N 2")
    assert shown(app)[6] == "N: 2_"


def test_irregularity_screen_names_the_law_and_who_may_accept():
    app = App("T01")
    play(app, "N PASS, E 1, E S")  # board 1, dealer N: E bids out of rotation
    rows = shown(app)
    assert rows[:7] == ["IRREGULAR L31", "E 1S", "out of turn", "S may accept:", " call over it", "or TD: reject", ""]


def test_director_menu_after_the_pin():
    app = App("T01")
    play(app, "N PASS, N 2, N H, E 1, E S, E TD, E TD")
    assert shown(app)[:3] == ["DIRECTOR", "", "PIN: _"]
    play(app, "E 1, E 2")
    assert shown(app)[2] == "PIN: **_"
    play(app, "E 3, E 4")
    assert shown(app)[:5] == ["DIRECTOR L27", "1 reject", "2 reject natural", "3 pass next turn", "4 end call"]


def test_result_entry_and_confirmation():
    app = App("T01")
    play(app, "N PASS, N 3, N NT, E PASS, S PASS, W PASS, E D")
    rows = shown(app)
    assert rows[1:4] == ["3NT by N", "lead E D", "tricks 9 ="]
    play(app, "N X, N PASS")
    rows = shown(app)
    assert rows[3:7] == ["tricks 8 -1", "NS -50", "EW PASS=agree", "UNDO=wrong"]
    play(app, "S PASS")
    assert shown(app)[6] == "EW to confirm"  # N-S entered the tricks: E-W confirm


def test_the_score_screen_reads_contract_declarer_result_and_score():
    app = App("T01")
    app.command({"seq": 1, "type": "assign", "table": 1, "round": 1, "boards": [4], "ns": 1, "ew": 2})
    play(app, "W PASS, N 4, N S, E X, S PASS, W PASS, N PASS, E H, E X, E PASS, N PASS")
    rows = shown(app)  # board 4, all vulnerable: 4S doubled by N, nine tricks: 200 to E-W (Law 77)
    assert rows[1:3] == ["4SX N -1", "NS -200"]
    app.command({"seq": 2, "type": "traveller", "board": 4, "rows": [[1, 2, "4SXN", -200], [3, 14, "3NTS", 600]]})
    assert shown(app)[3:6] == ["1-2 4SXN    -200", "3-14 3NTS    600", ""]
    # with the club's percentages (evening.unit_results "percent"): Law 78 A, -200 below 600: 0 % and 100 %
    app.command({"seq": 3, "type": "traveller", "board": 4,
                 "rows": [[1, 2, "4SXN", -200, 0], [3, 14, "3NTS", 600, 100]]})
    assert shown(app)[3:6] == ["4SXN     -200 0%", "3NTS    600 100%", ""]
