"""The unit's screen tells the truth at every moment (issue 26), checked through key scripts on the device model
(the frozen 32-bit build, 48K): no row left over from an earlier state, the prompt row still saying whose action it
is while a director call is open, every restriction shown at the seat it binds, presses made in one scan taken
in Law 33's order, and each call's tempo sent to the collector.

Board 1: dealer N, nobody vulnerable; board 2: dealer E, N-S vulnerable. The director's PIN is 1234.
"""

import pytest
from collector_proc import Collector, keyring
from vunit import SECRET, VUnit, write_config
from waiting import wait_until

PIN = ["{s} TD", "{s} TD", "{s} 1", "{s} 2", "{s} 3", "{s} 4"]  # the director called at seat s, then his PIN
ONE_SPADE = ["N PASS", "N 1", "N S", "E PASS", "S PASS", "W PASS"]  # set-up, then board 1: 1S by N, E to lead


@pytest.fixture
def unit(tmp_path):
    u = VUnit(write_config(tmp_path / "unit.json", tmp_path / "state"))
    yield u
    u.write("quit")
    u.finish()


def play(unit, *lines):
    for line in lines:
        if line.startswith("clock"):  # no answer: the next key line waits for it
            unit.write(line)
        else:
            unit.send(line)
    return unit.frame()  # each row without its trailing blanks


def director(seat, ruling):
    return [p.format(s=seat) for p in PIN] + [f"{seat} {ruling}"]


def test_the_score_screen_after_a_dispute_no_longer_asks_for_a_confirmation(unit):
    rows = play(unit, *ONE_SPADE, "E H", "N PASS", "S PASS")  # N-S entered 7 tricks; S (N-S) may not confirm
    assert rows[6] == "EW to confirm"
    rows = play(unit, "E UNDO", "N PASS", "E PASS")  # E-W dispute, N-S enter again, E-W agree
    assert rows[1:3] == ["1S N =", "NS 80"] and rows[6] == "PASS: next"
    assert "EW to confirm" not in rows


def test_a_call_after_the_auction_is_answered_once_and_gone_by_the_next_board(unit):
    rows = play(unit, *ONE_SPADE, "W PASS")  # Law 39: a call after the close is cancelled
    assert rows[6] == "W P void L39"
    rows = play(unit, "E H")  # the lead: the answer was to the press before
    assert rows[1] == "1S by N" and "W P void L39" not in rows
    rows = play(unit, "N PASS", "E PASS", "N PASS")  # result entered, agreed, next board
    assert rows[:1] + rows[3:7] == ["Bd2 DlrE NS", "Board 2", "Dealer E", "Vul NS", "E to call"]


def test_a_director_call_adds_to_the_prompt_and_never_hides_it(unit):
    rows = play(unit, "N PASS", "N 1", "N S", "E TD")
    assert rows[5:7] == ["director called", "E to call"] and rows[2].startswith("    1S")  # the grid keeps 3 rows
    rows = play(unit, *director("E", 2))  # the menu: 1 pass next turn, 2 end call
    assert rows[5:7] == ["", "E to call"]
    rows = play(unit, "E PASS", "S PASS", "W PASS", "S TD")
    assert rows[4:7] == ["director called", "1S by N", "E: lead suit"]


def test_the_result_hint_says_what_each_key_does(unit):
    rows = play(unit, *ONE_SPADE, "E H")
    assert rows[3:7] == ["tricks 7 =", "1-7: level made", "X: -1   XX: +1", "PASS: enter"]
    rows = play(unit, "N X")
    assert rows[3] == "tricks 6 -1"


def test_the_seat_that_may_not_double_sees_it_on_its_turn(unit):
    # Law 30 B2: N passes out of rotation at S's turn after a bid; rejected, N passes throughout and S may not
    # double this turn
    rows = play(unit, "N PASS", "N 1", "N H", "E 1", "E S", "N PASS", *director("W", 1))
    assert rows[6] == "S: call, no X/XX"
    rows = play(unit, "S PASS")
    assert rows[6] == "W to call"


@pytest.mark.parametrize("withdrawn, shown", [("H", ["L26 N's lead:", "W may bar/req H"]),
                                              ("NT", ["L26 N's lead:", "W may bar 1 suit"])])
def test_the_opening_leader_sees_what_declarer_may_do_about_his_lead(unit, withdrawn, shown):
    # S calls out of rotation and the director rejects it: N passes throughout, and if N leads against the
    # contract, Law 26 lets declarer bar (or, for a suit the call named, require) a lead
    rows = play(unit, "N PASS", "S 1", f"S {withdrawn}", *director("W", 1),
                "N PASS", "E PASS", "S PASS", "W 1", "W S", "N PASS", "E PASS", "S PASS")
    assert rows[3:7] == shown + ["1S by W", "N: lead suit"]


def test_a_lead_without_a_restriction_shows_none(unit):
    rows = play(unit, *ONE_SPADE)
    assert rows[2:7] == ["    1S  P   P", "P", "", "1S by N", "E: lead suit"]


def test_presses_in_one_scan_are_taken_in_turn_first_law_33(unit):
    # dealer N: W's and N's PASS in one scan, W's first in the scan: N's counts first, W's comes after it, out of
    # rotation at E's turn
    rows = play(unit, "N PASS", "W PASS + N PASS")
    assert rows[:4] == ["IRREGULAR L30", "W P", "out of turn", "N may accept:"]
    rows = play(unit, "N 1", "N C")  # N, W's LHO, calls over it: W's pass stands and E's turn is lost (Law 29)
    assert rows[2:4] == ["    P", "P   1C"] and rows[6] == "E to call"


def test_the_tempo_of_each_call_reaches_the_collector(tmp_path):
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", {"T01": SECRET}), 0)
    u = VUnit(write_config(tmp_path / "T01.json", tmp_path / "state", c.url, unit="T01"))
    try:
        play(u, "clock 1000", "N PASS", "clock +12345", "N 1", "N H", "clock +800", "E PASS", "W ALERT",
             "clock +60", "S X")
        u.write("sync 10000")
        u.write("quit")
        u.finish()
        calls = [(e["input"], e.get("tempo")) for e in c.events("T01") if e["type"] == "call"]
        # 12.345 s to 123 tenths; the alert is no call and gives none; S's double 0.06 s after E's pass
        assert calls == [("N:1H", 123), ("E:P", 8), ("W@", None), ("S:X", 1)]
    finally:
        c.stop()


# Board 1, dealer N: S's 1H out of rotation at N's turn, rejected: N passes throughout; 1S by W, N (S's partner) to
# lead, and declarer may bar or require a heart lead (Law 26 A)
LAW_26 = ["N PASS", "S 1", "S H", *director("W", 1), "N PASS", "E PASS", "S PASS", "W 1", "W S", "N PASS", "E PASS",
          "S PASS"]


def open_lead_restriction(c, timeout=20):
    """The id of the lead_restriction alert open in the collector's queue, once the unit's sync has raised it."""
    return wait_until(lambda: [a["key"] for a in c.api.get("/api/v1/queue").json()["alerts"]
                               if a["kind"] == "lead_restriction"], timeout,
                      what="a lead_restriction alert in the collector's queue")[0]


@pytest.mark.parametrize("choice, suit, shown, presses, refused, lead", [
    # barred: a heart is refused once, with how to say he has nothing else; a club is taken
    ("bar", "H", ["L26 W bars H", "1S by W", "N: lead, not H"], ["N H", "N C"],
     ["L26 W bars H", "void? again L59", "1S by W", "N: not H L26"], {"suit": "C", "l26": "bar H"}),
    # required: a club is refused once; the club again says he holds no heart (Law 59), and is taken
    ("require", "H", ["L26 W requires H", "1S by W", "N: lead H"], ["N C", "N C"],
     ["L26 W requires H", "void? again L59", "1S by W", "N: lead H L26"],
     {"suit": "C", "l26": "require H", "law59": True}),
    # waived: any lead
    ("waive", None, ["L26 W waives", "1S by W", "N: lead suit"], ["N S"], None, {"suit": "S", "l26": "waive"}),
])
def test_declarers_law_26_choice_from_the_director_reaches_the_leaders_screen(tmp_path, choice, suit, shown, presses,
                                                                              refused, lead):
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", {"T01": SECRET}), 0)
    u = VUnit(write_config(tmp_path / "T01.json", tmp_path / "state", c.url, unit="T01"))
    try:
        rows = play(u, *LAW_26)
        assert rows[3:7] == ["L26 N's lead:", "W may bar/req H", "1S by W", "N: lead suit"]
        u.write("sync 10000")
        answer = c.api.post("/api/v1/leads", json={"alert": open_lead_restriction(c), "choice": choice, "suit": suit})
        assert answer.status_code == 201, answer.text
        u.write("sync 10000")  # the choice comes back in the reply, as a lead_choice command
        rows = u.frame_until(lambda f: f[4] == shown[0])
        # the candidate's two rows give way to declarer's choice, and the auction has a row more
        assert rows[4:7] == shown and rows[2:4] == ["    P   P   P", "1S  P   P   P"]
        if refused:
            rows = play(u, presses[0])
            assert rows[3:7] == refused
        rows = play(u, presses[-1])
        assert rows[1:3] == ["1S by W", "lead N " + lead["suit"]]  # taken: result entry
        u.write("sync 10000")
        u.write("quit")
        u.finish()
        [made] = [e for e in c.events("T01") if e["type"] == "lead"]
        assert {k: made[k] for k in lead} == lead and made.get("law59") == lead.get("law59")
        # the alert closed with the choice the unit applied
        [closed] = [a for a in c.api.get("/api/v1/queue", params={"state": "closed"}).json()["alerts"]
                    if a["kind"] == "lead_restriction"]
        assert closed["outcome"].startswith("declarer's choice: N") and "(shown at the table)" in closed["outcome"]
    finally:
        c.stop()
