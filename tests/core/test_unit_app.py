"""The table unit's state machine (docs/architecture.md §3): keys in, screens and events out.

Expected contracts, declarers and scores are worked by hand from the Laws (18-22, 77) and laws.md §2.2.
"""
from keypress import presses as press

from bidwire.core.codes import CHANGE_OF_CALL, MUST_REPEAT, OUT_OF_ROTATION
from bidwire.unit import app as A
from bidwire.unit import director, screens
from bidwire.unit.app import App


def started(mode="record"):
    app = App("T01", mode, "1234")
    press(app, "N PASS")  # set-up screen: PASS plays from board 1 without a collector
    return app


def kinds(events):
    return [e["type"] for e in events]


def test_a_board_from_first_call_to_score():
    app = started()
    assert app.screen == A.START and app.board == 1
    assert screens.compose(app)[4:6] == ["Dealer N", "Vul None"]  # board 1 (laws.md §2.2)
    ev, _ = press(app, "N 1, N H, E PASS, S 2, S H, W PASS, N PASS, E PASS")
    assert [e["input"] for e in ev if e["type"] == "call"] == ["N:1H", "E:P", "S:2H", "W:P", "N:P", "E:P"]
    end = [e for e in ev if e["type"] == "auction_end"][0]
    assert end["contract"] == "2H" and end["declarer"] == "N"  # N named hearts first for N-S
    assert app.screen == A.LEAD and app.leader == 1  # declarer's LHO leads
    assert press(app, "S C")[1] == [False]  # not S's lead: ignored
    ev, _ = press(app, "E C")
    assert kinds(ev) == ["lead"] and ev[0]["suit"] == "C" and app.screen == A.RESULT
    assert app.tricks == 8  # 2H: six plus two, "made exactly"
    press(app, "N XX, N PASS")
    assert app.screen == A.CONFIRM and app.tricks == 9
    assert press(app, "S PASS")[1] == [False]  # the side that entered cannot confirm
    ev, _ = press(app, "W PASS")
    assert app.screen == A.SCORE
    r = ev[0]
    # 2H + 1, not vulnerable: 60 trick score + 50 part score + 30 overtrick = 140 to N-S
    assert r["type"] == "result" and r["tricks"] == 9 and r["score_ns"] == 140
    assert r["entered_by"] == "N" and r["confirmed_by"] == "W" and r["contract"] == "2H"
    ev, _ = press(app, "E PASS")
    assert app.board == 2 and app.screen == A.START and ev[0]["type"] == "board_start"
    assert ev[0]["dealer"] == "E" and ev[0]["vul"] == "NS"  # board 2: dealer E, N-S vulnerable


def test_a_level_waits_for_its_strain_and_can_be_changed():
    app = started()
    ev, changed = press(app, "N 3, N 1, N S")
    assert changed == [True, True, True] and [e["input"] for e in ev] == ["N:1S"]
    assert press(app, "E H")[1] == [False]  # a strain without a level does nothing


def test_passed_out_board_scores_zero():
    app = started()
    ev, _ = press(app, "N PASS, E PASS, S PASS, W PASS")
    assert app.screen == A.SCORE
    r = [e for e in ev if e["type"] == "result"][0]
    assert r["contract"] == "Pass" and r["score_ns"] == 0


def test_result_entry_keys_down_and_level():
    app = started()
    press(app, "N 4, N S, E X, S PASS, W PASS, N PASS, E H")  # 4S doubled by N; E leads
    assert app.tricks == 10
    press(app, "E X, E X, E X")
    assert app.tricks == 7
    press(app, "E 5")  # level 5: eleven tricks
    assert app.tricks == 11
    press(app, "E PASS")  # entered by E-W, confirmed by N-S
    ev, _ = press(app, "S PASS")
    # 4S doubled + 1, not vulnerable: 240 + 300 game + 50 insult + 100 overtrick = 690
    assert ev[0]["score_ns"] == 690 and ev[0]["contract"] == "4SX"


def test_alert_marks_partners_last_call():
    app = started()
    ev, _ = press(app, "N 1, N C, S ALERT")
    assert ev[-1]["input"] == "S@" and ev[-1]["alert"] is True and app.auction.alerted[0] == 1


def test_call_out_of_rotation_rejected_by_the_director_with_pin():
    app = started()  # dealer N
    ev, _ = press(app, "E 1, E S")
    irr = [e for e in ev if e["type"] == "irregularity"][0]
    assert app.auction.p_kind == OUT_OF_ROTATION and irr["law"] == 31 and irr["offender"] == "E"
    assert irr["entitled"] == "S" and irr["options"] == ["reject"]
    ev, _ = press(app, "W TD")
    assert kinds(ev) == ["td_call"] and app.td == A.App.TD_CALLED
    press(app, "N TD, N 1, N 2, N 3, N 5")  # wrong PIN
    assert app.td == A.App.TD_CALLED and app.note == "wrong PIN"
    press(app, "N TD, N 1, N 2, N 3, N 4")
    assert app.td == A.App.TD_MENU and director.menu(app) == [1, 7, 0]  # reject, pass next turn, end call
    ev, _ = press(app, "N 1")
    assert ev[0]["type"] == "ruling_applied" and ev[0]["ruling"] == "reject" and app.td == 0
    press(app, "N PASS")  # R01: N passes, E must repeat 1S (Law 31 A1)
    r = app.auction.restriction(1, MUST_REPEAT)
    assert r is not None


def test_calls_are_held_while_an_irregularity_waits():
    app = started()
    press(app, "E 1, E S")
    ev, _ = press(app, "W PASS")  # not the player entitled to choose
    assert ev[0]["verdict"] == "held"


def test_lho_accepts_a_call_out_of_rotation_by_calling():
    app = started()
    ev, _ = press(app, "E 1, E S, S 2, S C")  # S (LHO of E) calls over 1S: accepted, Law 29 A
    assert not app.auction.p_kind
    assert [e["input"] for e in ev if e["type"] == "call"] == ["E:1S", "S:2C"]
    assert app.auction.in_turn() == 3


def test_undo_then_a_new_call_is_a_change_of_call_ruled_under_25a():
    app = started()
    press(app, "N 1, N H, N UNDO, N 1, N S")
    assert app.auction.p_kind == CHANGE_OF_CALL
    press(app, "E TD, E TD, E 1, E 2, E 3, E 4")
    assert director.menu(app)[:4] == [3, 4, 5, 6]  # 25a, 25b accept, 25b stand, 25b other
    ev, _ = press(app, "E 1")
    assert ev[0]["ruling"] == "25a" and app.auction.eff[0] >> 2 == 3 + 3  # 1S stands
    assert press(app, "E PASS, N UNDO")[1] == [True, False] and app.note == "N: UNDO too late"


def test_enforce_mode_refuses_a_call_out_of_turn():
    app = started("enforce")
    ev, _ = press(app, "E 1, E S")
    assert ev[0]["verdict"] == "refused" and len(app.auction.eff) == 0


def test_collector_assignment_and_end_of_round():
    app = App("T01", "record", "1234")
    assert app.command({"seq": 1, "type": "assign", "section": "A", "table": 3, "round": 1, "boards": [5, 6],
                        "ns": 3, "ew": 7, "move": "EW to table 4"})
    assert app.screen == A.START and app.board == 5
    assert screens.compose(app)[4:6] == ["Dealer N", "Vul NS"]  # board 5: dealer N, N-S vulnerable
    assert app.command({"seq": 1, "type": "message", "text": "again"}) is None  # already applied
    press(app, "N PASS, E PASS, S PASS, W PASS, N PASS")
    assert app.board == 6
    press(app, "E PASS, S PASS, W PASS, N PASS, N PASS")
    assert app.screen == A.MOVE
    app.command({"seq": 2, "type": "assign", "round": 2, "boards": [7], "ns": 3, "ew": 5})
    assert app.screen == A.START and app.board == 7 and app.auction.dealer == 2


def test_a_late_board_waits_for_the_round_in_play_then_comes_before_the_next():
    """Late play (docs/director.md "Slow play"): board 4 of round 1, sent while round 2 is in play, is played once
    round 2's boards are done, shown as late, and the next round follows it. Dealers: board 5 N, 6 E, 4 W."""
    app = App("T01", "record", "1234")
    app.command({"seq": 1, "type": "assign", "section": "A", "table": 2, "round": 2, "boards": [5, 6], "ns": 2,
                 "ew": 4, "move": ""})
    press(app, "N PASS, E PASS, S PASS, W PASS")  # board 5 passed out
    late = {"seq": 2, "type": "assign", "section": "A", "table": 2, "round": 1, "boards": [4], "ns": 2, "ew": 2,
            "move": "Late play: bd 4", "late": True}
    app.command(late)
    assert app.snapshot()["late"] == [late]  # kept through a power cut
    press(app, "N PASS")
    assert app.board == 6  # the round goes on first
    press(app, "E PASS, S PASS, W PASS, N PASS, N PASS")
    assert app.screen == A.START and app.board == 4 and app.assignment["round"] == 1
    assert screens.compose(app)[1] == "T2 R1 LATE"
    ev, _ = press(app, "W PASS, N PASS, E PASS, S PASS, N PASS")
    assert app.screen == A.MOVE
    app.command({"seq": 3, "type": "assign", "section": "A", "table": 2, "round": 3, "boards": [7], "ns": 2,
                 "ew": 6, "move": ""})
    assert app.screen == A.START and app.board == 7 and app.assignment["round"] == 3


def test_at_a_rounds_start_each_side_confirms_who_sits_there():
    """Who is at the table (docs/unit.md): an assign with `confirm` shows both pairs with their names; NS presses
    PASS (it is pair 3); EW presses X and its number, 12 (1, then 2, on the level keys), then PASS: a `seated` event
    each, the second not confirmed; then the board is bid as usual."""
    app = App("T01", "record", "1234")
    app.command({"seq": 1, "type": "assign", "section": "A", "table": 3, "round": 2, "boards": [5], "ns": 3,
                 "ew": 7, "move": "", "confirm": True, "names": ["Smith/Jones", "Brown/Lee"]})
    assert app.screen == A.SEAT
    rows = screens.compose(app)
    assert rows[1] == "NS 3 Smith/Jones" and rows[3] == "EW 7 Brown/Lee" and rows[2] == "NS PASS=us X=not"
    assert press(app, "N 1")[1] == [False]  # not a call yet: the sides first
    ev, _ = press(app, "S PASS")
    assert [(e["side"], e["pair"], e["confirmed"]) for e in ev] == [("NS", 3, True)]
    assert press(app, "N PASS")[1] == [False]  # NS has answered
    ev, _ = press(app, "W X, E 1, W 2")
    assert ev == [] and screens.compose(app)[4] == "EW pair? 12"
    ev, _ = press(app, "E PASS")
    assert [(e["side"], e["pair"], e["expected"], e["confirmed"], e["round"]) for e in ev] == \
        [("EW", "12", 7, False, 2)]
    assert app.screen == A.START
    ev, _ = press(app, "N 1, N H")
    assert [e["input"] for e in ev if e["type"] == "call"] == ["N:1H"]


def test_a_side_answers_with_a_membership_number_and_sees_the_name_back():
    """With the assign's `ids` (evening.member_numbers): N types 1234 (1, 2, 3, 4 on the level keys) and PASS: one of
    NS's numbers, so Jones's name is shown for a yes, and PASS confirms; E types 90 (9 on D, 0 on H): not one of EW's,
    a `seated` event with the number, not confirmed."""
    app = App("T01", "record", "1234")
    app.command({"seq": 1, "type": "assign", "section": "A", "table": 3, "round": 2, "boards": [5], "ns": 3,
                 "ew": 7, "move": "", "confirm": True, "names": ["Smith/Jones", "Brown/Lee"],
                 "ids": [["555", "1234"], ["42", "43"]]})
    assert screens.compose(app)[2] == "NS member? "
    press(app, "N 1, N 2, N 3, N 4")
    assert screens.compose(app)[2] == "NS member? 1234"
    ev, _ = press(app, "N PASS")
    assert ev == [] and screens.compose(app)[2] == "NS Jones? PASS"
    ev, _ = press(app, "S PASS")  # his partner may say yes
    assert [(e["side"], e["pair"], e["confirmed"], e["member"]) for e in ev] == [("NS", 3, True, "1234")]
    ev, _ = press(app, "E D, E H, E PASS")  # 90: D is the digit 9, H the digit 0
    assert [(e["side"], e["pair"], e["confirmed"], e["member"]) for e in ev] == [("EW", None, False, "90")]
    assert app.screen == A.START


def test_two_late_boards_are_both_kept_and_come_before_a_round_that_takes_over():
    """Two boards sent for late play while round 2 is in play both wait (the second does not replace the first);
    the next round, arriving at a board's start, comes after them. Dealers: board 5 N, 3 S, 4 W, 7 S."""
    app = App("T01", "record", "1234")
    app.command({"seq": 1, "type": "assign", "section": "A", "table": 2, "round": 2, "boards": [5, 6], "ns": 2,
                 "ew": 4, "move": ""})
    for seq, board in ((2, 3), (3, 4)):
        app.command({"seq": seq, "type": "assign", "section": "A", "table": 2, "round": 1, "boards": [board],
                     "ns": 2, "ew": 2, "move": "", "late": True})
    press(app, "N PASS, E PASS, S PASS, W PASS, N PASS")  # board 5 passed out; on to board 6's start
    assert app.board == 6 and app.screen == A.START
    app.command({"seq": 4, "type": "assign", "section": "A", "table": 2, "round": 3, "boards": [7], "ns": 2,
                 "ew": 6, "move": ""})  # the director moves the table on at board 6's start: the late boards first
    assert (app.board, app.assignment["round"]) == (3, 1)
    press(app, "S PASS, W PASS, N PASS, E PASS, N PASS")
    assert (app.board, app.assignment["round"]) == (4, 1)
    press(app, "W PASS, N PASS, E PASS, S PASS, N PASS")
    assert (app.board, app.assignment["round"]) == (7, 3)


def test_a_ruling_from_the_collector():
    app = started()
    press(app, "N 2, N H, E 1, E S")  # insufficient 1S over 2H
    ev = app.command({"seq": 1, "type": "ruling", "board": 1, "ruling": "reject", "at": 1})  # the 1S, input 1
    assert ev[0]["type"] == "ruling_applied" and ev[0]["by"] == "collector" and ev[0]["at"] == 1
    assert not app.auction.p_kind
