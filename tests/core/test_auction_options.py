"""The options laws.md §5.1 lists after each verdict (acceptance, condonation, rejection, Law 25 rulings),
enforce mode, and the inputs around the auction (alerts, the opening lead). Runs on both interpreters."""
from bidwire.core import codes, readback, record
from bidwire.core.auction import Auction
from bidwire.core.readback import parse_call


def play(steps, dealer=0, mode=codes.RECORD, options=0):
    a = Auction(dealer, mode, options)
    verdicts = [readback.apply(a, s) for s in steps]
    return a, record.summary(a), verdicts


def kinds(s):
    return sorted(r["seat"] + " " + r["kind"] for r in s["restrictions"])


def test_a04_dealer_lho_calling_is_acceptance_flagged_for_the_director():
    _, s, v = play(["W:1C", "N:P"])
    assert v == [codes.OUT_OF_ROTATION, codes.LEGAL] and s["auction"] == ["W:1C", "N:P"]
    assert {"kind": "DIRECTOR_REVIEW", "law": 28, "at": 0} in s["reviews"]


def test_a04_rejected_bars_the_offenders_partner_law31b():
    _, s, _ = play(["W:1C", "!reject"])
    assert kinds(s) == ["E PASS_THROUGHOUT"] and s["in_turn"] == "N"


def test_a21_law38_rejected_pass_substituted_both_barred():
    _, s, _ = play(["N:7NT", "E:8C", "!reject"])
    assert s["auction"] == ["N:7NT", "E:P"] and kinds(s) == ["E PASS_THROUGHOUT", "W PASS_THROUGHOUT"]


def test_a25_repeat_of_insufficient_bid_out_of_rotation_is_law27_in_rotation():
    a, s, v = play(["N:1S", "S:1H", "!reject", "E:P"])
    assert kinds(s) == ["S MUST_REPEAT"]
    assert a.call(2, parse_call("1H")) == codes.INSUFFICIENT and a.law == 27
    assert a.call(3, parse_call("P")) == codes.LEGAL  # W accepts it (27 A)
    assert record.summary(a)["auction"] == ["N:1S", "E:P", "S:1H", "W:P"]


def test_a30_law35b_condoned_then_law37_rejected():
    _, s, v = play(["!pass_next_turn:E", "N:1H", "E:1S", "S:P"])
    assert v[2] == codes.PASS_OBLIGATION and s["auction"] == ["N:1H", "E:1S", "S:P"] and kinds(s) == []
    _, s, _ = play(["!pass_next_turn:E", "N:1H", "E:1S", "!reject"])
    assert s["auction"] == ["N:1H", "E:P"] and kinds(s) == ["E PASS_THROUGHOUT", "W PASS_THROUGHOUT"]


def test_a19_law25b_original_stands_partner_passes_once():
    _, s, _ = play(["N:1H", "N:1S", "!25b_stand"])
    assert s["auction"] == ["N:1H"] and kinds(s) == ["S PASS_NEXT_TURN"]


def test_a19_law25b_other_call_1987_reading_bars_partner():
    a, s, _ = play(["N:1H", "N:1S", "!25b_other"])
    assert s["auction"] == [] and kinds(s) == ["N MUST_REPLACE", "S PASS_THROUGHOUT"]
    assert a.call(0, parse_call("2C")) == codes.LEGAL and kinds(record.summary(a)) == ["S PASS_THROUGHOUT"]


def test_a19_law25b_other_call_1997_option_caps_at_average_minus():
    _, s, _ = play(["N:1H", "N:1S", "!25b_other"], options=codes.OPT_25B_OTHER_AVG_MINUS)
    assert kinds(s) == ["N MUST_REPLACE"] and [r["kind"] for r in s["reviews"]] == ["AVERAGE_MINUS_CAP"]


def test_change_of_final_pass_reopens_the_auction_when_allowed():
    _, s, v = play(["N:1H", "E:P", "S:P", "W:P", "W~X", "!25a"])
    assert v[4] == codes.CHANGE_OF_CALL and s["phase"] == "auction" and s["auction"][-1] == "W:X"


def test_presses_while_an_irregularity_is_pending_are_held():
    a, s, v = play(["E:1S", "W:P", "W:2C", "!25a"])
    assert v[1:] == [codes.HELD, codes.HELD, codes.REFUSED]  # the offender's partner twice; a ruling that does not fit
    assert s["auction"] == [] and s["pending"]["kind"] == "out_of_rotation" and s["pending"]["law"] == 31


def test_enforce_mode_refuses_with_reason_and_lights_only_legal_keys():
    a, s, v = play(["N:1H", "S:2H", "E:1C", "E:X"], mode=codes.ENFORCE)
    assert v == [codes.LEGAL, codes.REFUSED, codes.REFUSED, codes.LEGAL]
    assert s["auction"] == ["N:1H", "E:X"]
    a.rule(codes.RULE_PASS_NEXT_TURN, 2)  # Law 24 for South
    assert [c for c in range(38) if a.may_call(2, c)] == [0]  # only PASS lit
    assert a.call(2, parse_call("XX")) == codes.REFUSED and a.why == codes.PASS_OBLIGATION


def test_alert_marks_partners_last_call_and_lead_ends_the_auction_period():
    a, s, _ = play(["N:1NT", "E:P", "S:2C", "N@", "W:P", "N:2D", "E:P", "S:P", "W:P", "*lead"])
    assert s["auction"][2] == "S:2C!" and s["phase"] == "play" and s["contract"] == "2D"
    assert a.call(0, parse_call("3D")) == codes.AFTER_CLOSE and a.change(3, parse_call("X")) == codes.REFUSED


def test_bad_codes_are_rejected_not_recorded():
    a = Auction(0)
    for seat, call in ((4, 0), (0, 48), (-1, 3)):
        try:
            a.call(seat, call)
        except ValueError:
            pass
        else:
            raise AssertionError("accepted seat " + str(seat) + " call " + str(call))
    assert len(a.inputs) == 0


def test_longest_possible_auction_is_319_calls_and_ends():
    a = Auction(0, codes.ENFORCE)
    n = 0
    for _ in range(3):  # three passes, then every bid doubled and redoubled with passes between
        assert a.call(a.in_turn(), 0) == codes.LEGAL
        n += 1
    for bid in range(3, 38):
        for call in (bid, 0, 0, 1, 0, 0, 2, 0, 0):
            assert a.call(a.in_turn(), call) == codes.LEGAL, str(n)
            n += 1
    assert n == 318 and a.phase == codes.AUCTION
    assert a.call(a.in_turn(), 0) == codes.LEGAL and a.phase == codes.ENDED
    assert record.contract_text(a) == "7NTXX" and n + 1 == 319
